"""What editors and the command line show of an analysis: hovers, outline, lenses, inlay hints,
folding, completion, references."""
