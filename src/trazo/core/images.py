"""Image links: a diagram's current content drawn as SVG or PNG, with an ETag a browser or a README
renderer revalidates cheaply (docs/image-links.md).

The ETag is computed without drawing: a hash of the type, the content, what draws it (the backend and its
engine's version) and the options, so an unchanged diagram answers 304 from its row alone. Drawing goes
through the render cache (core/rendering.py), so a miss costs one render per content, whatever the number
of readers; a PNG is the cached SVG rasterized (services/render/raster.py) and kept in a small cache too.
An export's images (docs/export-format.md, "Images") are drawn the same way, within a DrawingBudget.
"""
import hashlib
import time
from dataclasses import dataclass

from flask import Response, current_app
from flask_babel import gettext as _
from werkzeug.http import parse_etags

from ..errors import AppError, ServiceUnavailable
from ..services import render as renderers
from ..services.render import notices, raster
from .diagram_types import FREEHAND
from .rendering import rasterize, render
from .revalidations import recent_etags

FORMATS = {"svg": "image/svg+xml", "png": "image/png"}
THEMES = {"light": "default", "dark": "dark"}
MERMAID_TYPES = frozenset({"mermaid", "flowchart"})
# What the render route and the stored types call differently.
IMAGE_TYPES = {"flowchart": "mermaid", FREEHAND: "excalidraw"}
SVG_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:"
MAX_AGE_SECONDS = 60


@dataclass(frozen=True)
class ImageRequest:
    """What to draw: a diagram's type and content, in a format, with a theme (Mermaid only)."""

    diagram_type: str
    content: str
    fmt: str
    theme: str = "light"

    @property
    def kind(self):
        return IMAGE_TYPES.get(self.diagram_type, self.diagram_type)

    @property
    def source(self):
        """The text the renderer gets: Mermaid takes the theme as an init directive in front."""
        if self.kind == "mermaid" and self.theme != "light":
            return f'%%{{init: {{"theme": "{THEMES[self.theme]}"}}}}%%\n{self.content}'
        return self.content


def _engine(kind):
    """Who draws `kind` here (backend, engine and version: a new engine version draws differently, so the
    image changes), as the render cache names it."""
    renderer = renderers.configured_renderer(current_app.config)
    return renderer.drawer(kind) if renderer is not None else "none"


def image_etag(image):
    parts = (image.kind, image.fmt, image.theme if image.kind == "mermaid" else "", _engine(image.kind),
             image.content)
    return '"' + hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:40] + '"'


def image_headers(etag, public):
    return {"ETag": etag, "Cache-Control": f"{'public' if public else 'private'}, max-age={MAX_AGE_SECONDS}",
            "Cross-Origin-Resource-Policy": "cross-origin", "Content-Security-Policy": SVG_POLICY}


def image_response(image, if_none_match, public, revalidation_key=None):
    """304 when the caller holds the current image, else the image; `public` says whether shared caches
    (a CDN, GitHub's image proxy) may keep it. With `revalidation_key` (a public link's), the ETag checked
    here answers that link's revalidations for a few seconds without reaching Flask or the database."""
    etag = image_etag(image)
    headers = image_headers(etag, public)
    if revalidation_key is not None:
        recent_etags().remember(revalidation_key, etag)
    held = parse_etags(if_none_match) if if_none_match else None
    if held is not None and (held.star_tag or held.contains_weak(etag.strip('"'))):
        return Response(status=304, headers=headers)
    with notices.collecting() as left_out:
        svg = render(image.kind, image.source)
    if left_out:  # drawn without a D2 icon it could not fetch: never kept nor revalidated as the image
        headers = {**headers, "Cache-Control": "no-store"}
        del headers["ETag"]
        etag = None
    if image.fmt == "svg":
        return Response(svg, mimetype=FORMATS["svg"], headers=headers)
    if not raster.available():
        raise ServiceUnavailable(_("PNG images are not available on this server; use the SVG image."))
    png = rasterize(svg, etag, image.kind)
    return Response(png, mimetype=FORMATS["png"], headers=headers)


class BudgetSpent(Exception):
    """An export may draw no more images the cache does not hold."""


class DrawingBudget:
    """What one export may draw: until a deadline (checked before each image, so the last drawing may
    end up to RENDER_TIMEOUT later) and at most `renders` drawings the render cache does not answer.
    Cached images cost no drawing; they still stop at the deadline."""

    def __init__(self, seconds, renders):
        self.deadline = time.monotonic() + seconds
        self.renders = renders

    def _spend(self):
        if self.renders <= 0:
            raise BudgetSpent()
        self.renders -= 1

    def draw(self, diagram_type, content):
        """(SVG text, None), or (None, {"reason", "detail"?}) saying why the diagram has no image."""
        if not content.strip():
            return None, {"reason": "empty"}
        if time.monotonic() >= self.deadline:
            return None, {"reason": "time_budget"}
        image = ImageRequest(diagram_type, content, "svg")
        try:
            return render(image.kind, image.source, before_render=self._spend), None
        except BudgetSpent:
            return None, {"reason": "render_budget"}
        except AppError as refusal:  # a syntax error, a source too large, no engine for the type...
            detail = refusal.detail
            return None, {"reason": "render_error",
                          "detail": detail if isinstance(detail, str) else "; ".join(i["msg"] for i in detail)}
