"""The engines `make install` puts on this host, drawing for real through POST /diagrams/render on the
default backend (auto, no Kroki): PlantUML, C4-PlantUML, D2, DBML and Graphviz. Each draws a valid
source, names the line of a syntax error, and is held to the render limits (CPU, memory, time, output);
D2 refuses imports and icons, which would read the host's files.

An engine missing here skips its tests with the reason; CI sets RENDER_ENGINES_REQUIRED=1, which makes a
missing engine a failure (make install is meant to have installed it)."""
import os

import pytest

from trazo.services.render import engines

from ...helpers import error_detail

LIMITS = {"RENDER_CPU_SECONDS": 10, "RENDER_MEMORY_MB": 512}
INSTALLED = engines.available(LIMITS)
TOO_LARGE = "The diagram is too large or too complex to render"


def require(name):
    """Skip the test when engine `name` is not installed here; fail it instead under RENDER_ENGINES_REQUIRED."""
    if name in INSTALLED:
        return
    if os.environ.get("RENDER_ENGINES_REQUIRED"):
        pytest.fail(f"render engine {name} is missing although RENDER_ENGINES_REQUIRED is set")
    pytest.skip(f"render engine {name} is not installed here (make install installs it)")


ENGINE_OF = {"plantuml": "plantuml", "c4plantuml": "plantuml", "d2": "d2", "dbml": "dbml-renderer",
             "graphviz": "graphviz"}
C4 = ('@startuml\n!include <C4/C4_Container>\nPerson(user, "Customer")\nSystem(app, "Storefront")\n'
      'Rel(user, app, "Orders from")\n@enduml\n')
VALID = {
    "plantuml": ("@startuml\nAlice -> Bob: login\nBob --> Alice: dashboard\n@enduml\n", "Alice"),
    "c4plantuml": (C4, "Storefront"),
    "d2": ("login -> dashboard: signs in\ndashboard: {shape: rectangle}\n", "dashboard"),
    "dbml": ("Table users {\n  id integer [pk]\n  email varchar\n}\n\nTable posts {\n  id integer [pk]\n"
             "  user_id integer [ref: > users.id]\n}\n", "users"),
    "graphviz": ("digraph G {\n  login -> dashboard\n}\n", "dashboard"),
}
# A syntax error on a known line of each (1-based, in the whole source).
BROKEN = {
    "plantuml": ("@startuml\nAlice -> Bob: login\nthis is not plantuml\n@enduml\n", 3),
    "c4plantuml": ('\n@startuml\n!include <C4/C4_Container>\nPerson(user, "Customer")\nwhat is this\n@enduml\n', 5),
    "d2": ("login -> dashboard\ndashboard -> \nreports: {\n", 2),
    "dbml": ("Table users {\n  id integer [pk]\n  email varchar\n\nTable posts {\n  id integer\n}\n", 5),
    "graphviz": ("digraph G {\n  login -> dashboard\n  -> -> broken\n}\n", 3),
}


def _render(client, source, diagram_type, **kwargs):
    return client.post("/diagrams/render", json={"source": source, "diagram_type": diagram_type}, **kwargs)


@pytest.fixture(autouse=True)
def auto_without_kroki(settings):
    """The defaults: RENDER_BACKEND=auto and no KROKI_URL, so only this host's engines draw."""
    settings(RENDER_BACKEND="auto", KROKI_URL="", RENDER_TIMEOUT=30, **LIMITS)


@pytest.mark.parametrize("kind", sorted(VALID))
def test_each_engine_draws_its_language(client, kind):
    require(ENGINE_OF[kind])
    source, label = VALID[kind]
    response = _render(client, source, kind)
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    assert response.mimetype == "image/svg+xml"
    text = response.get_data(as_text=True)
    assert "<svg" in text and label in text


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_a_syntax_error_names_its_line(client, kind):
    require(ENGINE_OF[kind])
    source, line = BROKEN[kind]
    detail = error_detail(_render(client, source, kind), 400)
    assert detail.startswith(f"Syntax error on line {line}: "), detail
    assert "at net.sourceforge" not in detail and "err:" not in detail and len(detail) < 600
    spanish = error_detail(_render(client, source, kind, lang="es"), 400)
    assert spanish.startswith(f"Error de sintaxis en la línea {line}: "), spanish


def test_plantuml_runs_in_its_sandbox(client, tmp_path):
    """The include of a file is refused (tests/api/render/test_render_plantuml_includes.py has the rest)."""
    require("plantuml")
    secret = tmp_path / "secret.puml"
    secret.write_text("Alice -> Bob: TOPSECRET\n")
    detail = error_detail(_render(client, f"@startuml\n!include {secret}\n@enduml\n", "plantuml"), 400)
    assert detail.startswith(f"Line 2 includes {secret}, which this server cannot read") and "TOPSECRET" not in detail


# -- D2: no imports, no icons from files (tests/api/render/test_render_d2_icons.py: URL icons) ------

