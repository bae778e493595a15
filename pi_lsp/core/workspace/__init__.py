"""Work over many files and the user's settings: stats reports, search and its cache,
configuration."""
