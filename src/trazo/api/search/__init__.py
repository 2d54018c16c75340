"""Search over the diagrams of the caller's workspaces (docs/search.md)."""
