"""Text and the primitives every layer shares: line index, JSON per line, files, findings and
their codes, pi's size limits, text edits."""
