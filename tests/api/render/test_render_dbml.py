"""DBML of today's syntax draws through POST /diagrams/render on this host's engine (docs/rendering.md,
"DBML"): sample data (`records`), `TablePartial`, `checks`, long-form `Ref name { ... }`, relations
with optional ends; what the renderer cannot draw (the records, the checks) is left out, the tables and
references stay. A syntax error still answers 400 naming its line, also after the newer syntax."""
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from trazo.services.render import engines

from ...helpers import error_detail
from .test_render_engines import LIMITS, TOO_LARGE, require

SVG = "{http://www.w3.org/2000/svg}"
CORPUS = Path(__file__).resolve().parents[4] / "shared" / "corpus"

RECORDS = """Table users {
  id int [pk]
  email varchar
}

records users(id, email) {
  1, 'ana@example.com'
  2, 'luis@example.com'
}

Table orders {
  id int [pk]
  user_id int [ref: > users.id]
  records (id, user_id) {
    10, 1
  }
}
"""
PARTIAL = """TablePartial audited [headerColor: #3498db] {
  created_at timestamp [not null]
  updated_at timestamp
}

Table invoices {
  id int [pk]
  ~audited
  total decimal(10, 2)
}
"""
CHECKS = """Table accounts {
  id int [pk]
  wealth integer
  debt integer

  checks {
    `debt + wealth >= 0` [name: 'chk_positive_money']
  }
}
"""
LONG_REF = """Table authors {
  id int [pk]
}

Table books {
  id int [pk]
  author_id int
}

Ref book_author {
  books.author_id > authors.id [delete: cascade]
}

Ref: books.id - authors.id
"""
OPTIONAL_END = """Table shops {
  id int [pk]
}

Table shelves {
  id int [pk]
  shop_id int
}

Ref: shelves.shop_id >? shops.id
"""


def _render(client, source, **kwargs):
    return client.post("/diagrams/render", json={"source": source, "diagram_type": "dbml"}, **kwargs)


def _texts(response):
    assert response.status_code == 200, response.get_data(as_text=True)[:500]
    assert response.mimetype == "image/svg+xml"
    root = ET.fromstring(response.get_data())
    return {(element.text or "").strip() for element in root.iter(f"{SVG}text")} - {""}


@pytest.fixture(autouse=True)
def auto_without_kroki(settings):
    """The defaults: RENDER_BACKEND=auto and no KROKI_URL, so only this host's DBML engine draws."""
    require("dbml-renderer")
    settings(RENDER_BACKEND="auto", KROKI_URL="", RENDER_TIMEOUT=30, RATE_LIMIT_RENDER="1000/minute",
             RATE_LIMIT_RENDER_SECONDS="10000/minute", RENDER_SLOTS_PER_CLIENT=4, **LIMITS)


def test_dbml_with_sample_records_draws_its_tables_and_references(client):
    texts = _texts(_render(client, RECORDS))
    assert {"users", "orders", "id", "email", "user_id"} <= texts
    assert "ana@example.com" not in texts  # sample data is not drawn
    assert {"1", "*"} <= texts  # the inline reference's ends


def test_a_table_partial_draws_its_columns_inside_the_table(client):
    response = _render(client, PARTIAL)
    texts = _texts(response)
    assert {"invoices", "id", "created_at", "updated_at", "total", "decimal(10,2)"} <= texts
    assert "audited" not in texts
    assert "#3498db" in response.get_data(as_text=True)  # the partial's header colour


def test_a_table_with_checks_draws_without_them(client):
    texts = _texts(_render(client, CHECKS))
    assert {"accounts", "wealth", "debt"} <= texts
    assert not any("chk_positive_money" in text or ">=" in text for text in texts)


def test_a_long_form_reference_draws_between_its_tables(client):
    response = _render(client, LONG_REF)
    texts = _texts(response)
    assert {"authors", "books", "author_id"} <= texts
    assert response.get_data(as_text=True).count('class="edge"') == 2


def test_a_reference_with_an_optional_end_draws(client):
    response = _render(client, OPTIONAL_END)
    assert {"shops", "shelves", "shop_id"} <= _texts(response)
    assert response.get_data(as_text=True).count('class="edge"') == 1


def test_a_syntax_error_after_today_s_syntax_names_its_own_line(client):
    source = RECORDS + "\nTable broken {\n  id int [pk,]\n  name varchar\n}\n"
    detail = error_detail(_render(client, source), 400)
    assert detail.startswith("Syntax error on line 20: "), detail
    spanish = error_detail(_render(client, source, lang="es"), 400)
    assert spanish.startswith("Error de sintaxis en la línea 20: "), spanish


def test_a_reference_to_a_missing_table_names_its_line(client):
    detail = error_detail(_render(client, PARTIAL + "\nRef: invoices.id > customers.id\n"), 400)
    assert detail.startswith("Syntax error on line 12: ") and "customers" in detail, detail


@pytest.mark.parametrize("limit", [{"RENDER_CPU_SECONDS": 1}, {"RENDER_MEMORY_MB": 48}], ids=["cpu", "memory"])
def test_a_huge_source_of_today_s_syntax_is_held_to_the_render_limits(client, settings, limit):
    settings(RENDER_MAX_SOURCE_BYTES=1_000_000, **limit)
    huge = "\n".join(f"Table t{i} {{\n  id int [pk]\n  ref int [ref: > t{(i * 7) % 300}.id]\n}}" for i in range(300))
    huge += f"\n\nrecords t0(id, ref) {{\n  1, 7\n}}\n// {next(iter(limit))}\n"
    assert error_detail(_render(client, huge), 400) == TOO_LARGE


def test_the_listing_names_both_pinned_dbml_packages(client):
    rows = client.get("/diagrams/render/engines").json
    assert {"type": "dbml", "engine": "dbml-renderer", "version": "1.0.31", "backend": "local"} in rows
    lock = json.loads((Path(engines.ENGINES_DIR) / "dbml" / "package-lock.json").read_text(encoding="utf-8"))
    assert lock["packages"]["node_modules/@dbml/parse"]["version"] == "10.2.0"
    assert lock["packages"]["node_modules/@softwaretechnik/dbml-renderer"]["version"] == "1.0.31"


def _corpus_cases():
    if not (CORPUS / "cases.json").is_file():
        return []
    return [case for case in json.loads((CORPUS / "cases.json").read_text(encoding="utf-8"))
            if case["type"] == "dbml"]


@pytest.mark.skipif(not _corpus_cases(), reason="the shared corpus (../shared/corpus) is not here")
@pytest.mark.parametrize("case", _corpus_cases(), ids=lambda case: case["id"])
def test_every_upstream_dbml_example_draws_its_tables(client, case):
    source = (CORPUS / case["file"]).read_text(encoding="utf-8")
    texts = _texts(_render(client, source))
    assert case["expect"] == "render"
    tables = {name for name in _table_names(source)}
    assert tables and all(any(name in text for text in texts) for name in tables), (tables, texts)


def _table_names(source):
    """The last part of each `Table [schema.]name` of a source (quotes removed)."""
    for line in source.splitlines():
        words = line.split()
        if len(words) >= 2 and words[0].lower() == "table":
            yield words[1].replace('"', "").split(".")[-1].rstrip("{")
