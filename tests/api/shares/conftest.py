"""Fixtures of the shares area: tests/api/drawn_content.py (a project, a Mermaid diagram, the render caches
emptied after each test)."""
from ..drawn_content import diagram, emptied_render_cache, project  # noqa: F401  (fixtures)
