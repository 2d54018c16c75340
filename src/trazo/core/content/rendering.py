"""Render a diagram source to SVG with the configured backend; renderer failures become statuses.

Shared by the render route (api/render), the image links (api/shares, api/diagrams) and the MCP tools (api/mcp),
which also ask whether a source draws at all (`check`).

Every render runs on behalf of its client (`client_keys`: the address and, when signed in, the user), so
no client holds more than its share of a worker's engine slots, Mermaid pages and rasterizer slots
(services/render/fair.py), and a drawing the cache cannot answer is paid from the client's budget of
render-seconds, RATE_LIMIT_RENDER_SECONDS: refused (429) before it starts when nothing is left, charged
after with the seconds it held (docs/rendering.md, "Limits"; docs/security.md, "Render fairness").
No pooled database connection is held while a drawing runs.
"""
import logging
import math
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from flask import current_app
from flask_babel import gettext as _

from ...errors import BadRequest, GatewayTimeout, ServiceUnavailable, TooManyRequests, UpstreamError, ValidationFailed
from ...extensions import db
from ...ratelimit import budget_left, charge
from ...services import render as renderers
from ...services.render import raster
from ..credentials import client_keys

log = logging.getLogger(__name__)

# Names the browser client and other tools use for a type we know under another name.
ALIASES = {"dot": "graphviz", "uml": "plantuml"}
RENDER_BUDGET = "RENDER_SECONDS"


@dataclass(frozen=True)
class Verdict:
    """Whether a source draws here; when not, `error` says why and `line` (1-based) names the line the engine
    named, if it named one."""

    draws: bool
    error: str | None = None
    line: int | None = None


def render(diagram_type: str, source: str, before_render: Callable[[], None] | None = None) -> str:
    """The SVG text of `source` drawn as `diagram_type`. A drawing the cache cannot answer first calls
    `before_render()` (which may refuse by raising); by default that checks the caller's render-seconds
    budget, which the drawing is then charged. A caller with a budget of its own (an export's) passes
    `before_render` and spends nothing of the caller's render-seconds."""
    renderer, kind = _drawer(diagram_type)
    return _drawn(renderer, kind, source, before_render)


def check(diagram_type: str, source: str) -> Verdict:
    """Whether `source` draws as `diagram_type` on this server: it is drawn, through the render cache and on the
    caller's render-seconds like any render. A refusal of the source itself (a syntax error, a drawing too large
    or complex) is the Verdict; what says nothing about the source (a type this server does not draw, rendering
    not configured, busy, too slow, the caller's budget spent, the source over RENDER_MAX_SOURCE_BYTES) is raised
    as the render route would answer it."""
    renderer, kind = _drawer(diagram_type)
    try:
        _drawn(renderer, kind, source, None)
    except BadRequest as refusal:
        cause = refusal.__cause__
        line = cause.line if isinstance(cause, renderers.DiagramSyntaxError) else None
        return Verdict(False, str(refusal.detail), line or None)
    return Verdict(True)


def _drawer(diagram_type: str) -> tuple[Any, str]:
    """(the configured renderer, the type as it names it) when it draws `diagram_type`, else the refusal."""
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
    return renderer, kind


def _drawn(renderer: Any, kind: str, source: str, before_render: Callable[[], None] | None) -> str:
    config = current_app.config
    _check_size(kind, source, config)
    keys = client_keys()  # may read a personal access token: before the pooled connection is given back
    # Drawing may take RENDER_TIMEOUT (an engine, Kroki, D2's icon fetches): no pooled connection is held
    # meanwhile. Nothing is pending here; rows already loaded stay readable.
    db.session.close()
    own_budget = before_render is None
    with renderers.for_client(keys), render_failures(renderer.name, kind):
        return renderers.render_cached(renderer, kind, source, config.get("REDIS_URL"),
                                       check_render_budget if own_budget else before_render,
                                       charge_render_budget if own_budget else None)


def engines() -> list[dict[str, Any]]:
    """[{type, engine, version, backend}] for every type this server can draw now, sorted by type: nothing
    about where engines or Kroki are (no paths, no URLs)."""
    renderer = renderers.configured_renderer(current_app.config)
    return [] if renderer is None else renderer.engines()


