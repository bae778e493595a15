"""``python -m pi_lsp``: the same entry point as the ``pi-lsp`` command."""

from pi_lsp.cli import entry

if __name__ == "__main__":
    entry()
