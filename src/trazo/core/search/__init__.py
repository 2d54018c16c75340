"""Search over the diagrams a caller can read (docs/search.md): `find` is the one entry point."""
from .find import find

__all__ = ["find"]
