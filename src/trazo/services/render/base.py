"""The renderer interface every backend implements."""
from typing import Protocol

# The largest SVG a backend may hand back; beyond it the render fails rather than filling memory.
MAX_SVG_BYTES = 10 * 1024 * 1024

# Why a backend refuses a type it knows (docs/rendering.md explains each type):
# its engine could read files or reach the network from the host that runs it,
READS_FILES_OR_NETWORK = "reads_files_or_network"
# or no engine for it runs on that host at all,
NO_ENGINE = "no_engine"
# or (RENDER_BACKEND=auto) no engine here draws it and no Kroki server is configured: a 503.
NEEDS_KROKI = "needs_kroki"


class Renderer(Protocol):
    name: str

    def supported_types(self) -> frozenset:
        """The diagram types this backend can render now."""

    def refused_types(self) -> dict:
        """Types this backend knows but will not render, each with the reason (a constant above)."""

    def render_svg(self, diagram_type: str, source: str) -> str:
        """The SVG of `source`; raises a RenderError subclass when it cannot."""

    def drawer(self, diagram_type: str) -> str:
        """Who draws a supported type (backend, engine and its version): part of the render cache's key."""

    def engine_version(self, diagram_type: str) -> str | None:
        """The version of the engine that draws a supported type, when this backend can tell."""

    def engines(self) -> list:
        """[{type, engine, version, backend}] for every supported type, sorted by type."""
