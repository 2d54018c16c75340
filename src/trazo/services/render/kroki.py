"""Render through a Kroki server: POST {KROKI_URL}/{type}/svg with the source as text/plain."""
import time

import requests

from .base import MAX_SVG_BYTES
from .diagnostics import clean_message, find_line
from .errors import DiagramSyntaxError, RendererFailed, RendererTimeout

# The diagram languages Kroki serves (the API narrows them to the ones it allows).
KROKI_TYPES = frozenset({
    "actdiag", "blockdiag", "bpmn", "bytefield", "c4plantuml", "d2", "dbml", "ditaa", "erd", "excalidraw",
    "graphviz", "mermaid", "nomnoml", "nwdiag", "packetdiag", "pikchr", "plantuml", "rackdiag", "seqdiag",
    "structurizr", "svgbob", "symbolator", "tikz", "umlet", "vega", "vegalite", "wavedrom", "wireviz",
})
CONNECT_TIMEOUT = 5
MAX_ERROR_BYTES = 64 * 1024

_session = requests.Session()


class KrokiRenderer:
    name = "kroki"

    def __init__(self, base_url, timeout, max_bytes=MAX_SVG_BYTES):
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.max_bytes = max_bytes

    def supported_types(self):
        return KROKI_TYPES

    def render_svg(self, diagram_type, source):
        deadline = time.monotonic() + self.timeout
        try:
            with _session.post(f"{self.base_url}/{diagram_type}/svg", data=source.encode("utf-8"),
                               headers={"Content-Type": "text/plain; charset=utf-8",
                                        "Accept": "image/svg+xml, text/plain;q=0.9"},
                               timeout=(min(CONNECT_TIMEOUT, self.timeout), self.timeout),
                               stream=True, allow_redirects=False) as response:
                if response.status_code >= 400:
                    raise _failure(response.status_code, _read(response, MAX_ERROR_BYTES, deadline))
                if response.status_code != 200:
                    raise RendererFailed(f"Kroki answered {response.status_code}")
                body = _read(response, self.max_bytes, deadline)
        except requests.Timeout as exc:
            raise RendererTimeout() from exc
        except requests.RequestException as exc:
            raise RendererFailed(f"Kroki is unreachable: {type(exc).__name__}") from exc
        svg = body.decode("utf-8", "replace")
        if "<svg" not in svg:
            raise RendererFailed("Kroki answered without an SVG")
        return svg


def _read(response, limit, deadline):
    """The body, refusing more than `limit` bytes or reading past the overall deadline
    (the read timeout alone restarts with every byte a slow server trickles)."""
    body = bytearray()
    for chunk in response.iter_content(64 * 1024):
        body += chunk
        if len(body) > limit:
            raise RendererFailed(f"Kroki answered more than {limit} bytes")
        if time.monotonic() > deadline:
            raise RendererTimeout()
    return bytes(body)


def _failure(status, body):
    text = body.decode("utf-8", "replace")
    message = clean_message(text) or f"Kroki answered {status}"
    if status == 400:
        return DiagramSyntaxError(message, find_line(text))
    return RendererFailed(message)
