"""Image links: a public link's diagram (and the owner's own diagram) as SVG or PNG that READMEs and
wikis embed: current content, ETag and 304, caching headers, sanitized, never for protected, expired or
revoked links, rate limited per address."""
import pytest

from trazo.core.content.revalidations import recent_etags
from trazo.services.render import raster
from trazo.services.render.mermaid import MermaidEngine

from ...helpers import create_diagram, error_detail, save_diagram, share, validation_errors
from ..render.test_render_svg import HOSTILE
from .test_shared_public import CODE, _expire

GRAPH = "digraph G {\n  login -> dashboard\n}\n"
needs_resvg = pytest.mark.skipif(not raster.available(), reason="resvg (the resvg-cli wheel) is not installed")


@pytest.fixture
def graph(user, project):
    return create_diagram(user, project["id"], title="Graph", diagram_type="graphviz", content=GRAPH)


@pytest.fixture
def link(user, graph):
    return share(user, graph["id"])


def _image(client, link, fmt="svg", **kwargs):
    return client.get(f"/shared/{link['token']}/image.{fmt}", **kwargs)


@pytest.mark.usefixtures("local_backend")
def test_a_public_link_serves_its_diagram_as_svg_without_a_token(client, link):
    response = _image(client, link)
    assert response.status_code == 200 and response.mimetype == "image/svg+xml"
    body = response.get_data(as_text=True)
    assert "<svg" in body and "login" in body and "dashboard" in body
    assert response.headers["Cache-Control"] == "public, max-age=60"
    assert response.headers["Cross-Origin-Resource-Policy"] == "cross-origin"
    assert response.headers["Content-Security-Policy"].startswith("default-src 'none'")
    assert response.headers["ETag"].startswith('"') and len(response.headers["ETag"]) == 42


@pytest.fixture
def checked_every_time(app, monkeypatch):
    """No revalidation answered below Flask (they last REVALIDATION_SECONDS otherwise)."""
    monkeypatch.setattr(recent_etags(app), "seconds", 0)


