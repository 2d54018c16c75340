"""The render route's service: the rendering itself is core/rendering.py, shared with the image links."""
from flask import current_app

from ...core.rendering import render
from ...services import render as renderers

__all__ = ["engines", "render"]


def engines():
    """[{type, engine, version, backend}] for every type this server can draw now, sorted by type: nothing
    about where engines or Kroki are (no paths, no URLs)."""
    renderer = renderers.configured_renderer(current_app.config)
    return [] if renderer is None else renderer.engines()
