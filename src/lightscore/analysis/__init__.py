"""analysis layer (see docs/architecture.md)."""
