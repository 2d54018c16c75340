"""D2 icons given as http(s) URLs draw: the server fetches each through the outbound guard and embeds it
as a data: picture (services/render/icons.py). An icon server on 127.0.0.1, allowed by
RENDER_ICON_ALLOWED_PRIVATE_HOSTS, stands for the icon hosts; a listener no allow-list names must never
see a connection. An icon that cannot be had leaves its shape without it, the diagram draws, and
X-Render-Warnings says which icon and why."""
import base64
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from trazo.extensions import db
from trazo.services.render import icons

from ...fakes.base import LocalHttpServer
from ...helpers import create_diagram, share
from .test_render_engines import require

CORPUS = Path(__file__).resolve().parents[3].parent / "shared" / "corpus"
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9aw"
                       "AAAABJRU5ErkJggg==")
GIF = base64.b64decode("R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==")
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xd9"
SVG = (b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10" onload="alert(1)">'
       b'<script>alert(2)</script><rect width="10" height="10" fill="teal"/></svg>')
HTML = b"<!doctype html><html><body>Not found, but here is a page</body></html>"
WARNINGS = "X-Render-Warnings"


class IconServer(LocalHttpServer):
    """Serves a picture for any path, by its extension (.svg, .jpg, .gif, else PNG); `/slow/` trickles a
    byte every half second, `/html/` answers a web page as image/png, `/big/` 600 KiB, `/status/404/` a
    404. It records each path asked for, and calls `probe()` when a request arrives."""

    def __init__(self):
        self.paths = []
        self.lock = threading.Lock()
        self.hung_up = threading.Event()
        self.probe = None
        self.probed = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                with server.lock:
                    server.paths.append(self.path)
                if server.probe is not None:
                    server.probed.append(server.probe())
                if self.path.startswith("/slow/"):
                    return self._trickle()
                if self.path.startswith("/status/404/"):
                    return self._answer(b"gone", "text/plain", status=404)
                if self.path.startswith("/html/"):
                    return self._answer(HTML, "image/png")
                if self.path.startswith("/big/"):
                    return self._answer(PNG + b"\0" * (600 * 1024), "image/png")
                kind = self.path.rsplit("?", 1)[0].rsplit(".", 1)[-1].lower()
                body = {"svg": SVG, "jpg": JPEG, "jpeg": JPEG, "gif": GIF}.get(kind, PNG)
                return self._answer(body, "application/octet-stream")

            def _answer(self, body, content_type, status=200):
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _trickle(self):
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", "100000")
                self.end_headers()
                try:
                    self.wfile.write(PNG[:8])
                    for _ in range(120):  # a minute
                        time.sleep(0.5)
                        self.wfile.write(b"\0")
                        self.wfile.flush()
                except OSError:
                    server.hung_up.set()

            def log_message(self, *_args):
                pass

        super().__init__(Handler)

    def asked(self):
        with self.lock:
            return list(self.paths)

    def url(self, path):
        return f"{self.origin}/{path}"


@pytest.fixture(scope="module")
def icon_server():
    server = IconServer().start()
    yield server
    server.stop()


@pytest.fixture
def icon_host(app, icon_server, settings):
    """The icon server, allowed although it is on 127.0.0.1; D2 drawn here; no icon cached."""
    require("d2")
    settings(RENDER_BACKEND="auto", KROKI_URL="", RENDER_TIMEOUT=20, RATE_LIMIT_RENDER="1000/minute",
             RATE_LIMIT_RENDER_SECONDS="1000/minute",
             RENDER_ICON_ALLOWED_PRIVATE_HOSTS=[f"127.0.0.1:{icon_server.httpd.server_port}"])
    with icon_server.lock:
        icon_server.paths.clear()
    icon_server.probe, icon_server.probed = None, []
    icon_server.hung_up.clear()
    icons.forget(app.config.get("REDIS_URL"))
    yield icon_server
    icons.forget(app.config.get("REDIS_URL"))


