"""Which diagram types POST /diagrams/render draws on each backend: through Kroki every language Kroki
serves (the browser client may ask for any of the 26 it knows), on the local backend only the engines
this host runs, with the languages whose engines could read files or the network refused by name."""
import pytest

from ...helpers import error_detail, validation_errors

# The render types the browser client knows.
CLIENT_TYPES = (
    "actdiag", "blockdiag", "bpmn", "bytefield", "c4plantuml", "d2", "dbml", "ditaa", "erd", "excalidraw",
    "graphviz", "nomnoml", "nwdiag", "packetdiag", "pikchr", "plantuml", "rackdiag", "seqdiag", "structurizr",
    "svgbob", "symbolator", "umlet", "vega", "vegalite", "wavedrom", "wireviz",
)
# One small, valid source for each type that used to be refused.
SOURCES = {
    "vega": '{\n  "$schema": "https://vega.github.io/schema/vega/v5.json",\n  "width": 100, "height": 50,\n'
            '  "marks": [{"type": "rect", "encode": {"enter": {"width": {"value": 40}}}}]\n}\n',
    "vegalite": '{\n  "data": {"values": [{"a": "login", "b": 3}]},\n  "mark": "bar",\n'
                '  "encoding": {"x": {"field": "a"}, "y": {"field": "b", "type": "quantitative"}}\n}\n',
    "excalidraw": '{"type": "excalidraw", "version": 2, "elements": [{"type": "rectangle", "id": "a", '
                  '"x": 0, "y": 0, "width": 80, "height": 40}], "appState": {}}',
    "structurizr": 'workspace {\n  model {\n    user = person "User"\n    app = softwareSystem "App"\n'
                   '    user -> app "Logs in"\n  }\n  views {\n    systemContext app {\n      include *\n'
                   '    }\n  }\n}\n',
    "symbolator": "library ieee;\nuse ieee.std_logic_1164.all;\n\nentity counter is\n"
                  "  port (clk : in std_logic; count : out std_logic_vector(7 downto 0));\nend entity;\n",
    "umlet": '<diagram program="umlet" version="15.1"><element><id>UMLClass</id><coordinates><x>10</x>'
             '<y>10</y><w>100</w><h>30</h></coordinates><panel_attributes>Login</panel_attributes>'
             '</element></diagram>',
    "wireviz": "connectors:\n  X1:\n    type: Molex KK 254\n    pincount: 2\n  X2:\n    pincount: 2\n"
               "cables:\n  W1:\n    wirecount: 2\nconnections:\n  -\n    - X1: [1-2]\n    - W1: [1-2]\n"
               "    - X2: [1-2]\n",
}
FORMERLY_REFUSED = tuple(SOURCES)
READS_FILES_OR_NETWORK = ("vega", "vegalite", "excalidraw", "structurizr", "umlet", "wireviz")
HOSTILE = ('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script>'
           '<image href="http://evil.example/track.png"/><text x="5" y="20">chart</text></svg>')


def _render(client, source, diagram_type, **kwargs):
    return client.post("/diagrams/render", json={"source": source, "diagram_type": diagram_type}, **kwargs)


def _supported(client):
    detail = error_detail(_render(client, "graph TD\n A-->B", "no-such-language"), 400)
    assert detail.startswith("Unsupported diagram type 'no-such-language'. Supported types: ")
    return detail.split("Supported types: ")[1].split(", ")


# -- through Kroki ---------------------------------------------------------------------

@pytest.mark.parametrize("kind", FORMERLY_REFUSED)
def test_each_formerly_refused_type_renders_through_kroki(client, kroki, kind):
    response = _render(client, SOURCES[kind], kind)
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    assert response.mimetype == "image/svg+xml"
    assert f"{kind}: " in response.get_data(as_text=True)
    assert kroki.requests == [{"type": kind, "source": SOURCES[kind], "content_type": "text/plain; charset=utf-8"}]


def test_a_type_name_is_matched_without_case_or_surrounding_spaces(client, kroki):
    response = _render(client, SOURCES["vegalite"], " VegaLite ")
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    assert [request["type"] for request in kroki.requests] == ["vegalite"]