@pytest.mark.usefixtures("local_backend", "checked_every_time")
def test_the_etag_answers_304_until_the_diagram_changes(client, user, graph, link):
    etag = _image(client, link).headers["ETag"]
    unchanged = _image(client, link, headers={"If-None-Match": etag})
    assert unchanged.status_code == 304 and unchanged.get_data() == b"" and unchanged.headers["ETag"] == etag
    assert _image(client, link, headers={"If-None-Match": "*"}).status_code == 304
    save_diagram(user, graph["id"], content=GRAPH.replace("dashboard", "settings"))
    changed = _image(client, link, headers={"If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["ETag"] != etag
    assert "settings" in changed.get_data(as_text=True)


@pytest.mark.usefixtures("local_backend")
def test_a_view_change_keeps_the_etag(client, user, graph, link):
    etag = _image(client, link).headers["ETag"]
    save_diagram(user, graph["id"], viewport_zoom=2.0, description="more words")
    assert _image(client, link, headers={"If-None-Match": etag}).status_code == 304


@needs_resvg
@pytest.mark.usefixtures("local_backend")
def test_png_is_the_svg_rasterized(client, link):
    response = _image(client, link, "png")
    assert response.status_code == 200 and response.mimetype == "image/png"
    assert response.get_data().startswith(b"\x89PNG\r\n\x1a\n")
    assert response.headers["ETag"] != _image(client, link).headers["ETag"]
    again = _image(client, link, "png", headers={"If-None-Match": response.headers["ETag"]})
    assert again.status_code == 304


def test_a_protected_link_never_serves_an_image_even_with_its_access_token(client, user, graph):
    protected = share(user, graph["id"], access_type="protected", access_code=CODE)
    token = client.post(f"/shared/{protected['token']}/verify", json={"access_code": CODE}).json["access_token"]
    for response in (_image(client, protected), _image(client, protected, query_string={"access_token": token}),
                     _image(client, protected, headers={"X-Share-Access": token})):
        assert error_detail(response, 403) == "Links protected by an access code have no image link."
    spanish = _image(client, protected, lang="es")
    assert error_detail(spanish, 403).startswith("Los enlaces protegidos")


def test_revoked_expired_and_unknown_links_serve_no_image(client, user, app, graph):
    revoked, expired = share(user, graph["id"]), share(user, graph["id"], expiration_days=5)
    assert user.delete(f"/shared-links/{revoked['id']}").status_code == 200
    _expire(app, expired)
    assert error_detail(_image(client, revoked), 404) == "Shared link not found"
    assert error_detail(_image(client, expired, "png"), 410) == "This link has expired"
    assert error_detail(client.get("/shared/" + "x" * 65 + "/image.svg"), 404) == "Shared link not found"
    assert client.get(f"/shared/{revoked['token']}/image.gif").status_code == 404


def test_a_deleted_diagram_takes_its_image_with_it(client, user, graph, link):
    assert user.delete(f"/diagrams/{graph['id']}").status_code == 200
    assert _image(client, link).status_code == 404


def test_the_image_is_sanitized(client, kroki, user, project):
    kroki.svg = HOSTILE
    diagram = create_diagram(user, project["id"], diagram_type="plantuml", content="@startuml\nA -> B\n@enduml")
    body = _image(client, share(user, diagram["id"])).get_data(as_text=True)
    assert "<script" not in body and "onload" not in body and "javascript:" not in body


def test_mermaid_takes_its_theme_and_other_languages_ignore_it(client, kroki, user, project, link):
    diagram = create_diagram(user, project["id"], diagram_type="mermaid", content="graph TD\n  A --> B")
    mermaid = share(user, diagram["id"])
    light, dark = _image(client, mermaid), _image(client, mermaid, query_string={"theme": "dark"})
    assert light.status_code == dark.status_code == 200 and light.headers["ETag"] != dark.headers["ETag"]
    sources = [request["source"] for request in kroki.requests if request["type"] == "mermaid"]
    assert sources[0] == "graph TD\n  A --> B" and sources[1].startswith('%%{init: {"theme": "dark"}}%%\n')
    validation_errors(_image(client, mermaid, query_string={"theme": "neon"}), "theme", where="query")


def test_the_legacy_flowchart_type_draws_as_mermaid(client, kroki, user, project):
    diagram = create_diagram(user, project["id"], content="graph TD\n  A --> B")  # the default type
    assert _image(client, share(user, diagram["id"])).status_code == 200
    assert kroki.requests[-1]["type"] == "mermaid"


def test_a_cache_hit_draws_nothing_again(client, kroki, user, project):
    diagram = create_diagram(user, project["id"], diagram_type="plantuml", content="@startuml\nA -> B\n@enduml")
    link = share(user, diagram["id"])
    for _ in range(3):
        assert _image(client, link).status_code == 200
    assert len(kroki.requests) == 1


@pytest.mark.usefixtures("local_backend")
def test_the_image_links_are_rate_limited_per_address_but_not_a_fresh_revalidation(client, link, settings):
    settings(RATE_LIMIT_SHARED_IMAGE="2/minute")
    first = _image(client, link)
    assert [first.status_code, _image(client, link).status_code, _image(client, link).status_code] == [200, 200, 429]
    assert _image(client, link, headers={"If-None-Match": first.headers["ETag"]}).status_code == 304


@pytest.mark.usefixtures("local_backend")
def test_the_owner_gets_the_image_of_any_diagram_with_a_token(client, user, other_user, graph):
    mine = user.get(f"/diagrams/{graph['id']}/image.svg")
    assert mine.status_code == 200 and "login" in mine.get_data(as_text=True)
    assert mine.headers["Cache-Control"] == "private, max-age=60"
    assert user.get(f"/diagrams/{graph['id']}/image.svg", headers={"If-None-Match": mine.headers["ETag"]}) \
        .status_code == 304
    assert error_detail(other_user.get(f"/diagrams/{graph['id']}/image.svg"), 404) == "Diagram not found"
    assert client.get(f"/diagrams/{graph['id']}/image.svg").status_code == 401


@pytest.mark.usefixtures("local_backend")
def test_a_revalidation_checked_moments_ago_is_answered_without_the_database(client, link, count_queries):
    etag = _image(client, link).headers["ETag"]
    with count_queries() as counted:
        answer = _image(client, link, headers={"If-None-Match": etag})
    assert answer.status_code == 304 and counted.count == 0
    assert answer.headers["Cache-Control"] == "public, max-age=60" and answer.headers["X-Request-ID"]
    assert answer.headers["X-Content-Type-Options"] == "nosniff"
    with count_queries() as counted:  # another theme, another ETag: through Flask
        assert _image(client, link, headers={"If-None-Match": '"other"'}).status_code == 200
    assert counted.count > 0


@pytest.mark.usefixtures("local_backend")
def test_revoking_or_protecting_a_link_stops_its_revalidations_at_once(client, user, link, graph):
    etag = _image(client, link).headers["ETag"]
    user.put(f"/shared-links/{link['id']}", json={"access_type": "protected", "access_code": CODE})
    assert _image(client, link, headers={"If-None-Match": etag}).status_code == 403
    user.put(f"/shared-links/{link['id']}", json={"access_type": "public"})
    etag = _image(client, link).headers["ETag"]
    assert user.delete(f"/shared-links/{link['id']}").status_code == 200
    assert _image(client, link, headers={"If-None-Match": etag}).status_code == 404


@pytest.mark.usefixtures("local_backend")
@pytest.mark.usefixtures("checked_every_time")
def test_a_revalidation_older_than_its_window_is_checked_again(client, link, count_queries):
    etag = _image(client, link).headers["ETag"]
    with count_queries() as counted:
        assert _image(client, link, headers={"If-None-Match": etag}).status_code == 304
    assert counted.count > 0


def mermaid_installed():
    return MermaidEngine({"RENDER_TIMEOUT": 30}).available()


needs_mermaid = pytest.mark.skipif(not mermaid_installed(), reason="the Mermaid engine is not installed here")


@needs_mermaid
@needs_resvg
def test_mermaid_is_drawn_here_in_both_themes_and_rasterizes(client, user, project, settings):
    settings(RENDER_BACKEND="auto", KROKI_URL="")
    diagram = create_diagram(user, project["id"], diagram_type="mermaid", content="graph TD\n  Login --> Dashboard")
    link = share(user, diagram["id"])
    light, dark = _image(client, link), _image(client, link, query_string={"theme": "dark"})
    assert light.status_code == dark.status_code == 200
    assert "Login" in light.get_data(as_text=True) and "foreignObject" not in light.get_data(as_text=True)
    assert light.get_data() != dark.get_data()
    png = _image(client, link, "png")
    assert png.status_code == 200 and png.get_data().startswith(b"\x89PNG")
