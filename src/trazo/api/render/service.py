"""The render route's service: the rendering itself is core/content/rendering.py, shared with the image links."""
from flask import Response

from ...core.content import rendering
from ...core.content.rendering import render as draw
from ...services.render import notices
from ..images import SVG_POLICY

__all__ = ["engines", "render"]


def render(diagram_type, source):
    """The answer of the render route: the SVG, and in X-Render-Warnings what the drawing left out (D2
    icons it could not fetch; docs/rendering.md, "Icons"), when it left out anything."""
    with notices.collecting() as left_out:
        svg = draw(diagram_type, source)
    headers = {"Content-Security-Policy": SVG_POLICY}
    if left_out:
        headers[notices.HEADER] = notices.header_value(left_out)
    return Response(svg, mimetype="image/svg+xml", headers=headers)


def engines():
    """[{type, engine, version, backend}] for every type this server can draw now, sorted by type."""
    return rendering.engines()
