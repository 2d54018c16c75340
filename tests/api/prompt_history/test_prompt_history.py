"""Prompt history: list (paging, escaped search, diagram filter), save with dedupe, delete."""
from sqlalchemy import func, select

from trazo.extensions import db
from trazo.models.ai import PromptHistory

from ...helpers import UNKNOWN_ID, create_diagram, error_detail, validation_errors

ENTRY_FIELDS = {"id", "diagram_id", "prompt_text", "operation_type", "created_at", "used_at"}


def _save(client, text, operation_type="creation", **fields):
    return client.post("/prompt-history", json={"prompt_text": text, "operation_type": operation_type, **fields})


def test_save_answers_201_with_the_entry(user, diagram):
    response = _save(user, "  Draw a login flow  ", "improvement", diagram_id=diagram["id"])
    assert response.status_code == 201 and set(response.json) == ENTRY_FIELDS
    assert response.json["prompt_text"] == "Draw a login flow"
    assert response.json["operation_type"] == "improvement" and response.json["diagram_id"] == diagram["id"]
    assert response.json["created_at"] == response.json["used_at"]
    assert response.json["created_at"].endswith("+00:00")


def test_the_same_prompt_only_moves_to_the_top(user, app):
    first = _save(user, "Draw a login flow").json
    _save(user, "Something else")
    again = _save(user, "  DRAW A LOGIN FLOW ", "improvement")
    assert again.status_code == 200
    assert again.json["id"] == first["id"] and again.json["operation_type"] == "creation"
    assert again.json["used_at"] > first["used_at"] and again.json["created_at"] == first["created_at"]
    listed = user.get("/prompt-history").json
    assert [item["prompt_text"] for item in listed["items"]] == ["Draw a login flow", "Something else"]
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(PromptHistory)) == 2


def test_dedupe_is_per_diagram(user, project, diagram):
    other = create_diagram(user, project["id"], title="Other")
    ids = {_save(user, "Same prompt", diagram_id=diagram["id"]).json["id"],
           _save(user, "Same prompt", diagram_id=other["id"]).json["id"],
           _save(user, "Same prompt").json["id"]}
    assert len(ids) == 3
    assert _save(user, "same prompt", diagram_id=other["id"]).status_code == 200
    filtered = user.get(f"/prompt-history?diagram_id={diagram['id']}").json
    assert filtered["total"] == 1 and filtered["items"][0]["diagram_id"] == diagram["id"]


def test_list_pages_newest_first(user):
    for index in range(5):
        _save(user, f"Prompt {index}")
    page = user.get("/prompt-history?page=2&page_size=2").json
    assert {key: page[key] for key in ("total", "page", "page_size", "total_pages")} == \
        {"total": 5, "page": 2, "page_size": 2, "total_pages": 3}
    assert [item["prompt_text"] for item in page["items"]] == ["Prompt 2", "Prompt 1"]
    assert set(page["items"][0]) == ENTRY_FIELDS
    assert user.get("/prompt-history?page=9").json["items"] == []


def test_search_is_a_plain_case_insensitive_substring(user):
    for text in ("100% coverage plan", "1000 coverage plan", "snake_case names", "snakeXcase names",
                 "Regex (a+)+ trap", "back\\slash"):
        _save(user, text)

    def found(term):
        response = user.get("/prompt-history", query_string={"search": term})
        assert response.status_code == 200
        return sorted(item["prompt_text"] for item in response.json["items"])

    assert found("100%") == ["100% coverage plan"]
    assert found("snake_case") == ["snake_case names"]
    assert found("(A+)+") == ["Regex (a+)+ trap"]
    assert found("K\\S") == ["back\\slash"]
    assert found("COVERAGE") == ["100% coverage plan", "1000 coverage plan"]
    assert found("[") == []


def test_delete(user):
    entry = _save(user, "Draw it").json
    response = user.delete(f"/prompt-history/{entry['id']}")
    assert response.status_code == 200
    assert response.json == {"message": "Prompt history entry deleted successfully"}
    assert error_detail(user.delete(f"/prompt-history/{entry['id']}", lang="es"), 404) == \
        "Entrada de historial no encontrada"
    assert user.get("/prompt-history").json["total"] == 0


def test_deleting_the_diagram_keeps_its_prompts(user, diagram):
    entry = _save(user, "Draw it", diagram_id=diagram["id"]).json
    user.delete(f"/diagrams/{diagram['id']}")
    assert user.get("/prompt-history").json["items"][0] == {**entry, "diagram_id": None}


def test_routes_need_a_token(client, user):
    entry = _save(user, "Draw it").json
    for response in (client.get("/prompt-history"), _save(client, "Draw it"),
                     client.delete(f"/prompt-history/{entry['id']}")):
        error_detail(response, 401)


def test_another_users_entries_and_diagrams_are_out_of_reach(user, other_user, diagram):
    entry = _save(user, "Mine", diagram_id=diagram["id"]).json
    assert other_user.get("/prompt-history").json["total"] == 0
    assert other_user.get(f"/prompt-history?diagram_id={diagram['id']}").json["items"] == []
    assert error_detail(other_user.delete(f"/prompt-history/{entry['id']}"), 404) == "Prompt history entry not found"
    assert error_detail(_save(other_user, "Theirs", diagram_id=diagram["id"]), 404) == "Diagram not found"
    for missing in (UNKNOWN_ID, "nope"):
        error_detail(user.delete(f"/prompt-history/{missing}"), 404)
        error_detail(_save(user, "x", diagram_id=missing), 404)
    assert user.get("/prompt-history").json["total"] == 1


def test_bad_input_is_a_422_list(user):
    validation_errors(_save(user, ""), "prompt_text")
    validation_errors(_save(user, "   "), "prompt_text")
    validation_errors(_save(user, "x" * 5001), "prompt_text")
    validation_errors(_save(user, "ok", "deletion"), "operation_type")
    validation_errors(user.post("/prompt-history", json={"prompt_text": "ok"}), "operation_type")
    for query in ("page=0", "page_size=0", "page_size=101", "page=x"):
        validation_errors(user.get(f"/prompt-history?{query}"), where="query")
    validation_errors(user.get("/prompt-history", query_string={"search": "s" * 201}), "search", where="query")
