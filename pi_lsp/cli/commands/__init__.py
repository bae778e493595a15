"""The subcommands of pi-lsp, one module each (add_parser and run), imported only when run:
pi_lsp.cli.COMMANDS lists them."""
