"""Render a diagram source to SVG with the configured backend; renderer failures become statuses.

Shared by the render route (api/render) and the image links (api/shares, api/diagrams)."""
import logging
from contextlib import contextmanager

from flask import current_app
from flask_babel import gettext as _

from ..errors import BadRequest, GatewayTimeout, ServiceUnavailable, UpstreamError, ValidationFailed
from ..ratelimit import client_address, spend
from ..services import render as renderers

log = logging.getLogger(__name__)

# Names the browser client and other tools use for a type we know under another name.
ALIASES = {"dot": "graphviz", "uml": "plantuml"}


def render(diagram_type, source, before_render=None):
    """The SVG text of `source` drawn as `diagram_type`. A drawing the cache cannot answer first calls
    `before_render()` (which may refuse by raising); by default it spends the caller's miss budget."""
    config = current_app.config
    renderer = renderers.configured_renderer(config)
    if renderer is None:
        log.error("RENDER_BACKEND %r is not one of %s", config["RENDER_BACKEND"], renderers.BACKENDS)
        raise ServiceUnavailable(_("Diagram rendering is not configured"))
    kind = diagram_type.strip().lower()
    kind = ALIASES.get(kind, kind)
    supported = renderer.supported_types()
    if kind not in supported and (reason := renderer.refused_types().get(kind)):
        raise _refusal(kind, reason, supported)
    if kind not in supported:
        raise BadRequest(_("Unsupported diagram type '%(type)s'. Supported types: %(types)s",
                           type=diagram_type, types=", ".join(sorted(supported))))
    _check_size(kind, source, config)
    with render_failures(renderer.name, kind):
        return renderers.render_cached(renderer, kind, source, config.get("REDIS_URL"),
                                       before_render or _spend_miss_budget)


@contextmanager
def render_failures(renderer_name, kind):
    """A renderer's (or the rasterizer's) failures as the statuses and localized messages of the API."""
    try:
        yield
    except renderers.DiagramSyntaxError as exc:
        if exc.line:
            raise BadRequest(_("Syntax error on line %(line)s: %(message)s", line=exc.line,
                               message=exc.message)) from exc
        raise BadRequest(_("Syntax error: %(message)s", message=exc.message)) from exc
    except renderers.RendererLimitExceeded as exc:
        raise BadRequest(_("The diagram is too large or too complex to render")) from exc
    except renderers.RendererTimeout as exc:
        raise GatewayTimeout(_("The rendering service did not answer in time")) from exc
    except renderers.RendererBusy as exc:
        raise ServiceUnavailable(_("The rendering service is busy. Try again in a moment.")) from exc
    except renderers.RendererFailed as exc:
        log.warning("%s renderer failed on %s: %s", renderer_name, kind, exc)
        raise UpstreamError(_("The rendering service failed: %(reason)s", reason=str(exc))) from exc


def _refusal(kind, reason, supported):
    """Why this backend will not draw a type Kroki draws."""
    types = ", ".join(sorted(supported))
    if reason == renderers.NEEDS_KROKI:  # RENDER_BACKEND=auto without KROKI_URL: the server lacks it, not the request
        return ServiceUnavailable(_("No engine on this server draws '%(type)s' diagrams and no Kroki server is "
                                    "configured for them. Types this server can draw: %(types)s",
                                    type=kind, types=types or "—"))
    if reason == renderers.NO_ENGINE:
        return BadRequest(_("'%(type)s' diagrams are rendered only through Kroki: this server has no engine "
                            "of its own for them. Supported types: %(types)s", type=kind, types=types))
    return BadRequest(_("'%(type)s' diagrams are rendered only through Kroki: their engine can read files or "
                        "reach the network, so this server does not run it. Supported types: %(types)s",
                        type=kind, types=types))


def _check_size(kind, source, config):
    """Refuse, before any work, sources whose size alone makes them too costly to draw."""
    limit = config["RENDER_MAX_SOURCE_BYTES"]
    if len(source.encode("utf-8")) > limit:
        raise ValidationFailed("source", _("The source is larger than %(limit)s bytes", limit=limit))
    if kind == "graphviz":
        edges, most = renderers.count_edges(source), config["RENDER_MAX_GRAPH_EDGES"]
        if edges > most:
            raise BadRequest(_("The graph has %(edges)s edges; at most %(limit)s can be rendered",
                               edges=edges, limit=most))


def _spend_miss_budget():
    """A render the cache cannot answer costs a process (or a Kroki call): it spends a second, smaller
    per-address budget, RATE_LIMIT_RENDER_MISS, on top of RATE_LIMIT_RENDER."""
    spend("RENDER_MISS", client_address())
