"""Diagram history: list, read, compare, name and restore revisions (docs/history.md)."""
