"""io layer (see docs/architecture.md)."""