def test_kroki_accepts_every_type_the_browser_client_knows(client, kroki):
    supported = _supported(client)
    assert set(CLIENT_TYPES) <= set(supported)
    assert supported == sorted(supported)
    assert kroki.requests == []


def test_what_kroki_draws_for_those_types_is_sanitized(client, kroki):
    kroki.svg = HOSTILE
    for kind in FORMERLY_REFUSED:
        response = _render(client, SOURCES[kind], kind)
        assert response.status_code == 200, (kind, response.get_data(as_text=True)[:300])
        text = response.get_data(as_text=True)
        assert "chart" in text
        assert "<script" not in text and "onload" not in text and "evil.example" not in text
    assert len(kroki.requests) == len(FORMERLY_REFUSED)


def test_a_vega_spec_kroki_cannot_parse_is_a_400_naming_the_line(client, kroki):
    detail = error_detail(_render(client, '{\n  "marks": [,]\n}', "vega"), 400)
    assert detail.startswith("Syntax error on line 2: SyntaxError: Expecting value")
    assert "io.kroki" not in detail and "Error 400" not in detail


# -- on the local backend ------------------------------------------------------------------

@pytest.mark.usefixtures("local_backend")
@pytest.mark.parametrize("kind", READS_FILES_OR_NETWORK)
def test_the_local_backend_refuses_types_whose_engine_reads_files_or_the_network(client, kind):
    detail = error_detail(_render(client, SOURCES[kind], kind), 400)
    assert detail.startswith(f"'{kind}' diagrams are rendered only through Kroki: their engine can read files "
                             "or reach the network, so this server does not run it. Supported types: ")
    assert "graphviz" in detail.split("Supported types: ")[1].split(", ")
    spanish = error_detail(_render(client, SOURCES[kind], kind, lang="es"), 400)
    assert spanish.startswith(f"Los diagramas '{kind}' solo se renderizan a través de Kroki: su motor puede leer "
                              "archivos o acceder a la red, así que este servidor no lo ejecuta. Tipos soportados: ")


@pytest.mark.usefixtures("local_backend")
def test_the_local_backend_refuses_symbolator_for_want_of_an_engine(client):
    detail = error_detail(_render(client, SOURCES["symbolator"], " Symbolator "), 400)
    assert detail.startswith("'symbolator' diagrams are rendered only through Kroki: this server has no engine "
                             "of its own for them. Supported types: ")
    spanish = error_detail(_render(client, SOURCES["symbolator"], "symbolator", lang="es"), 400)
    assert spanish.startswith("Los diagramas 'symbolator' solo se renderizan a través de Kroki: este servidor no "
                              "tiene un motor propio para ellos. Tipos soportados: ")


@pytest.mark.usefixtures("local_backend")
def test_a_refused_type_is_refused_before_its_size_is_weighed(client, settings):
    settings(RENDER_MAX_SOURCE_BYTES=10)
    detail = error_detail(_render(client, SOURCES["vega"], "vega"), 400)
    assert detail.startswith("'vega' diagrams are rendered only through Kroki")


# -- unknown types ------------------------------------------------------------------------

def test_an_unknown_type_is_still_refused_listing_the_supported_ones(client, kroki):
    detail = error_detail(_render(client, "graph TD\n A-->B", "flowchart", lang="es"), 400)
    assert detail.startswith("Tipo de diagrama no soportado: 'flowchart'. Tipos soportados: ")
    assert "vega" in detail.split("Tipos soportados: ")[1].split(", ")
    assert kroki.requests == []


@pytest.mark.usefixtures("local_backend")
def test_an_unknown_type_on_the_local_backend_still_lists_what_it_draws(client):
    detail = error_detail(_render(client, "x", "no-such-language"), 400)
    assert detail.startswith("Unsupported diagram type 'no-such-language'. Supported types: ")
    assert "vega" not in detail


def test_a_missing_empty_or_overlong_type_is_still_a_422(client, kroki):
    validation_errors(client.post("/diagrams/render", json={"source": "digraph { a }"}), "diagram_type")
    validation_errors(_render(client, "digraph { a }", ""), "diagram_type")
    validation_errors(_render(client, "digraph { a }", "v" * 51), "diagram_type")
    validation_errors(_render(client, "digraph { a }", ["vega"]), "diagram_type")
    assert kroki.requests == []
