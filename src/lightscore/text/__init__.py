"""text layer (see docs/architecture.md)."""
