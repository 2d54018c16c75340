"""POST /diagrams/render through both backends: the local one (real Graphviz) and Kroki (a
Kroki-protocol server on 127.0.0.1 that draws with Graphviz)."""
import shutil

import pytest

from trazo.services.render import cache as render_cache

from ...helpers import ApiClient, error_detail, validation_errors

GRAPH = "digraph G {\n  login -> dashboard\n}\n"
BROKEN = "digraph G {\n  login -> dashboard\n  -> -> broken\n}\n"


def _render(client, source=GRAPH, diagram_type="graphviz", **kwargs):
    return client.post("/diagrams/render", json={"source": source, "diagram_type": diagram_type}, **kwargs)


def _assert_svg(response):
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    assert response.mimetype == "image/svg+xml"
    text = response.get_data(as_text=True)
    assert "<svg" in text and "login" in text and "dashboard" in text
    return text


# -- local backend ---------------------------------------------------------------------

@pytest.mark.usefixtures("local_backend")
def test_local_backend_renders_graphviz_without_a_token(client):
    _assert_svg(_render(client))
    _assert_svg(_render(client, diagram_type="dot"))
    _assert_svg(_render(client, diagram_type=" GraphViz "))


@pytest.mark.usefixtures("local_backend")
def test_local_syntax_error_names_the_line(client):
    assert error_detail(_render(client, BROKEN), 400).startswith("Syntax error on line 3:")
    assert error_detail(_render(client, BROKEN, lang="es"), 400).startswith("Error de sintaxis en la línea 3:")


@pytest.mark.usefixtures("local_backend")
def test_local_backend_lists_what_it_can_render(client):
    detail = error_detail(_render(client, "x", "visio"), 400)
    assert detail.startswith("Unsupported diagram type 'visio'. Supported types: ")
    assert "graphviz" in detail.split("Supported types: ")[1].split(", ")
    assert "Tipos soportados: " in error_detail(_render(client, "x", "visio", lang="es"), 400)


@pytest.mark.usefixtures("local_backend")
def test_local_backend_cannot_read_host_files(client):
    response = _render(client, 'digraph { a [image="/etc/passwd", label="a"] }')
    assert response.status_code == 200
    assert "/etc/passwd" not in response.get_data(as_text=True)


def _supported(client):
    detail = error_detail(_render(client, "x", "visio"), 400)
    return detail.split("Supported types: ")[1].split(", ")


def test_local_plantuml_appears_with_its_jar_and_a_broken_one_is_a_502(client, settings, tmp_path):
    settings(RENDER_BACKEND="local", RENDER_TIMEOUT=20, PLANTUML_JAR=str(tmp_path / "missing.jar"))
    assert "plantuml" not in _supported(client)
    if not shutil.which("java"):
        pytest.skip("needs Java")
    broken = tmp_path / "plantuml.jar"
    broken.write_bytes(b"not a jar")
    settings(PLANTUML_JAR=str(broken))
    assert {"plantuml", "c4plantuml", "graphviz"} <= set(_supported(client))
    detail = error_detail(_render(client, "@startuml\nA -> B\n@enduml", "uml"), 502)
    assert detail.startswith("The rendering service failed")


def test_local_timeout_is_a_504(client, settings):
    # A graph big enough that laying it out takes far longer than the 1 s allowed.
    edges = "\n".join(f"n{i} -> n{(i * 7919) % 3000}" for i in range(3000))
    settings(RENDER_BACKEND="local", RENDER_TIMEOUT=1, RENDER_MAX_GRAPH_EDGES=5000)
    response = _render(client, f"digraph {{\n{edges}\n}}")
    assert error_detail(response, 504) == "The rendering service did not answer in time"


def test_local_output_is_capped(client, settings):
    settings(RENDER_BACKEND="local", RENDER_TIMEOUT=10, RENDER_MAX_SVG_BYTES=500)
    assert error_detail(_render(client), 502).startswith("The rendering service failed")


# -- Kroki backend ---------------------------------------------------------------------

