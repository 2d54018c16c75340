"""Mermaid drawn on this host (RENDER_BACKEND=local: docs/mermaid-engine.md) through POST /diagrams/render:
Mermaid's external ZenUML diagram, registered in the engine's pages from the pinned npm package, and the
ELK layout Mermaid 12 bundles. Skipped where the Mermaid engine is not installed."""
import xml.etree.ElementTree as ElementTree

import pytest

from ..shares.test_image_links import needs_mermaid

pytestmark = needs_mermaid

# Three ZenUML diagrams of Mermaid's docs (the corpus's mermaid/zenuml-00, -07 and -08: issue 25), with
# the participants each must draw and a message of it.
ZENUML = {
    "zenuml-00": ("zenuml\n    title Demo\n    Alice->John: Hello John, how are you?\n    John->Alice: Great!\n"
                  "    Alice->John: See you later!\n", ["Alice", "John"], "Hello John, how are you?"),
    "zenuml-07": ("zenuml\n    // 1. assign a variable from a sync message.\n    a = A.SyncMessage()\n\n"
                  "    // 1.1. optionally give the variable a type\n    SomeType a = A.SyncMessage()\n\n"
                  "    // 2. use return keyword\n    A.SyncMessage() {\n    return result\n    }\n\n"
                  "    // 3. use @return or @reply annotator on an async message\n    @return\n    A->B: result\n",
                  ["A", "B"], "SyncMessage()"),
    "zenuml-08": ("zenuml\n    title Reply message\n    Client->A.method() {\n      B.method() {\n"
                  "        if(condition) {\n          return x1\n          // return early\n          @return\n"
                  "          A->Client: x11\n        }\n      }\n      return x2\n    }\n",
                  ["Client", "A", "B"], "method()"),
}
FLOWCHART = ("flowchart TD\n  A[Start] --> B{Is it working?}\n  B -->|Yes| C[Ship it]\n  C --> D[Rethink]\n"
             "  D --> B\n  B ---->|No| E[Debug]\n")
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(autouse=True)
def drawn_here(settings):
    settings(RENDER_BACKEND="local", KROKI_URL="", RENDER_TIMEOUT=30, RATE_LIMIT_RENDER="1000/minute",
             RATE_LIMIT_RENDER_SECONDS="10000/minute", RENDER_SLOTS_PER_CLIENT=4)


def _render(client, source):
    return client.post("/diagrams/render", json={"source": source, "diagram_type": "mermaid"})


def _texts(svg, css_class=None):
    """The text runs of `svg` (each <text> element's words), only those of `css_class` when given."""
    root = ElementTree.fromstring(svg)
    return [" ".join("".join(text.itertext()).split()) for text in root.iter(SVG + "text")
            if css_class is None or css_class in (text.get("class") or "").split()]


@pytest.mark.parametrize("case", sorted(ZENUML))
def test_a_zenuml_diagram_of_the_corpus_draws_its_participants_as_svg_text(client, case):
    source, participants, message = ZENUML[case]
    answer = _render(client, source)
    assert answer.status_code == 200, answer.get_data(as_text=True)
    assert answer.mimetype == "image/svg+xml"
    svg = answer.get_data(as_text=True)
    assert "<foreignObject" not in svg  # ZenUML draws SVG text: the PNG of the link shows it too
    assert 'aria-roledescription="zenuml"' in svg
    assert _texts(svg, "participant-label") == participants
    assert message in _texts(svg)


def test_a_zenuml_diagram_draws_what_it_is_told_as_text_and_fetches_nothing(client):
    source = ("zenuml\n  // ![x](http://127.0.0.1:9/md.png) <img src='http://127.0.0.1:9/c.png'>\n"
              "  \"<img src='http://127.0.0.1:9/p.png'>\"->B: <script>alert(1)</script>\n")
    answer = _render(client, source)
    assert answer.status_code == 200
    svg = answer.get_data(as_text=True)
    assert "<img" not in svg and "<script" not in svg and "<image" not in svg
    assert "<img src='http://127.0.0.1:9/p.png'>" in _texts(svg, "participant-label")


@pytest.mark.parametrize("layout", [
    "---\nconfig:\n  layout: elk\n---\n",
    '%%{init: {"layout": "elk"}}%%\n',
], ids=["front-matter", "init-directive"])
def test_an_elk_flowchart_draws_laid_out_by_elk(client, layout):
    elk, dagre = _render(client, layout + FLOWCHART), _render(client, layout.replace("elk", "dagre") + FLOWCHART)
    assert elk.status_code == dagre.status_code == 200
    assert "Ship it" in _texts(elk.get_data(as_text=True))
    assert elk.get_data() != dagre.get_data()  # another layout: the option is read, not ignored
    assert elk.get_data() == _render(client, FLOWCHART).get_data()  # ELK is Mermaid 12's default layout


@pytest.mark.parametrize("algorithm", ["elk.stress", "elk.mrtree", "elk.force", "elk.box", "elk.rectpacking",
                                       "elk.sporeOverlap"])
def test_the_other_elk_algorithms_draw(client, algorithm):
    answer = _render(client, f"---\nconfig:\n  layout: {algorithm}\n---\n" + FLOWCHART)
    assert answer.status_code == 200
    assert "Ship it" in _texts(answer.get_data(as_text=True))
