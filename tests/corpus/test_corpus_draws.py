"""The real diagrams corpus (../shared/corpus, issue 25; docs/rendering.md, "Corpus"), each case drawn once
through POST /diagrams/render as a user sends it, on this host's engines with the production limits.

Every case draws (200, an SVG): the self-contained ones, C4-PlantUML and the other libraries the PlantUML
jar bundles included by URL, D2 icons (an icon the server cannot fetch leaves its shape without it). Only
what needs a file or a URL no bundled library holds is refused, with a 400 that names the reason (not a
"syntax error") in the asker's language: REFUSED below, by case id; CANNOT_DRAW holds the syntax no released
engine reads yet. The run's table (per type: cases, drawn, refused, failed, p50/p95 seconds) is printed at
the end (tests/corpus/conftest.py)."""
import time

import pytest

pytestmark = pytest.mark.corpus

# The cases that cannot draw on a server that reads no files and fetches no includes: why, and a word their
# 400 must name.
REFUSED = {
    # `a: @imports-normal-x` reads imports-normal-x.d2 beside it.
    "d2/docs-imports-normal": "import",
    # `...@classes` spreads classes.d2 from the disk.
    "d2/docs-imports-classes-main": "import",
    # C4-PlantUML's own test fixtures, bundled nowhere: the theme C4_FirstTest and
    # percy/TestAllElementsWithLegend.puml, by URL (`./TestAllElementsWithLegend.puml` on its other branch).
    "c4plantuml/stdlib-percy-testthemesupport": "URL",
    # dcasati/kubernetes-PlantUML's kubernetes_Context.puml (Cluster_Boundary, Namespace_Boundary): the
    # jar bundles that library as <k8s/...> without this file.
    "plantuml/kubernetes-plantuml-sample": "URL",
}
# Cases no released engine draws: the syntax error (with its line) is the right answer until one does.
CANNOT_DRAW = {
    # `component "Web App" [0.75, 0.80] (build) label [-60, 10]`: the wardley page at the corpus's commit
    # (mermaid main) documents label offsets, which Mermaid 12.3.0, the latest release, does not parse.
    "mermaid/wardley-22": "Syntax error on line 10: ",
}


def _render(client, case, lang=None):
    return client.post("/diagrams/render", json={"source": case["source"], "diagram_type": case["type"]},
                       lang=lang)


def _detail(response):
    body = response.get_json(silent=True)
    return body.get("detail") if isinstance(body, dict) else response.get_data(as_text=True)[:300]


def _problem(client, case, response):
    """Why this answer misses the issue's aim for the case; None when it meets it."""
    status, detail = response.status_code, _detail(response)
    if case["id"] in CANNOT_DRAW:
        if status == 200:
            return "draws now: take it out of CANNOT_DRAW"
        if status != 400 or not str(detail).startswith(CANNOT_DRAW[case["id"]]):
            return f"{status} {detail} (expected: {CANNOT_DRAW[case['id']]}...)"
        return None
    if case["id"] not in REFUSED:
        if status != 200:
            return f"{status} {detail}"
        if response.mimetype != "image/svg+xml" or b"<svg" not in response.data:
            return f"200 without an SVG ({response.mimetype})"
        return None
    word = REFUSED[case["id"]]
    if status != 400 or not isinstance(detail, str):
        return f"{status} {detail} (a 400 naming the reason was expected)"
    if detail.startswith("Syntax error") or word.lower() not in detail.lower():
        return f"400 {detail} (the refusal should name the {word}, not a syntax error)"
    spanish = _detail(_render(client, case, lang="es"))
    if spanish == detail:
        return f"400 {detail} (the same text in Spanish: not localized)"
    return None


def test_every_corpus_case_draws_unless_it_needs_a_file_or_an_unbundled_url(client, corpus_case, corpus_table,
                                                                            require_engine):
    require_engine(corpus_case["type"])
    started = time.perf_counter()
    response = _render(client, corpus_case)
    seconds = time.perf_counter() - started
    problem = _problem(client, corpus_case, response)
    corpus_table.record(corpus_case, response, seconds, problem)
    assert problem is None, problem
