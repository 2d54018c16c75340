"""Render a diagram source to SVG with the configured backend; renderer failures become statuses."""
import logging

from flask import current_app
from flask_babel import gettext as _

from ...errors import BadRequest, GatewayTimeout, ServiceUnavailable, UpstreamError
from ...services import render as renderers
from ..diagrams.types import RENDERABLE_TYPES

log = logging.getLogger(__name__)

# Names the browser client and other tools use for a type we know under another name.
ALIASES = {"dot": "graphviz", "uml": "plantuml"}


def supported_types(renderer):
    return renderer.supported_types() & RENDERABLE_TYPES


def render(diagram_type, source):
    """The SVG text of `source` drawn as `diagram_type`."""
    config = current_app.config
    renderer = renderers.configured_renderer(config)
    if renderer is None:
        log.error("RENDER_BACKEND %r is not one of %s", config["RENDER_BACKEND"], renderers.BACKENDS)
        raise ServiceUnavailable(_("Diagram rendering is not configured"))
    kind = diagram_type.strip().lower()
    kind = ALIASES.get(kind, kind)
    supported = supported_types(renderer)
    if kind not in supported:
        raise BadRequest(_("Unsupported diagram type '%(type)s'. Supported types: %(types)s",
                           type=diagram_type, types=", ".join(sorted(supported))))
    try:
        return renderers.render_cached(renderer, kind, source, config.get("REDIS_URL"))
    except renderers.DiagramSyntaxError as exc:
        if exc.line:
            raise BadRequest(_("Syntax error on line %(line)s: %(message)s", line=exc.line,
                               message=exc.message)) from exc
        raise BadRequest(_("Syntax error: %(message)s", message=exc.message)) from exc
    except renderers.RendererTimeout as exc:
        raise GatewayTimeout(_("The rendering service did not answer in time")) from exc
    except renderers.RendererBusy as exc:
        raise ServiceUnavailable(_("The rendering service is busy. Try again in a moment.")) from exc
    except renderers.RendererFailed as exc:
        log.warning("%s renderer failed on %s: %s", renderer.name, kind, exc)
        raise UpstreamError(_("The rendering service failed: %(reason)s", reason=str(exc))) from exc
