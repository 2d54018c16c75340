"""The search's parameters (docs/search.md, "Query syntax", "Pages", "Limits"): refusals in the usual 422
list shape on the parameter at fault, pages that return each hit once, title hits first, and no answer
but 200 or 422 to any text."""
import json

import pytest

from ...helpers import create_diagram, error_detail, validation_errors
from ...hostile_texts import SHAPES, hostile
from .conftest import search, titles

HOSTILE = ['"', '""', '"*', "*", "**", "-", "->", "a" * 200, "\x00", "\u202e", "\u200b", "é" * 200,
           "'", "\\", "a:b", "a:*", "'a' & 'b'", "a | b", "!a", "a <-> b", "NEAR(a b)", "a AND OR NOT",
           "{title}: a", "^a", "a + b", "(a", ")", "%", "_", "__init__", "日本語", "ǅ", "ﬁ", "İstanbul",
           "a\tb\nc", "0", "00000000-0000-4000-8000-000000000000", "😀", "a😀b", "Ⅻ", "½", "\u0301",
           *(hostile(shape, 200) for shape in SHAPES)]


def test_a_search_without_a_letter_or_a_digit_is_refused(user):
    for q in ("", "   ", "*", "-> --", '"" "*"', "\u200b"):
        [item] = validation_errors(user.get("/search", query_string={"q": q}), "q", where="query")
        assert item["msg"] == "Search for at least one letter or digit.", q
    validation_errors(user.get("/search"), "q", where="query")


def test_a_search_longer_than_200_characters_is_refused(user):
    assert search(user, "a" * 200) == {"items": [], "next_cursor": None}
    [item] = validation_errors(user.get("/search", query_string={"q": "a" * 201}), "q", where="query")
    assert (item["msg"], item["type"]) == ("The search is longer than 200 characters.", "string_too_long")


def test_a_limit_outside_1_to_50_and_an_unknown_type_are_refused(user):
    for limit in ("0", "51", "-1", "many"):
        validation_errors(user.get("/search", query_string={"q": "a", "limit": limit}), "limit", where="query")
    [item] = validation_errors(user.get("/search", query_string={"q": "a", "diagram_type": "word"}),
                               "diagram_type", where="query")
    assert item["msg"].startswith("Unknown diagram type.")


def test_refusals_are_in_the_callers_language(user):
    response = user.get("/search", query_string={"q": "!!"}, lang="es")
    assert validation_errors(response, "q", where="query")[0]["msg"] == "Busque al menos una letra o un dígito."


@pytest.fixture
def many(user, project):
    """Seven diagrams that mention `heron`, one of them in its title."""
    made = [create_diagram(user, project["id"], title=f"Diagram {number}",
                           content="graph TD\n" + "  heron --> egret\n" * (number + 1)) for number in range(6)]
    made.append(create_diagram(user, project["id"], title="Heron", content="graph TD\n  A --> B"))
    return made


def test_pages_follow_each_other_and_return_each_hit_once(user, many):
    seen, cursor, pages = [], None, 0
    while True:
        page = search(user, "heron", limit=3, **({"cursor": cursor} if cursor else {}))
        pages += 1
        seen += [hit["diagram_id"] for hit in page["items"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert pages == 3 and sorted(seen) == sorted(diagram["id"] for diagram in many) and len(set(seen)) == 7
    assert seen == [hit["diagram_id"] for hit in search(user, "heron", limit=50)["items"]]


def test_a_title_hit_ranks_above_every_content_hit(user, many):
    hits = search(user, "heron")["items"]
    assert hits[0]["title"] == "Heron" and hits[0]["score"] >= 1 > hits[1]["score"]
    assert [hit["score"] for hit in hits] == sorted((hit["score"] for hit in hits), reverse=True)


def test_a_cursor_of_another_search_or_no_cursor_at_all_is_refused(user, many):
    cursor = search(user, "heron", limit=3)["next_cursor"]
    for other in ({"q": "egret", "cursor": cursor}, {"q": "heron", "limit": 3, "cursor": cursor, "diagram_type": "d2"},
                  {"q": "heron", "cursor": "bm90IGEgY3Vyc29y"}, {"q": "heron", "cursor": "%%%"},
                  {"q": "heron", "cursor": "x" * 600}, {"q": "heron", "cursor": json.dumps({"s": 1})}):
        [item] = validation_errors(user.get("/search", query_string=other), "cursor", where="query")
        assert item["msg"] == "Invalid cursor: start the search again without one."


def test_a_search_runs_at_most_three_statements_with_the_callers_lookup(user, project, many, count_queries):
    for params in ({}, {"workspace_id": project["workspace_id"], "project_id": project["id"]}):
        with count_queries() as counted:
            assert search(user, "heron egret*", **params)["items"]
        assert counted.count <= 3, counted.statements


@pytest.mark.parametrize("q", HOSTILE, ids=range(len(HOSTILE)))
def test_no_text_makes_the_search_fail(user, project, q):
    create_diagram(user, project["id"], title="Target", content="graph TD\n  a --> b\n  __init__ --> 日本語")
    response = user.get("/search", query_string={"q": q})
    assert response.status_code in (200, 422), response.get_data(as_text=True)[:300]
    if response.status_code == 422:
        validation_errors(response, "q", where="query")
    else:
        assert set(response.json) == {"items", "next_cursor"}


def test_a_search_that_is_not_utf_8_is_read_with_replacement_characters(user, project):
    create_diagram(user, project["id"], title="Target", content="graph TD\n  a --> b")
    for raw in ("%ED%A0%80", "%FF%FEa", "a%00b", "%C3"):
        response = user.get(f"/search?q={raw}")
        assert response.status_code in (200, 422), response.get_data(as_text=True)[:300]
    assert titles(user, "%FF%FEa".replace("%FF%FE", "\ufffd")) == ["Target"]


def test_unknown_parameters_are_ignored(user, many):
    assert titles(user, "heron", sort="title")[0] == "Heron"


def test_a_search_takes_no_body_and_no_other_method(user):
    response = user.post("/search", json={"q": "heron"})
    assert error_detail(response, 405)
