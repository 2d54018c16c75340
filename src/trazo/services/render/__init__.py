"""Diagram rendering to SVG behind one interface: `auto` (the default: this host's engines, then Kroki
for the rest when KROKI_URL is set), `kroki` (HTTP) or `local` (installed engines), chosen by
RENDER_BACKEND, with identical renders served from a cache. Every SVG is sanitized once, before it is
cached, so nothing else hands out a renderer's raw output."""
import logging

from . import cache, d2, dbml, engines, graphviz, mermaid, plantuml  # noqa: F401  (d2, dbml, graphviz, mermaid, plantuml register engines)
from .auto import AutoRenderer
from .base import MAX_SVG_BYTES, NEEDS_KROKI, NO_ENGINE, READS_FILES_OR_NETWORK, Renderer
from .errors import (
    DiagramSyntaxError,
    ImageTooLarge,
    ReadsFiles,
    RendererBusy,
    RendererFailed,
    RendererLimitExceeded,
    RenderError,
    RendererTimeout,
    UnreadableInclude,
)
from .fair import current_client, for_client, metered
from .graph_size import count_edges
from .kroki import KROKI_TYPES, KrokiRenderer
from .local import LocalRenderer
from .notices import collecting as collecting_notices
from .sanitize import clean_svg

BACKENDS = ("auto", "kroki", "local")

__all__ = ["BACKENDS", "NEEDS_KROKI", "NO_ENGINE", "READS_FILES_OR_NETWORK", "DiagramSyntaxError", "ImageTooLarge",
           "ReadsFiles", "RenderError", "Renderer", "RendererBusy", "RendererFailed", "RendererLimitExceeded",
           "RendererTimeout",
           "configured_renderer", "count_edges", "current_client", "for_client", "log_engines", "metered",
           "render_cached", "UnreadableInclude"]

log = logging.getLogger(__name__)


def configured_renderer(config):
    """The backend RENDER_BACKEND names, or None when it names none we know (or `kroki` without a URL)."""
    backend, timeout = config["RENDER_BACKEND"], config["RENDER_TIMEOUT"]
    max_bytes = config.get("RENDER_MAX_SVG_BYTES") or MAX_SVG_BYTES
    kroki_url = config.get("KROKI_URL") or ""
    if backend == "kroki":
        return KrokiRenderer(kroki_url, timeout, max_bytes) if kroki_url else None
    if backend == "local":
        return LocalRenderer(config, timeout, max_bytes)
    if backend == "auto":
        kroki = KrokiRenderer(kroki_url, timeout, max_bytes) if kroki_url else None
        return AutoRenderer(LocalRenderer(config, timeout, max_bytes), kroki)
    return None


def render_cached(renderer, diagram_type, source, redis_url=None, before_render=None, after_render=None):
    """The sanitized SVG of `source`, from the cache when the same engine (the backend, and the engine's
    version on this host) already rendered the same text. Only when it did not, `before_render()` runs
    first (it may refuse by raising), and `after_render(seconds)` after the drawing, whatever its outcome,
    with the seconds it held (its time less the time it waited for a slot: services/render/fair.py)."""
    drawer = getattr(renderer, "drawer", None)
    key = cache.cache_key(drawer(diagram_type) if drawer else renderer.name, diagram_type, source)
    svg = cache.get(key, redis_url)
    if svg is None:
        if before_render is not None:
            before_render()
        with metered() as meter, collecting_notices() as left_out:
            try:
                svg = clean_svg(renderer.render_svg(diagram_type, source))
            finally:
                if after_render is not None:
                    after_render(meter.held())
        if not left_out:  # a drawing without an icon it could not fetch is drawn again next time
            cache.put(key, svg, redis_url)
    return svg


def log_engines(config):
    """One log line per local engine, installed (with its version) or missing (with why), and where the
    other types go; at start-up, so an operator sees what this host draws."""
    backend = config["RENDER_BACKEND"]
    if backend not in BACKENDS:
        log.error("RENDER_BACKEND %r is not one of %s: rendering answers 503", backend, ", ".join(BACKENDS))
        return
    kroki = bool(config.get("KROKI_URL"))
    if backend == "kroki":
        (log.info if kroki else log.error)("render backend kroki: %s", "every type goes to KROKI_URL" if kroki
                                           else "KROKI_URL is not set: rendering answers 503")
        return
    elsewhere = "Kroki" if backend == "auto" and kroki else "nobody (503)" if backend == "auto" else "nobody (400)"
    local_types = set()
    for engine, version, missing in engines.report(config):
        types = ", ".join(engine.types)
        if missing is None:
            local_types.update(engine.types)
            log.info("render engine %s %s: draws %s", engine.name, version or "(version unknown)", types)
        else:
            log.warning("render engine %s missing (%s): %s drawn by %s", engine.name, missing, types, elsewhere)
    rest = sorted(KROKI_TYPES - local_types)
    log.info("render backend %s: %s drawn here; %s by %s", backend, ", ".join(sorted(local_types)) or "nothing",
             ", ".join(rest), elsewhere)
