"""The Mermaid engine (services/render/mermaid.py): official Mermaid in headless Chromium, one warm
engine for the whole module. Skipped with the reason where the engine is not installed (no Node, no
Chromium, or no `npm ci --prefix engines/mermaid`)."""
import contextlib
import os
import re
import signal
import threading
import time
from pathlib import Path

import pytest

from trazo.services.render import fair, mermaid
from trazo.services.render.errors import (
    DiagramSyntaxError,
    RendererBusy,
    RendererFailed,
    RendererLimitExceeded,
    RendererTimeout,
)
from trazo.services.render.sanitize import clean_svg

FIXTURES = sorted((Path(__file__).parents[2] / "fixtures" / "mermaid").glob("*.mmd"))
CONFIG = {"RENDER_TIMEOUT": 20, "RENDER_MAX_SVG_BYTES": 2 * 1024 * 1024, "RENDER_MAX_SOURCE_BYTES": 50_000,
          "RENDER_MAX_GRAPH_EDGES": 300, "MERMAID_PAGES": 2}
# Each fixture's diagram, and a label it must draw as SVG text.
LABELS = {"01-flowchart": "Render cache", "02-sequence": "Mermaid engine", "03-class": "MermaidEngine",
          "04-state": "Rendering", "05-er": "REVISION", "06-gantt": "Benchmark candidates", "07-pie": "PlantUML",
          "08-journey": "Copy the image link", "09-mindmap": "Local engines", "10-gitgraph": "engine"}
# Mermaid lays out a graph this size for several seconds on this machine (each node links to 4 others).
SLOW = "flowchart TD\n" + "\n".join(f"  n{i} --> n{(i * 7 + 3) % 250}" for i in range(290))


@pytest.fixture(scope="module")
def engine():
    engine = mermaid.MermaidEngine(CONFIG)
    if not engine.available():
        pytest.skip("the Mermaid engine is not installed here: missing " + ", ".join(engine.missing()))
    yield engine
    engine.stop()


def test_fixtures_are_the_ten_kinds():
    assert [path.stem for path in FIXTURES] == list(LABELS)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda path: path.stem)
def test_draws_each_kind_as_svg_text(engine, path):
    svg = engine.render_svg(path.read_text())
    assert svg.lstrip().startswith("<svg")
    assert "<foreignObject" not in svg  # labels are SVG text: a rasterizer draws them as a browser does
    drawn = re.sub(r"<[^>]*>", " ", svg).split()  # Mermaid draws each word of a label as a tspan
    assert all(word in drawn for word in LABELS[path.stem].split())
    assert "<svg" in clean_svg(svg)


def test_version_and_themes(engine):
    assert engine.version().split(".")[0].isdigit()
    source = "flowchart LR\n  a --> b"
    default, dark = engine.render_svg(source), engine.render_svg(source, theme="dark")
    assert default != dark
    assert engine.render_svg(source, theme="light") == default
    with pytest.raises(ValueError):
        engine.render_svg(source, theme="neon")


def test_same_source_same_svg(engine):
    source = FIXTURES[0].read_text()
    assert engine.render_svg(source) == engine.render_svg(source)


@pytest.mark.parametrize(("source", "line"), [
    ("flowchart TD\n  a --> b\n  b --> c[x\n  c --> d\n", 3),
    ("sequenceDiagram\n  A->>B: hi\n  A->>B hello\n", 3),
    # front matter, a directive and a comment are dropped before Mermaid counts; the line is the author's
    ("---\ntitle: t\n---\n%%{init: {\"theme\": \"dark\"}}%%\n"
     "sequenceDiagram\n  %% note\n  A->>B: hi\n  A->>B hello\n", 8),
    ("pie\n  \"a\" : x\n", 2),
], ids=["flowchart", "sequence", "front-matter", "pie"])
def test_syntax_error_names_the_line(engine, source, line):
    with pytest.raises(DiagramSyntaxError) as raised:
        engine.render_svg(source)
    assert raised.value.line == line
    assert f"line {line}" in raised.value.message
    assert "\n" not in raised.value.message and "^" not in raised.value.message


def test_unknown_diagram_is_a_syntax_error_without_line(engine):
    with pytest.raises(DiagramSyntaxError) as raised:
        engine.render_svg("no diagram here\n")
    assert raised.value.line is None
    assert "No diagram type detected" in raised.value.message


