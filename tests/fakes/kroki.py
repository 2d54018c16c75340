"""A Kroki-protocol server on 127.0.0.1 that draws with the local backend (Graphviz).

It answers POST /{type}/svg (the source as the text/plain body) the way Kroki does: SVG on success,
`400` with a plain-text "Error 400: ..." (and a stack trace line) on a syntax error, `404` for a type
it does not know. Graphviz sources are really drawn; the other languages Kroki serves get a small SVG
naming the type and the source's first line (Vega, Vega-Lite and Excalidraw sources must be JSON).
`mode` makes it fail on purpose: "down" answers 503, "slow" waits before answering, "trickle" sends
its answer one byte at a time for `slow_seconds`. `svg`, when set, is answered as is (a hostile
renderer); `probe`, when set, is called on every request and what it returns is kept in `probed`.
"""
import json
import time
from html import escape

from trazo.services.render import DiagramSyntaxError
from trazo.services.render.local import LocalRenderer

from .base import LocalHttpServer, QuietHandler

# The diagram languages a Kroki 0.2x server answers for (its own list, not the service's).
KROKI_LANGUAGES = frozenset({
    "actdiag", "blockdiag", "bpmn", "bytefield", "c4plantuml", "d2", "dbml", "ditaa", "erd", "excalidraw",
    "goat", "graphviz", "mermaid", "nomnoml", "nwdiag", "packetdiag", "pikchr", "plantuml", "rackdiag",
    "seqdiag", "structurizr", "svgbob", "symbolator", "tikz", "umlet", "vega", "vegalite", "wavedrom",
    "wireviz",
})
JSON_LANGUAGES = frozenset({"vega", "vegalite", "excalidraw"})
STUB_SVG = ('<svg xmlns="http://www.w3.org/2000/svg" width="240" height="40"><text x="8" y="25">'
            '{kind}: {label}</text></svg>')


class KrokiServer(LocalHttpServer):
    def __init__(self):
        self.renderer = LocalRenderer({"RENDER_CPU_SECONDS": 10, "RENDER_MEMORY_MB": 512}, timeout=10)
        self.mode = "ok"
        self.slow_seconds = 3
        self.svg = None
        self.probe = None
        self.probed = []
        self.requests = []
        super().__init__(self._handler())

    def reset(self):
        self.mode, self.svg, self.probe = "ok", None, None
        self.requests.clear()
        self.probed.clear()

    def answer(self, path, content_type, body):
        """(status, content type, body) for one request."""
        parts = path.strip("/").split("/")
        if len(parts) != 2 or parts[1] != "svg":
            return 404, "text/plain", b"Error 404: Not Found"
        diagram_type, source = parts[0], body.decode("utf-8")
        self.requests.append({"type": diagram_type, "source": source, "content_type": content_type})
        if self.probe is not None:
            self.probed.append(self.probe())
        if self.svg is not None:
            return 200, "image/svg+xml", self.svg.encode("utf-8")
        if self.mode == "down":
            return 503, "text/plain", b"Error 503: Service Unavailable"
        if self.mode == "slow":
            time.sleep(self.slow_seconds)
        if diagram_type not in KROKI_LANGUAGES:
            return 404, "text/plain", f"Error 404: Unsupported diagram type {diagram_type}".encode()
        if diagram_type in JSON_LANGUAGES:
            try:
                json.loads(source)
            except ValueError as exc:
                return 400, "text/plain", f"Error 400: SyntaxError: {exc}\n\tat io.kroki.Vega.convert".encode()
        if diagram_type not in self.renderer.supported_types():
            label = escape(source.strip().splitlines()[0] if source.strip() else "")
            return 200, "image/svg+xml", STUB_SVG.format(kind=diagram_type, label=label).encode("utf-8")
        try:
            svg = self.renderer.render_svg(diagram_type, source)
        except DiagramSyntaxError as exc:
            return 400, "text/plain", f"Error 400: {exc.message}\n\tat io.kroki.Graphviz.convert".encode()
        return 200, "image/svg+xml", svg.encode("utf-8")

    def _handler(self):
        server = self

        class Handler(QuietHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                status, content_type, payload = server.answer(self.path, self.headers.get("Content-Type"), body)
                if server.mode == "trickle":
                    return self.trickle(status, content_type, payload)
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", content_type)
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (the timeout test)

            def trickle(self, status, content_type, payload):
                """The answer, then a space every 0.1 s: each read waits far less than any read timeout."""
                spaces = int(server.slow_seconds * 10)
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", content_type)
                    self.send_header("Content-Length", str(len(payload) + spaces))
                    self.end_headers()
                    self.wfile.write(payload)
                    for _ in range(spaces):
                        time.sleep(0.1)
                        self.wfile.write(b" ")
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass

        return Handler
