"""D2 sources are read as D2's parser reads them (services/render/d2_source.py): an `@` inside a block
string (`|tex ...|`, `|css ...|`, `||md ...||`, `` |`md ...`| ``), a quoted string or a comment is text
and draws, while a real import, wherever the strings around it end, is still refused before D2 runs."""
from pathlib import Path

import pytest

from ...helpers import error_detail
from .test_render_engines import require

CORPUS = Path(__file__).resolve().parents[3].parent / "shared" / "corpus"
IMPORT_REFUSED = "which this server cannot read: it reads no files while drawing"


@pytest.fixture(autouse=True)
def local_d2(settings):
    settings(RENDER_BACKEND="auto", KROKI_URL="", RENDER_TIMEOUT=30, RATE_LIMIT_RENDER="1000/minute",
             RATE_LIMIT_RENDER_SECONDS="1000/minute")
    require("d2")


@pytest.fixture
def leak(tmp_path):
    """A D2 file an import could read: its text must never show up in an answer."""
    (tmp_path / "leak.d2").write_text('stolen: "TOPSECRET"\n')
    return tmp_path / "leak"


def _render(client, source):
    return client.post("/diagrams/render", json={"source": source, "diagram_type": "d2"})


def _drawn(response):
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    text = response.get_data(as_text=True)
    assert text.startswith("<?xml") and "<svg" in text and "TOPSECRET" not in text
    return text


LATEX = "commute: {\n  eq: |latex\n    \\begin{CD} A @>f>> B \\\\ @VgVV @VVhV \\end{CD}\n  |\n}\ncommute -> done\n"
CSS = ("sheet: |css\n  @media (prefers-color-scheme: dark) {\n    .fill-N1 { fill: #fff; }\n  }\n"
       "  @import url(theme.css);\n|\nsheet -> page\n")


def test_an_at_sign_in_a_latex_block_string_draws(client):
    assert "commute" in _drawn(_render(client, LATEX))


def test_css_at_rules_in_a_css_block_string_draw(client):
    assert "page" in _drawn(_render(client, CSS))


@pytest.mark.parametrize("block", [
    "||md\n  a | b @{path} |x\n||",  # two pipes: a single | inside is text
    "|||ts\n  const x = a || @{path}\n|||",
    "|`md\n  `code` | @{path}\n`|",
    "|md\n  ...@{path}\n|",
])
def test_block_strings_of_any_quote_keep_their_at_signs(client, leak, block):
    _drawn(_render(client, f"note: {block.format(path=leak)}\nnote -> next\n"))


@pytest.mark.parametrize("text", ['"@{path}"', "'@{path}'", '"see ${{x}} @{path}"'])
def test_an_at_sign_in_a_quoted_string_is_text(client, leak, text):
    source = f"vars: {{x: y}}\nlabelled: {text.format(path=leak)}\n"
    assert "@" in _drawn(_render(client, source))


def test_an_at_sign_in_a_comment_is_text(client, leak):
    _drawn(_render(client, f"# see @{leak}\n\"\"\"\n...@{leak}\n\"\"\"\na -> b\n"))


@pytest.mark.parametrize("source", [
    "a: |md x|\nb: @{path}\n",
    "a: ||md hello | there || ; b: @{path}\n",
    "a: |`md x`| ; ...@{path}\n",
    "a: 'it''s' ; b: @{path}\n",
    'a: "x ${{v}} y" ; b: @"{path}"\n',
    "a: x | y\nb: {{c: [d; @{path}]}}\n",
    "a: |~`md x ``| ; b: @{path}\n",  # D2 ends this one at ``| (the quote's last character, then its tail)
])
def test_an_import_after_a_string_is_still_refused(client, leak, source):
    response = _render(client, source.format(path=leak))
    detail = error_detail(response, 400)
    assert IMPORT_REFUSED in detail and "TOPSECRET" not in detail


def test_a_source_nested_too_deeply_is_refused_not_crashed(client):
    source = "a: {" * 2000 + "b" + "}" * 2000 + "\n"
    detail = error_detail(_render(client, source), 400)
    assert detail == "Syntax error: the source nests maps, arrays or substitutions more than 64 levels deep"


@pytest.mark.parametrize("case", ["docs-latex", "docs-blog-dark-mode"])
def test_the_corpus_block_string_cases_draw(client, case):
    path = CORPUS / "cases" / "d2" / f"{case}.d2"
    if not path.is_file():
        pytest.skip(f"the corpus is not at {CORPUS}")
    _drawn(_render(client, path.read_text(encoding="utf-8")))
