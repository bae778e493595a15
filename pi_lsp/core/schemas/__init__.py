"""The JSON Schemas of the session formats: loading, validation, read-only questions."""