def _render(client, source):
    return client.post("/diagrams/render", json={"source": source, "diagram_type": "d2"})


def _drawn(response):
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    assert response.mimetype == "image/svg+xml"
    return response.get_data(as_text=True)


def _warnings(response):
    return json.loads(response.headers[WARNINGS]) if WARNINGS in response.headers else []


def _pictures(svg):
    """The href of each <image> of a served SVG."""
    return re.findall(r'<image\b[^>]*?\bhref="([^"]*)"', svg)


def _local(source, server):
    """The source with each icon URL moved to the icon server, host and path kept in the path."""
    return re.sub(r"(icon:\s*['\"]?)https?://", lambda found: f"{found.group(1)}{server.origin}/", source)


# example-wcc sets its icons in layers, which are not drawn (the root board is): nothing is fetched.
@pytest.mark.parametrize(("case", "drawn_icons"), [("example-twitter", 7), ("example-wcc", 0),
                                                   ("docs-bespoke-pizza", 1)])
def test_the_corpus_diagrams_with_icons_draw_them(client, icon_host, case, drawn_icons):
    path = CORPUS / "cases" / "d2" / f"{case}.d2"
    if not path.is_file():
        pytest.skip(f"the corpus is not at {CORPUS}")
    source = _local(path.read_text(encoding="utf-8"), icon_host)
    response = _render(client, source)
    svg = _drawn(response)
    assert WARNINGS not in response.headers
    pictures = _pictures(svg)
    assert all(href.startswith(("data:image/png;", "data:image/svg+xml;", "data:image/jpeg;")) for href in pictures)
    asked = icon_host.asked()
    assert len(asked) == len(set(asked)) == drawn_icons  # each drawn icon fetched once
    assert len(pictures) >= drawn_icons


def test_png_svg_jpeg_and_gif_icons_are_embedded_and_svg_ones_cleaned(client, icon_host):
    source = "\n".join(f"{name}: {{shape: image; icon: {icon_host.url(f'icons/{name}.{name}')}}}"
                       for name in ("png", "svg", "jpeg", "gif")) + "\npng -> svg -> jpeg -> gif\n"
    response = _render(client, source)
    svg = _drawn(response)
    assert WARNINGS not in response.headers
    pictures = _pictures(svg)
    assert sorted(href.split(";")[0] for href in pictures) == ["data:image/gif", "data:image/jpeg", "data:image/png",
                                                                "data:image/svg+xml"]
    inner = base64.b64decode(next(href for href in pictures if href.startswith("data:image/svg+xml"))
                             .split(",", 1)[1]).decode()
    assert "teal" in inner and "script" not in inner and "onload" not in inner
    assert icon_host.origin not in svg


def test_a_trickling_icon_ends_at_the_deadline_and_the_diagram_draws_without_it(client, icon_host, settings):
    settings(RENDER_TIMEOUT=3)
    slow, quick = icon_host.url("slow/clock.png"), icon_host.url("icons/quick.svg")
    response = _render(client, f"late: {{icon: {slow}}}\nfast: {{icon: {quick}}}\nlate -> fast\n")
    svg = _drawn(response)
    assert _warnings(response) == [{"icon": slow, "reason": "timeout"}]
    assert [href.split(";")[0] for href in _pictures(svg)] == ["data:image/svg+xml"]
    assert ">late<" in svg and ">fast<" in svg
    assert icon_host.hung_up.wait(10), "the server kept trickling: the fetch was not cut"


@pytest.mark.parametrize("spelling", ["127.0.0.1:{port}", "localhost:{port}", "2130706433:{port}"])
def test_an_icon_at_a_private_address_not_allowed_never_gets_a_connection(client, icon_host, listener, spelling):
    url = f"http://{spelling.format(port=listener.getsockname()[1])}/logo.png"
    response = _render(client, f"app: {{icon: {url}}}\napp -> db\n")
    svg = _drawn(response)
    assert _warnings(response) == [{"icon": url, "reason": "unreachable"}]
    assert _pictures(svg) == [] and ">app<" in svg
    with pytest.raises(TimeoutError):
        listener.accept()


