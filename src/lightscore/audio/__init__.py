"""audio layer (see docs/architecture.md)."""
