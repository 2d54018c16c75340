"""Comments on diagrams (docs/comments.md): threads, anchors that follow the source, mentions."""
