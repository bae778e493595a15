"""What pi does with a session: how it loads and migrates it, the context it builds, what it
sends, what it counts."""
