"""How text is split (core/search/tokens.py, docs/search.md "How text is split"), the query's syntax
(core/search/query.py) and snippets (core/search/snippets.py), without HTTP; on PostgreSQL, the database's
own functions split as the Python side does."""
import time

import pytest
from sqlalchemy import text

from trazo.core.search import query, snippets, tokens
from trazo.core.search.expressions import Lexemes, python_lexemes
from trazo.extensions import db

SAMPLES = {
    "orderService.create": (["order", "service", "create"], ["orderservice", "create"]),
    "HTTPServer parseJSONBody": (["http", "server", "parse", "json", "body"], ["httpserver", "parsejsonbody"]),
    "utf8Encode base64 v2API": (["utf8", "encode", "base64", "v2", "api"], ["utf8encode", "base64", "v2api"]),
    "order_service __init__ _": (["order", "service", "init"], ["orderservice", "init"]),
    "Facturación ÉXITO añoNuevo": (["facturacion", "exito", "ano", "nuevo"], ["facturacion", "exito", "anonuevo"]),
    "A-->B{Is it?} C[(db)]": (["a", "b", "is", "it", "c", "db"], ["a", "b", "is", "it", "c", "db"]),
    "Straße ﬁle": (["strasse", "file"], ["strasse", "file"]),
}


@pytest.mark.parametrize("source", SAMPLES)
def test_text_splits_into_parts_and_joined_identifiers(source):
    assert (tokens.parts(source), tokens.joined(source)) == SAMPLES[source]
    expected_parts, expected_joined = SAMPLES[source]
    assert tokens.index_text(source).split() == expected_parts + expected_joined


def test_spans_point_at_the_original_text_even_when_folding_changes_lengths():
    source = "e\u0301te Straße orderService"
    part_spans, joined_spans = tokens.spans(source)
    assert [(lexeme, source[start:end]) for lexeme, start, end in part_spans] == [
        ("ete", "e\u0301te"), ("strasse", "Straße"), ("order", "order"), ("service", "Service")]
    assert [source[start:end] for _lexeme, start, end in joined_spans] == ["e\u0301te", "Straße", "orderService"]


def test_splitting_is_linear_on_hostile_identifiers():
    for hostile in ("aA" * 500_000, "A" * 1_000_000 + "a", "_" * 1_000_000, "a1" * 500_000):
        started = time.perf_counter()
        tokens.index_text(hostile)
        tokens.spans(hostile)
        assert time.perf_counter() - started < 5, hostile[:10]


def test_anything_but_a_text_indexes_as_nothing():
    assert [tokens.index_text(value) for value in (None, b"bytes", 3, "")] == ["", "", "", ""]


def test_a_query_reads_words_phrases_and_prefixes(app):
    with app.test_request_context():
        assert query.parse('pay* "order serv"* OrderService -> "unclosed phrase') == (
            query.Term("pay", True), query.Term("order serv", True), query.Term("OrderService"),
            query.Term("unclosed phrase"))
        assert query.parse("a a A") == (query.Term("a"), query.Term("A"))


def test_a_snippet_is_cut_around_the_first_match_with_the_matches_inside_it():
    source = "intro " * 60 + "the orderService.create call\n\n  then orderService again " + "outro " * 60
    found = snippets.snippet((None, source), python_lexemes([query.Term("OrderService")]))
    assert found["snippet"].startswith("…") and found["snippet"].endswith("…")
    assert len(found["snippet"]) <= snippets.SNIPPET_CHARS + 2 and "\n" not in found["snippet"]
    assert [found["snippet"][match["start"]:match["end"]] for match in found["matches"]] == ["orderService"] * 2


def test_a_snippet_without_a_match_shows_the_beginning_of_the_first_text():
    terms = (Lexemes(("zebra",), ("zebra",), False),)
    assert snippets.snippet((None, "", "Some description"), terms) == {"snippet": "Some description",
                                                                     "matches": []}
    assert snippets.snippet((None, None), terms) == {"snippet": "", "matches": []}


@pytest.fixture
def postgresql(app):
    with app.app_context():
        if db.engine.dialect.name != "postgresql":
            pytest.skip("the database's own splitting is PostgreSQL's")
        yield db.session
        db.session.remove()


@pytest.mark.parametrize("source", SAMPLES)
def test_postgresql_splits_as_python_does(postgresql, source):
    parts, joined = postgresql.execute(text("SELECT trazo_search_parts(:t), trazo_search_joined(:t)"),
                                       {"t": source}).one()
    assert (parts.split(), joined.split()) == SAMPLES[source]