def test_slow_render_times_out_and_the_engine_goes_on(engine):
    began = time.monotonic()
    with pytest.raises(RendererTimeout):
        engine.render_svg(SLOW, timeout=0.5)
    assert time.monotonic() - began < 0.5 + mermaid.ANSWER_GRACE
    assert "<svg" in engine.render_svg("flowchart LR\n  a --> b")


def test_limits(engine, monkeypatch):
    with pytest.raises(RendererLimitExceeded):  # larger than RENDER_MAX_SOURCE_BYTES: not even sent
        engine.render_svg("flowchart TD\n" + "  a --> b\n" * 6000)
    chain = "flowchart LR\n" + "\n".join(f"  n{i} --> n{i + 1}" for i in range(CONFIG["RENDER_MAX_GRAPH_EDGES"] + 1))
    with pytest.raises(RendererLimitExceeded):  # more edges than RENDER_MAX_GRAPH_EDGES (Mermaid's maxEdges)
        engine.render_svg(chain)
    monkeypatch.setattr(engine, "max_bytes", 1000)
    with pytest.raises(RendererLimitExceeded):  # an SVG larger than RENDER_MAX_SVG_BYTES
        engine.render_svg(FIXTURES[0].read_text())


def test_concurrency_is_bounded_by_the_pages(engine):
    engine.peak_in_flight = 0
    sources = [path.read_text() for path in FIXTURES[:6]]
    results, errors = [], []

    def draw(source):
        try:
            results.append(engine.render_svg(source))
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
    threads = [threading.Thread(target=draw, args=(source,)) for source in sources]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors and len(results) == 6
    assert engine.peak_in_flight == CONFIG["MERMAID_PAGES"]
    stats = engine.stats()  # the server's pool: pages ready, drawing, or being made
    assert stats["idle"] + stats["busy"] + stats["building"] <= CONFIG["MERMAID_PAGES"]


def test_busy_when_every_slot_stays_taken(engine):
    with contextlib.ExitStack() as held:
        for number in range(CONFIG["MERMAID_PAGES"]):  # each page held by another client
            with fair.for_client((f"ip:10.4.0.{number}",)):
                held.enter_context(engine._slots.hold(1))
        with pytest.raises(RendererBusy) as busy:
            engine.render_svg("flowchart LR\n  a --> b", timeout=0.3)
    assert not busy.value.own_share


def test_a_diagram_reaches_nothing_on_the_network(engine, httpserver):
    httpserver.expect_request("/").respond_with_data("x")  # anything it would be asked for
    url = httpserver.url_for("/")
    sources = [
        f'flowchart TD\n  A@{{ img: "{url}shape.png", label: "pic", pos: "t", w: 60, h: 60 }}\n  A --> B',
        f"flowchart TD\n  A[\"<img src='{url}label.png'> x\"] --> B",
        f'flowchart TD\n  A --> B\n  click A href "{url}click" _blank',
        '%%{init: {"themeCSS": "@import url(' + url + 'import.css); .node rect { fill: url(' + url + 'f.png) }"}}%%\n'
        "flowchart TD\n  A --> B",
        '%%{init: {"fontFamily": "x; } @import url(' + url + 'font.css); .a {"}}%%\nflowchart TD\n  A --> B',
        f'flowchart TD\n  A["`![x]({url}md.png) **b**`"] --> B',
        f"sequenceDiagram\n  participant A\n  link A: Docs @ {url}link\n  A->>A: hi",
    ]
    for source in sources:
        try:
            engine.render_svg(source)
        except DiagramSyntaxError:
            pass  # refusing the source is as good as drawing it without the resource
    time.sleep(0.3)
    assert httpserver.log == []


def test_zenuml_and_elk_draw_from_the_engine_s_own_files_and_reach_nothing(engine, httpserver):
    httpserver.expect_request("/").respond_with_data("x")
    url = httpserver.url_for("/")
    refused = engine.stats()["blocked"]
    # ZenUML's chunks are served to the page from memory when it first draws one: nothing is refused.
    assert "Alice" in engine.render_svg("zenuml\n  title Demo\n  Alice->John: Hello John\n  John->Alice: hi")
    assert "Start" in engine.render_svg("---\nconfig:\n  layout: elk\n---\nflowchart TD\n  Start --> Stop")
    assert engine.stats()["blocked"] == refused
    sources = [
        f"zenuml\n  // ![x]({url}md.png) [a]({url}link) <img src='{url}c.png'>\n"
        f"  \"<img src='{url}p.png'>\"->B: <img src='{url}m.png'>",
        f'---\nconfig:\n  layout: elk\n---\nflowchart TD\n  A@{{ img: "{url}shape.png", label: "pic", w: 60, h: 60 }}'
        "\n  A --> B",
    ]
    assert "<svg" in engine.render_svg(sources[0])  # ZenUML draws it all as text
    with pytest.raises(DiagramSyntaxError):  # the image is refused to the page: it cannot be decoded
        engine.render_svg(sources[1])
    time.sleep(0.3)
    assert httpserver.log == []


