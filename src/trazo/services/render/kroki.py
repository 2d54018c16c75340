"""Render through a Kroki server: POST {KROKI_URL}/{type}/svg with the source as text/plain, the whole
call (connection, headers, body) under RENDER_TIMEOUT. Callers hold no database connection: the render
route never opens one.

Every language Kroki draws is accepted. Kroki runs its engines on its own host, and in its secure
mode (the default) they may not include files or fetch anything over the network; docs/rendering.md
says why that is the line and what an operator must keep."""
import requests

from .. import outbound
from .base import MAX_SVG_BYTES
from .diagnostics import clean_message, find_line
from .errors import DiagramSyntaxError, RendererFailed, RendererTimeout

# The diagram languages Kroki draws as SVG (its experimental diagrams.net support left out).
KROKI_TYPES = frozenset({
    "actdiag", "blockdiag", "bpmn", "bytefield", "c4plantuml", "d2", "dbml", "ditaa", "erd", "excalidraw",
    "goat", "graphviz", "mermaid", "nomnoml", "nwdiag", "packetdiag", "pikchr", "plantuml", "rackdiag",
    "seqdiag", "structurizr", "svgbob", "symbolator", "tikz", "umlet", "vega", "vegalite", "wavedrom",
    "wireviz",
})

_session = outbound.session()


class KrokiRenderer:
    name = "kroki"

    def __init__(self, base_url, timeout, max_bytes=MAX_SVG_BYTES):
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.max_bytes = max_bytes

    def supported_types(self):
        return KROKI_TYPES

    def refused_types(self):
        return {}

    def engine_version(self, _diagram_type):
        return None  # Kroki's own, unknown here (asking would be a call to Kroki)

    def drawer(self, _diagram_type):
        return self.name

    def engines(self):
        """[{type, engine, version, backend}] of every type Kroki draws (never its URL)."""
        return [{"type": kind, "engine": "kroki", "version": None, "backend": self.name}
                for kind in sorted(KROKI_TYPES)]

    def render_svg(self, diagram_type, source):
        try:
            answer = outbound.request(_session, "POST", f"{self.base_url}/{diagram_type}/svg", integration="render",
                                      seconds=self.timeout, max_bytes=self.max_bytes,
                                      data=source.encode("utf-8"), allow_redirects=False,
                                      headers={"Content-Type": "text/plain; charset=utf-8",
                                               "Accept": "image/svg+xml, text/plain;q=0.9"})
        except outbound.ResponseTooLarge as exc:
            raise RendererFailed(f"Kroki answered more than {self.max_bytes} bytes") from exc
        except requests.Timeout as exc:  # outbound.DeadlineExceeded included
            raise RendererTimeout() from exc
        except requests.RequestException as exc:
            raise RendererFailed(f"Kroki is unreachable: {type(exc).__name__}") from exc
        if answer.status_code >= 400:
            raise _failure(answer.status_code, answer.text)
        if answer.status_code != 200:
            raise RendererFailed(f"Kroki answered {answer.status_code}")
        if "<svg" not in answer.text:
            raise RendererFailed("Kroki answered without an SVG")
        return answer.text


def _failure(status, text):
    message = clean_message(text) or f"Kroki answered {status}"
    if status == 400:
        return DiagramSyntaxError(message, find_line(text))
    return RendererFailed(message)
