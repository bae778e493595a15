"""What a session holds: each line parsed and checked on its own, the header, the entry tree,
the Analysis model and its memoised views."""