def test_a_dead_engine_starts_again(engine):
    engine.render_svg("flowchart LR\n  a --> b")
    os.killpg(engine._server.process.pid, signal.SIGKILL)
    engine._server.process.wait(5)
    assert "<svg" in engine.render_svg("flowchart LR\n  a --> b")


def test_one_shared_engine_per_process(monkeypatch):
    monkeypatch.setattr(mermaid, "_shared", None)
    first = mermaid.shared_engine(CONFIG)
    assert mermaid.shared_engine({"RENDER_TIMEOUT": 1}) is first
    monkeypatch.setattr(mermaid, "_shared", (-1, first))  # as a forked worker sees its parent's
    assert mermaid.shared_engine(CONFIG) is not first


def test_an_engine_that_is_not_installed_says_what_it_lacks(tmp_path):
    engine = mermaid.MermaidEngine({"RENDER_TIMEOUT": 5, "MERMAID_ENGINE_DIR": str(tmp_path)})
    assert not engine.available()
    assert any("npm ci" in lack for lack in engine.missing())
    assert engine.version() is None
    with pytest.raises(RendererFailed, match="not installed"):
        engine.render_svg("flowchart LR\n  a --> b")


# A page that burns CPU (SLOW lays out for seconds) or memory (2,000 packet fields: a 7.6 MB SVG, about
# 430 MB resident in the page's renderer process, against about 160 MB idle).
MEMORY_HOG = "packet-beta\n" + "\n".join(f'{i * 100}-{i * 100 + 99}: "f{i}"' for i in range(2000))


@pytest.fixture
def bounded():
    """An engine whose pages may use 1 s of CPU per render and 320 MiB of memory."""
    engine = mermaid.MermaidEngine({**CONFIG, "RENDER_MAX_SVG_BYTES": 20 * 1024 * 1024, "RENDER_CPU_SECONDS": 1,
                                    "RENDER_MEMORY_MB": 320, "RENDER_MAX_SOURCE_BYTES": 100_000})
    if not engine.available():
        pytest.skip("the Mermaid engine is not installed here: missing " + ", ".join(engine.missing()))
    yield engine
    engine.stop()


@pytest.mark.parametrize("source", [SLOW, MEMORY_HOG], ids=["cpu", "memory"])
def test_a_page_past_its_cpu_or_memory_bound_is_stopped_and_the_engine_goes_on(bounded, source):
    assert "<svg" in bounded.render_svg("flowchart LR\n  a --> b")
    with pytest.raises(RendererLimitExceeded):  # drawn in full before (3 s of CPU; 430 MB)
        bounded.render_svg(source, timeout=20)
    assert bounded.stats()["stopped"] == 1  # the watchdog killed the page's renderer process
    assert "<svg" in bounded.render_svg("flowchart LR\n  a --> b")


def test_one_client_holds_one_page_and_is_refused_a_second_at_once(engine):
    answers, started = [], threading.Event()

    def slow():
        started.set()
        with fair.for_client(("ip:10.5.0.1",)):
            try:
                answers.append(engine.render_svg(SLOW, timeout=10))
            except RendererTimeout as exc:
                answers.append(exc)
    holder = threading.Thread(target=slow)
    holder.start()
    started.wait()
    while engine._slots.in_use("ip:10.5.0.1") == 0:
        time.sleep(0.01)
    with fair.for_client(("ip:10.5.0.1",)), pytest.raises(RendererBusy) as refused:
        engine.render_svg("flowchart LR\n  a --> b")
    assert refused.value.own_share and refused.value.retry_after >= 1
    with fair.for_client(("ip:10.5.0.2",)):  # another client draws on the other page meanwhile
        assert "<svg" in engine.render_svg("flowchart LR\n  c --> d")
    assert not answers  # the first client's render was still running
    holder.join(30)
