"""What a session holds: each line parsed and classified, the header, the entry tree,
the Analysis model and its memoised views."""
