"""Image links: a diagram's current content drawn as SVG or PNG, with an ETag a browser or a README
renderer revalidates cheaply (docs/image-links.md).

The ETag is computed without drawing: a hash of the type, the content, what draws it (the backend and its
engine's version) and the options, so an unchanged diagram answers 304 from its row alone. Drawing goes
through the render cache (core/content/rendering.py), so a miss costs one render per content, whatever the number
of readers; a PNG is the cached SVG rasterized (services/render/raster.py) and kept in a small cache too.
An export's images (docs/export-format.md, "Images") are drawn the same way, within a DrawingBudget.
The HTTP answer (headers, 304) is api/images.py's.
"""
import hashlib
import time
from dataclasses import dataclass

from flask import current_app
from flask_babel import gettext as _

from ...errors import AppError, ServiceUnavailable
from ...services import render as renderers
from ...services.render import notices, raster
from .diagram_types import FREEHAND
from .rendering import rasterize, render

THEMES = {"light": "default", "dark": "dark"}
MERMAID_TYPES = frozenset({"mermaid", "flowchart"})
# What the render route and the stored types call differently.
IMAGE_TYPES = {"flowchart": "mermaid", FREEHAND: "excalidraw"}


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


def draw(image, etag):
    """The image's body: its SVG text, or PNG bytes rasterized from it (cached under `etag`); and whether it
    was drawn whole (False: a D2 icon could not be fetched, so the image must not be kept as this ETag's)."""
    with notices.collecting() as left_out:
        svg = render(image.kind, image.source)
    complete = not left_out
    if image.fmt == "svg":
        return svg, complete
    if not raster.available():
        raise ServiceUnavailable(_("PNG images are not available on this server; use the SVG image."))
    return rasterize(svg, etag if complete else None, image.kind), complete


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
