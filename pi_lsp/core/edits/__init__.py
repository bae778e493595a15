"""Changes to a session as minimal text edits: quick fixes, the doctor, --fix, refactorings,
rename, conversion."""