def test_kroki_backend_speaks_the_kroki_protocol(client, kroki):
    _assert_svg(_render(client, diagram_type="dot"))
    assert kroki.requests == [{"type": "graphviz", "source": GRAPH, "content_type": "text/plain; charset=utf-8"}]


def test_kroki_supports_every_language_kroki_draws(client, kroki):
    detail = error_detail(_render(client, "x", "no-such-language"), 400)
    supported = detail.split("Supported types: ")[1].split(", ")
    assert {"plantuml", "d2", "dbml", "graphviz", "c4plantuml", "mermaid", "vega", "wireviz"} <= set(supported)
    assert kroki.requests == []


def test_kroki_syntax_error_is_a_400_with_the_line(client, kroki):
    detail = error_detail(_render(client, BROKEN), 400)
    assert detail.startswith("Syntax error on line 3: ")
    assert "io.kroki" not in detail and "Error 400" not in detail


def test_kroki_failure_is_a_502(client, kroki):
    kroki.mode = "down"
    assert error_detail(_render(client), 502).startswith("The rendering service failed")
    assert error_detail(_render(client, lang="es"), 502).startswith("El servicio de renderizado falló")


def test_kroki_output_is_capped(client, kroki, settings):
    settings(RENDER_MAX_SVG_BYTES=500)
    error_detail(_render(client), 502)
    assert len(kroki.requests) == 1


def test_unreachable_kroki_is_a_502(client, settings, kroki_server):
    settings(RENDER_BACKEND="kroki", KROKI_URL="http://127.0.0.1:9", RENDER_TIMEOUT=2)
    error_detail(_render(client), 502)


def test_slow_kroki_is_a_504(client, kroki, settings):
    settings(RENDER_TIMEOUT=1)
    kroki.mode, kroki.slow_seconds = "slow", 2
    assert error_detail(_render(client, lang="es"), 504) == "El servicio de renderizado no respondió a tiempo"


def test_identical_renders_come_from_the_cache(client, kroki):
    first = _assert_svg(_render(client))
    assert _assert_svg(_render(client)) == first
    assert len(kroki.requests) == 1
    _assert_svg(_render(client, GRAPH + "\n"))
    assert len(kroki.requests) == 2


def test_failed_renders_are_not_cached(client, kroki):
    kroki.mode = "down"
    error_detail(_render(client), 502)
    kroki.mode = "ok"
    _assert_svg(_render(client))
    assert len(kroki.requests) == 2


# -- input, limits, configuration -------------------------------------------------------

@pytest.mark.usefixtures("local_backend")
def test_render_validates_the_body(client):
    validation_errors(client.post("/diagrams/render", json={"diagram_type": "graphviz"}), "source")
    validation_errors(_render(client, source="   "), "source")
    validation_errors(_render(client, source="a" * 100_001), "source")
    validation_errors(client.post("/diagrams/render", json={"source": GRAPH}), "diagram_type")
    validation_errors(client.post("/diagrams/render", data="not json", content_type="application/json"))


@pytest.mark.usefixtures("local_backend")
def test_render_is_limited_per_address(client, settings, app):
    settings(RATE_LIMIT_RENDER="3/minute")
    for _ in range(3):
        assert _render(client, "digraph { a }").status_code == 200
    refused = _render(client, "digraph { a }")
    assert error_detail(refused, 429).startswith("Too many requests")
    assert 1 <= int(refused.headers["Retry-After"]) <= 61
    assert _render(ApiClient(app.test_client(), "10.77.0.1"), "digraph { a }").status_code == 200


def test_unknown_backend_is_a_503(client, settings):
    settings(RENDER_BACKEND="carrier-pigeon")
    assert error_detail(_render(client), 503) == "Diagram rendering is not configured"


def test_renders_are_shared_through_redis(client, kroki, app):
    if not app.config.get("REDIS_URL"):
        pytest.skip("needs TEST_REDIS_URL")
    first = _assert_svg(_render(client))
    render_cache._memory.clear()  # another worker: nothing in its own memory
    assert _assert_svg(_render(client)) == first
    assert len(kroki.requests) == 1
