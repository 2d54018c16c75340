"""Comment threads on diagrams, anchored to lines or elements that follow the source (docs/comments.md)."""
