"""The analysis pipeline and every finder of diagnostics that needs more than one line."""
