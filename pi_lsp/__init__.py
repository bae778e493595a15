"""pi-lsp: a language server and checker for pi coding agent session files."""

__version__ = "0.1.0"
