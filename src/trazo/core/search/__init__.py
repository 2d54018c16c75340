"""Search over the diagrams a caller can read (docs/search.md): `find.find` is the one entry point."""
