"""Diagram rendering to SVG behind one interface: `kroki` (HTTP) or `local` (installed tools),
chosen by RENDER_BACKEND, with identical renders served from a cache. Every SVG is sanitized once,
before it is cached, so nothing else hands out a renderer's raw output."""
from . import cache
from .base import MAX_SVG_BYTES, NO_ENGINE, READS_FILES_OR_NETWORK, Renderer
from .errors import (
    DiagramSyntaxError,
    RendererBusy,
    RendererFailed,
    RendererLimitExceeded,
    RenderError,
    RendererTimeout,
)
from .graph_size import count_edges
from .kroki import KrokiRenderer
from .local import LocalRenderer
from .sanitize import clean_svg

BACKENDS = ("kroki", "local")

__all__ = ["BACKENDS", "NO_ENGINE", "READS_FILES_OR_NETWORK", "DiagramSyntaxError", "RenderError", "Renderer",
           "RendererBusy", "RendererFailed", "RendererLimitExceeded", "RendererTimeout", "configured_renderer",
           "count_edges", "render_cached"]


def configured_renderer(config):
    """The backend RENDER_BACKEND names, or None when it names none we know."""
    backend, timeout = config["RENDER_BACKEND"], config["RENDER_TIMEOUT"]
    max_bytes = config.get("RENDER_MAX_SVG_BYTES") or MAX_SVG_BYTES
    if backend == "kroki":
        return KrokiRenderer(config["KROKI_URL"], timeout, max_bytes)
    if backend == "local":
        return LocalRenderer(config, timeout, max_bytes)
    return None


def render_cached(renderer, diagram_type, source, redis_url=None, before_render=None):
    """The sanitized SVG of `source`, from the cache when this backend already rendered the same text;
    `before_render()` runs only when it did not (it may refuse by raising)."""
    key = cache.cache_key(renderer.name, diagram_type, source)
    svg = cache.get(key, redis_url)
    if svg is None:
        if before_render is not None:
            before_render()
        svg = clean_svg(renderer.render_svg(diagram_type, source))
        cache.put(key, svg, redis_url)
    return svg