@pytest.mark.parametrize("source", [
    "a -> b\nx: @{path}\n",
    "a -> b\n...@{path}\n",
    'a -> b\nx: {{y: @"{path}"}}\n',
])
def test_d2_refuses_imports(client, tmp_path, source):
    require("d2")
    secret = tmp_path / "leak.d2"
    secret.write_text('stolen: "TOPSECRET"\n')
    response = _render(client, source.format(path=tmp_path / "leak"), "d2")
    detail = error_detail(response, 400)
    assert detail.startswith("Line 2 imports @"), detail
    assert "which this server cannot read: it reads no files while drawing" in detail
    assert "TOPSECRET" not in detail


@pytest.mark.parametrize("source", [
    "a -> b\na.icon: /etc/passwd\n",
    "a -> b\na: {shape: image; icon: file:///etc/passwd}\n",
    'a -> b\na.icon: "logo.svg"\n',
    "a -> b\nvars: {m: {icon: /etc/passwd}}\nc: {...${m}}\n",
    "a -> b; vars: {u: /etc/passwd}\nc.icon: ${u}\n",
    "a -> b\nc: {ic\\on: /etc/passwd}\n",
    "a -> b\nc: {ic\\\n   on: /etc/passwd}\n",
    "a -> b\nc.ICON: /etc/passwd\n",  # the same field as c.icon once that exists
    "a -> b\n(a -> b)[0].icon: /etc/passwd\n",
])
def test_d2_refuses_icons_from_files(client, source):
    require("d2")
    detail = error_detail(_render(client, source, "d2"), 400)
    assert detail.startswith("Line 2 takes an icon from "), detail
    assert "it reads no files while drawing. An icon must be an http(s) URL" in detail
    assert "root:" not in detail


def test_d2_keeps_an_e_mail_address_and_plain_text(client):
    require("d2")
    response = _render(client, "support: write to help@trazo.example\nsupport -> team\n", "d2")
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    assert "help@trazo.example" in response.get_data(as_text=True)


def test_d2_draws_the_root_board_of_a_source_with_layers(client):
    require("d2")
    response = _render(client, "login -> dashboard\nlayers: {\n  detail: {reports -> export}\n}\n", "d2")
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    assert "dashboard" in response.get_data(as_text=True)


# -- limits ------------------------------------------------------------------------------------

def _d2_graph(edges, tag=""):
    return "\n".join(f"n{i} -> n{(i * 7919) % edges}" for i in range(edges)) + f"\n# {tag}\n"


def _dbml_tables(count, tag=""):
    return "\n".join(f"Table t{i} {{\n  id int [pk]\n  ref int [ref: > t{(i * 7) % count}.id]\n}}"
                     for i in range(count)) + f"\n// {tag}\n"


# Type -> (engine, a source of it far past the limits, given a tag that keeps it out of the render cache).
HUGE = {"d2": ("d2", lambda tag: _d2_graph(8000, tag)), "dbml": ("dbml-renderer", lambda tag: _dbml_tables(300, tag))}


@pytest.mark.parametrize("kind", sorted(HUGE))
def test_a_huge_source_is_stopped_at_the_cpu_limit(client, settings, kind):
    engine, huge = HUGE[kind]
    require(engine)
    settings(RENDER_CPU_SECONDS=1, RENDER_MAX_SOURCE_BYTES=1_000_000)
    assert error_detail(_render(client, huge("cpu"), kind), 400) == TOO_LARGE


@pytest.mark.parametrize("kind", sorted(HUGE))
def test_an_engine_is_held_to_the_memory_limit(client, settings, kind):
    engine, huge = HUGE[kind]
    require(engine)
    settings(RENDER_MEMORY_MB=48, RENDER_MAX_SOURCE_BYTES=1_000_000)
    assert error_detail(_render(client, huge("memory"), kind, lang="es"), 400) == (
        "El diagrama es demasiado grande o complejo para renderizarlo")


def _long_sequence(tag):
    """A sequence far past a second of CPU on any machine (the render settings must admit its 400 KB)."""
    return ("@startuml\n" + "\n".join(f"p{i % 50} -> p{(i * 7) % 50}: m{i}" for i in range(20000))
            + f"\n' {tag}\n@enduml\n")


def test_a_long_plantuml_sequence_is_stopped_at_the_cpu_limit(client, settings):
    require("plantuml")
    settings(RENDER_CPU_SECONDS=1, RENDER_MAX_SOURCE_BYTES=1_000_000)
    assert error_detail(_render(client, _long_sequence("cpu"), "plantuml"), 400) == TOO_LARGE


def test_plantuml_past_the_render_timeout_is_a_504(client, settings):
    require("plantuml")
    settings(RENDER_TIMEOUT=1, RENDER_MAX_SOURCE_BYTES=1_000_000)
    detail = error_detail(_render(client, _long_sequence("timeout"), "plantuml"), 504)
    assert detail == "The rendering service did not answer in time"


@pytest.mark.parametrize("kind", sorted(VALID))
def test_every_engine_s_output_is_capped(client, settings, kind):
    require(ENGINE_OF[kind])
    settings(RENDER_MAX_SVG_BYTES=500)
    detail = error_detail(_render(client, VALID[kind][0] + ("\n" if kind != "dbml" else "\n\n"), kind), 502)
    assert detail.startswith("The rendering service failed: output larger than 500 bytes")
