"""The renderer interface every backend implements."""
from typing import Protocol

# The largest SVG a backend may hand back; beyond it the render fails rather than filling memory.
MAX_SVG_BYTES = 10 * 1024 * 1024


class Renderer(Protocol):
    name: str

    def supported_types(self) -> frozenset:
        """The diagram types this backend can render now."""

    def render_svg(self, diagram_type: str, source: str) -> str:
        """The SVG of `source`; raises a RenderError subclass when it cannot."""
