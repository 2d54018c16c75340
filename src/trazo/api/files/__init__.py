"""The files API: a project's diagrams addressed by path (docs/files-api.md)."""