@pytest.mark.parametrize(("path", "reason"), [("html/logo.png", "not_an_image"), ("big/logo.png", "too_large")])
def test_what_is_not_a_small_picture_is_left_out(client, icon_host, path, reason):
    url = icon_host.url(path)
    response = _render(client, f"app: {{shape: image; icon: {url}}}\napp -> db\n")
    svg = _drawn(response)
    assert _warnings(response) == [{"icon": url, "reason": reason}]
    assert _pictures(svg) == [] and "Not found" not in svg


def test_a_diagram_fetches_at_most_twenty_icons(client, icon_host):
    urls = [icon_host.url(f"set/{index}.png") for index in range(21)]
    source = "\n".join(f"n{index}: {{icon: {url}}}" for index, url in enumerate(urls)) + "\n"
    response = _render(client, source)
    svg = _drawn(response)
    assert _warnings(response) == [{"icon": urls[20], "reason": "too_many_icons"}]
    assert len(_pictures(svg)) == 20 and len(icon_host.asked()) == 20


def test_icons_are_cached_by_url_and_failures_briefly_too(client, icon_host):
    logo, gone = icon_host.url("shared/logo.png"), icon_host.url("status/404/old.png")
    assert len(_pictures(_drawn(_render(client, f"a: {{icon: {logo}}}\n")))) == 1
    assert len(_pictures(_drawn(_render(client, f"b: {{icon: {logo}}}\nb -> c\n")))) == 1
    for label in ("x", "y"):  # not served from the render cache either: each answer says what it left out
        response = _render(client, f"{label}: {{icon: {gone}}}\n")
        _drawn(response)
        assert _warnings(response) == [{"icon": gone, "reason": "http_error", "status": 404}]
    again = _render(client, "x: {icon: " + gone + "}\n")
    assert _warnings(again) == [{"icon": gone, "reason": "http_error", "status": 404}]
    assert icon_host.asked() == ["/shared/logo.png", "/status/404/old.png"]


def test_icons_are_fetched_with_no_database_connection_held(app, client, user, icon_host):
    created = user.post("/users/me/tokens", json={"name": "ci", "scopes": ["read"]})
    assert created.status_code == 201, created.json
    with app.app_context():
        icon_host.probe = db.engine.pool.checkedout
    token_client = user.signed_in(created.json["token"])
    response = _render(token_client, f"app: {{icon: {icon_host.url('icons/pool.png')}}}\n")
    assert len(_pictures(_drawn(response))) == 1
    assert icon_host.probed == [0]


def test_an_image_link_draws_its_icons(client, user, project, icon_host):
    diagram = create_diagram(user, project["id"], title="With icon", diagram_type="d2",
                             content=f"api: {{icon: {icon_host.url('icons/api.svg')}}}\napi -> db\n")
    link = share(user, diagram["id"])
    response = client.get(f"/shared/{link['token']}/image.svg")
    svg = _drawn(response)
    assert [href.split(";")[0] for href in _pictures(svg)] == ["data:image/svg+xml"]


def test_an_image_link_missing_an_icon_draws_without_it_and_is_not_kept(client, user, project, icon_host):
    diagram = create_diagram(user, project["id"], title="Icon gone", diagram_type="d2",
                             content=f"api: {{icon: {icon_host.url('status/404/api.svg')}}}\napi -> db\n")
    link = share(user, diagram["id"])
    response = client.get(f"/shared/{link['token']}/image.svg")
    svg = _drawn(response)
    assert _pictures(svg) == [] and ">api<" in svg
    assert "ETag" not in response.headers and response.headers["Cache-Control"] == "no-store"