def rasterize(svg: str, key: str | None, kind: str) -> bytes:
    """The PNG of `svg` (an image drawn as `kind`), cached and its failures remembered under `key` (the
    image's ETag); a rasterization the PNG cache cannot answer is paid from the client's render-seconds
    like a drawing, and one past RENDER_MAX_PNG_PIXELS is refused before it starts (services/render/raster.py)."""
    with renderers.for_client(client_keys()), render_failures("resvg", kind):
        return raster.svg_to_png(svg, current_app.config, key=key, before=check_render_budget,
                                 after=charge_render_budget)


def check_render_budget() -> None:
    """Before a drawing the cache cannot answer: 429 with Retry-After when any key of the client has no
    render-second left."""
    for key in renderers.current_client():
        left, seconds = budget_left(RENDER_BUDGET, key)
        if left < 1:
            raise TooManyRequests(seconds)


def charge_render_budget(seconds: float) -> None:
    """After the drawing: its seconds held, rounded up, at least 1, from each key of the client."""
    cost = max(1, math.ceil(seconds))
    for key in renderers.current_client():
        charge(RENDER_BUDGET, key, cost)


@contextmanager
def render_failures(renderer_name: str, kind: str) -> Iterator[None]:
    """A renderer's (or the rasterizer's) failures as the statuses and localized messages of the API."""
    try:
        yield
    except renderers.UnreadableInclude as exc:
        if exc.line:
            raise BadRequest(_("Line %(line)s includes %(target)s, which this server cannot read: it reads no URLs "
                               "or files while drawing. Use a library bundled with PlantUML in the !include <...> "
                               "form instead, e.g. !include <C4/C4_Container>.", line=exc.line,
                               target=exc.target)) from exc
        raise BadRequest(_("The diagram includes %(target)s, which this server cannot read: it reads no URLs or "
                           "files while drawing. Use a library bundled with PlantUML in the !include <...> form "
                           "instead, e.g. !include <C4/C4_Container>.", target=exc.target)) from exc
    except renderers.ReadsFiles as exc:
        if exc.kind == renderers.ReadsFiles.IMPORT:
            raise BadRequest(_("Line %(line)s imports %(target)s, which this server cannot read: it reads no files "
                               "while drawing. Put the whole diagram in one source (text starting with @ outside "
                               "quotes reads as an import: quote it).", line=exc.line, target=exc.target)) from exc
        raise BadRequest(_("Line %(line)s takes an icon from %(target)s, which this server cannot read: it reads no "
                           "files while drawing. An icon must be an http(s) URL written in the source.",
                           line=exc.line, target=exc.target)) from exc
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
        retry = {"Retry-After": str(exc.retry_after)}
        if exc.own_share:
            raise ServiceUnavailable(_("Your other renders are still running. Try again when they finish."),
                                     headers=retry) from exc
        raise ServiceUnavailable(_("The rendering service is busy. Try again in a moment."), headers=retry) from exc
    except renderers.ImageTooLarge as exc:
        raise BadRequest(_("The image is too large to convert to PNG: it needs %(pixels)s pixels, at most "
                           "%(limit)s. Use the SVG image instead.", pixels=exc.pixels, limit=exc.limit)) from exc
    except renderers.RendererFailed as exc:
        log.warning("%s renderer failed on %s: %s", renderer_name, kind, exc)
        raise UpstreamError(_("The rendering service failed: %(reason)s", reason=str(exc))) from exc


def _refusal(kind: str, reason: str, supported: frozenset[str]) -> Exception:
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


def _check_size(kind: str, source: str, config: Mapping[str, Any]) -> None:
    """Refuse, before any work, sources whose size alone makes them too costly to draw."""
    limit = config["RENDER_MAX_SOURCE_BYTES"]
    if len(source.encode("utf-8")) > limit:
        raise ValidationFailed("source", _("The source is larger than %(limit)s bytes", limit=limit))
    if kind == "graphviz":
        edges, most = renderers.count_edges(source), config["RENDER_MAX_GRAPH_EDGES"]
        if edges > most:
            raise BadRequest(_("The graph has %(edges)s edges; at most %(limit)s can be rendered",
                               edges=edges, limit=most))
