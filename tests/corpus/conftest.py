"""Fixtures of the corpus tests (`make corpus`; docs/rendering.md, "Corpus"): the real diagrams of
../shared/corpus beside the repository (or CORPUS_DIR), a test taking `corpus_case` run once per case
(skipped when there is no corpus), the test app with the render budgets and per-client shares lifted, and
the table of what was drawn, printed at the end of the run and written under pytest's temporary folder."""
import functools
import json
import math
import os
import re
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from trazo.services.render import cache as render_cache

from ..helpers import ApiClient

ROOT = Path(__file__).resolve().parents[2]
CORPUS_DIR = Path(os.environ.get("CORPUS_DIR") or ROOT.parent / "shared" / "corpus")
UNLIMITED = "1000000/minute"


@functools.cache
def corpus_cases():
    """Every case of cases.json (id, type, file, expect, origin) with its `source`; [] without a corpus."""
    listing = CORPUS_DIR / "cases.json"
    if not listing.is_file():
        return []
    cases = json.loads(listing.read_text(encoding="utf-8"))
    for case in cases:
        case["source"] = (CORPUS_DIR / case["file"]).read_text(encoding="utf-8")
    return cases


def pytest_generate_tests(metafunc):
    """A test that takes `corpus_case` runs once per case, its id the case id (`-k c4plantuml/readme`)."""
    if "corpus_case" not in metafunc.fixturenames:
        return
    cases = corpus_cases()
    if cases:
        metafunc.parametrize("corpus_case", cases, ids=[case["id"] for case in cases])
    else:
        metafunc.parametrize("corpus_case", [pytest.param(None, marks=pytest.mark.skip(
            reason=f"no corpus at {CORPUS_DIR} (set CORPUS_DIR to draw one)"))], ids=["no-corpus"])


@pytest.fixture(scope="session", autouse=True)
def cold_render_cache(app):
    """Every case is drawn by its engine, not answered from a cache an earlier run filled."""
    render_cache.clear(app.config.get("REDIS_URL"))
    yield
    render_cache.clear(app.config.get("REDIS_URL"))


@pytest.fixture(autouse=True)
def renders_unlimited(app, configure):
    """This host's engines only (auto, no Kroki), the production engine limits, and no budget or share:
    one client draws hundreds of diagrams in a row."""
    configure(RENDER_BACKEND="auto", KROKI_URL="", RATE_LIMIT_RENDER=UNLIMITED,
              RATE_LIMIT_RENDER_SECONDS=UNLIMITED, RENDER_SLOTS_PER_CLIENT=app.config["RENDER_SLOTS"],
              MERMAID_PAGES_PER_CLIENT=app.config["MERMAID_PAGES"])


@pytest.fixture(scope="session")
def local_types(app):
    """The diagram types an engine on this host draws, as GET /diagrams/render/engines lists them."""
    listing = ApiClient(app.test_client(), "10.250.0.1").get("/diagrams/render/engines")
    assert listing.status_code == 200, listing.get_data(as_text=True)[:300]
    return {row["type"] for row in listing.json if row["backend"] == "local"}


@pytest.fixture
def require_engine(local_types):
    """require_engine(type): skip when no engine here draws it; a failure under RENDER_ENGINES_REQUIRED."""

    def require(diagram_type):
        if diagram_type in local_types:
            return
        if os.environ.get("RENDER_ENGINES_REQUIRED"):
            pytest.fail(f"no engine draws {diagram_type} here although RENDER_ENGINES_REQUIRED is set")
        pytest.skip(f"no engine draws {diagram_type} here (make install installs it)")

    return require


def percentile(values, share):
    """The nearest-rank percentile (share in 0..100) of `values`."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share / 100 * len(ordered)) - 1)]


def reason_of(detail):
    """A refusal's text with its numbers blanked, so the same refusal on different lines counts once."""
    return re.sub(r"\b\d+\b", "N", " ".join(str(detail).split()))[:110]


class CorpusTable:
    """What each case's render answered: status, seconds, the refusal's text, whether the test passed it."""

    def __init__(self, folder):
        self.folder = folder
        self.rows = []

    def record(self, case, response, seconds, problem=None):
        """Keep one case's answer; `problem` is why the test fails it (None when it passes)."""
        drawn = response.status_code == 200
        body = None if drawn else response.get_json(silent=True)
        detail = body.get("detail") if isinstance(body, dict) else response.get_data(as_text=True)[:300]
        outcome = "drawn" if drawn else "refused" if case["expect"] == "refuse" else "failed"
        self.rows.append({"id": case["id"], "type": case["type"], "expect": case["expect"],
                          "status": response.status_code, "seconds": round(seconds, 3), "outcome": outcome,
                          "detail": None if drawn else detail, "problem": problem})

    def markdown(self):
        """The table per type, the refusals grouped by reason, and each case the test fails."""
        by_type = defaultdict(list)
        for row in self.rows:
            by_type[row["type"]].append(row)
        lines = ["| type | cases | drawn | refused | failed | failing the test | p50 s | p95 s |",
                 "|---|---|---|---|---|---|---|---|"]
        for name, rows in sorted(by_type.items()) + [("all", self.rows)]:
            outcomes = Counter(row["outcome"] for row in rows)
            seconds = [row["seconds"] for row in rows]
            failing = sum(1 for row in rows if row["problem"])
            lines.append(f"| {name} | {len(rows)} | {outcomes['drawn']} | {outcomes['refused']} | "
                         f"{outcomes['failed']} | {failing} | {percentile(seconds, 50):.2f} | "
                         f"{percentile(seconds, 95):.2f} |")
        reasons = Counter((row["type"], row["status"], reason_of(row["detail"]))
                          for row in self.rows if row["outcome"] != "drawn")
        if reasons:
            lines += ["", "Not drawn, by reason (type, status, count, text):"]
            lines += [f"- {kind} {status} x{count}: {text}" for (kind, status, text), count in sorted(reasons.items())]
        failing = [row for row in self.rows if row["problem"]]
        if failing:
            lines += ["", f"Failing the test ({len(failing)}):"]
            lines += [f"- {row['id']} ({row['expect']}): {row['problem'][:160]}" for row in failing]
        return "\n".join(lines)

    def write(self):
        """The table (corpus-table.md) and every case's answer (corpus-results.json); the table's path."""
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / "corpus-results.json").write_text(json.dumps(self.rows, indent=1), encoding="utf-8")
        table = self.folder / "corpus-table.md"
        table.write_text(self.markdown() + "\n", encoding="utf-8")
        return table


TABLE = pytest.StashKey[CorpusTable]()


@pytest.fixture(scope="session")
def corpus_table(request, tmp_path_factory):
    """The run's CorpusTable: what a test records in it is printed in the terminal summary."""
    table = CorpusTable(tmp_path_factory.getbasetemp() / "corpus")
    request.config.stash[TABLE] = table
    return table


def pytest_terminal_summary(terminalreporter, config):
    table = config.stash.get(TABLE, None)
    if table is None or not table.rows:
        return
    path = table.write()
    terminalreporter.write_sep("=", f"corpus: {len(table.rows)} cases drawn through POST /diagrams/render")
    terminalreporter.write_line(table.markdown())
    terminalreporter.write_line(f"\n(written to {path} and, per case, {path.with_name('corpus-results.json')})")
