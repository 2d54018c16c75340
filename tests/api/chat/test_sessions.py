"""Chat sessions: create, list, read, rename, choose the model, delete; owner-only; cascades."""
import pytest

from ...helpers import UNKNOWN_ID, error_detail, validation_errors
from .conftest import new_diagram, new_session

SESSION_FIELDS = {"id", "diagram_id", "title", "status", "parent_session_id", "last_provider", "last_model",
                  "created_at", "updated_at", "message_count"}


def test_create_session_answers_201(user, diagram):
    response = user.post("/chat-sessions", json={"diagram_id": diagram["id"], "title": "  Pagos  ",
                                                 "user_id": "someone-else"})
    assert response.status_code == 201
    body = response.json
    assert set(body) == SESSION_FIELDS
    assert body["diagram_id"] == diagram["id"] and body["title"] == "Pagos" and body["status"] == "active"
    assert body["message_count"] == 0 and body["parent_session_id"] is None
    assert body["last_provider"] is None and body["last_model"] is None
    assert body["created_at"].endswith("+00:00")


def test_untitled_session_shows_the_default_title_in_the_callers_language(user, diagram):
    created = new_session(user, diagram["id"])
    assert created["title"] == "New session"
    assert user.get(f"/chat-sessions/{created['id']}", lang="es").json["session"]["title"] == "Nueva sesión"


def test_create_session_needs_an_own_diagram(user, other_user, diagram):
    response = other_user.post("/chat-sessions", json={"diagram_id": diagram["id"]})
    assert error_detail(response, 404) == "Diagram not found"
    assert error_detail(user.post("/chat-sessions", json={"diagram_id": UNKNOWN_ID}), 404) == "Diagram not found"
    assert error_detail(user.post("/chat-sessions", json={"diagram_id": "not-a-uuid"}), 404)


@pytest.mark.parametrize("body, field", [({}, "diagram_id"), ({"diagram_id": ""}, "diagram_id"),
                                         ({"diagram_id": 5}, "diagram_id"),
                                         ({"diagram_id": "x", "title": "t" * 201}, "title")])
def test_create_session_validates_the_body(user, body, field):
    validation_errors(user.post("/chat-sessions", json=body), field)


def test_every_route_needs_a_token(client, user, session):
    sid = session["id"]
    calls = [("get", f"/chat-sessions?diagram_id={session['diagram_id']}", None),
             ("post", "/chat-sessions", {"diagram_id": session["diagram_id"]}),
             ("get", "/chat-sessions/stats/provider-usage", None),
             ("get", f"/chat-sessions/{sid}", None), ("put", f"/chat-sessions/{sid}", {"title": "x"}),
             ("delete", f"/chat-sessions/{sid}", None),
             ("put", f"/chat-sessions/{sid}/model", {"provider": "openai", "model": "m"}),
             ("post", f"/chat-sessions/{sid}/messages", {"content": "x"}),
             ("post", f"/chat-sessions/{sid}/messages/stream", {"content": "x"}),
             ("delete", f"/chat-sessions/{sid}/messages/{UNKNOWN_ID}", None),
             ("put", f"/chat-sessions/{sid}/messages/{UNKNOWN_ID}/status", {"status": "accepted"})]
    for method, path, body in calls:
        response = getattr(client, method)(path, json=body)
        assert error_detail(response, 401) == "Not authenticated", (method, path)
        assert response.headers["WWW-Authenticate"] == "Bearer"
    assert user.get(f"/chat-sessions/{sid}").status_code == 200


def test_list_sessions_of_a_diagram_newest_activity_first(user, other_user, diagram):
    first = new_session(user, diagram["id"], title="First")
    second = new_session(user, diagram["id"], title="Second")
    elsewhere = new_diagram(user)
    new_session(user, elsewhere["id"], title="Elsewhere")
    assert user.put(f"/chat-sessions/{first['id']}", json={"title": "First, renamed"}).status_code == 200
    response = user.get("/chat-sessions", query_string={"diagram_id": diagram["id"]})
    assert response.status_code == 200
    assert [s["title"] for s in response.json] == ["First, renamed", "Second"]
    assert all(set(s) == SESSION_FIELDS and s["message_count"] == 0 for s in response.json)
    assert second["id"] in {s["id"] for s in response.json}


def test_list_sessions_refuses_another_users_diagram(user, other_user, diagram, session):
    response = other_user.get("/chat-sessions", query_string={"diagram_id": diagram["id"]}, lang="es")
    assert error_detail(response, 404) == "Diagrama no encontrado"


def test_list_sessions_needs_the_diagram_id(user):
    validation_errors(user.get("/chat-sessions"), "diagram_id", where="query")


def test_read_session_with_messages(user, session):
    response = user.get(f"/chat-sessions/{session['id']}")
    assert response.status_code == 200
    assert response.json == {"session": session, "messages": []}


@pytest.mark.parametrize("session_id", [UNKNOWN_ID, "nope", "x" * 300])
def test_unknown_session_is_404(user, session_id):
    assert error_detail(user.get(f"/chat-sessions/{session_id}"), 404) == "Chat session not found"
    assert error_detail(user.get(f"/chat-sessions/{session_id}", lang="es"), 404) == "Sesión no encontrada"


def test_another_users_session_is_404_on_every_route(user, other_user, session):
    sid = session["id"]
    calls = [("get", f"/chat-sessions/{sid}", None), ("put", f"/chat-sessions/{sid}", {"title": "mine"}),
             ("delete", f"/chat-sessions/{sid}", None),
             ("put", f"/chat-sessions/{sid}/model", {"provider": "openai", "model": "m"}),
             ("delete", f"/chat-sessions/{sid}/messages/{UNKNOWN_ID}", None),
             ("put", f"/chat-sessions/{sid}/messages/{UNKNOWN_ID}/status", {"status": "accepted"})]
    for method, path, body in calls:
        response = getattr(other_user, method)(path, json=body)
        assert error_detail(response, 404) == "Chat session not found", (method, path)
    after = user.get(f"/chat-sessions/{sid}").json["session"]
    assert after["title"] == "New session" and after["last_model"] is None


def test_rename_session(user, session):
    response = user.put(f"/chat-sessions/{session['id']}", json={"title": " Checkout ideas "})
    assert response.status_code == 200
    assert response.json["title"] == "Checkout ideas" and set(response.json) == SESSION_FIELDS
    assert response.json["updated_at"] >= session["updated_at"]


@pytest.mark.parametrize("body", [{}, {"title": ""}, {"title": "   "}, {"title": None}, {"title": "t" * 201}])
def test_rename_session_validates_the_title(user, session, body):
    validation_errors(user.put(f"/chat-sessions/{session['id']}", json=body), "title")


def test_choose_model(user, session):
    response = user.put(f"/chat-sessions/{session['id']}/model", json={"provider": "claude",
                                                                       "model": "claude-sonnet-5-5"})
    assert response.status_code == 200
    assert response.json["last_provider"] == "claude" and response.json["last_model"] == "claude-sonnet-5-5"


@pytest.mark.parametrize("body, field", [({"model": "m"}, "provider"), ({"provider": "sky", "model": "m"}, "provider"),
                                         ({"provider": "openai"}, "model"),
                                         ({"provider": "openai", "model": " "}, "model")])
def test_choose_model_validates_the_body(user, session, body, field):
    validation_errors(user.put(f"/chat-sessions/{session['id']}/model", json=body), field)


def test_delete_session(user, session):
    response = user.delete(f"/chat-sessions/{session['id']}", lang="es")
    assert response.status_code == 200
    assert response.json == {"message": "Sesión eliminada", "deleted_messages": 0}
    assert error_detail(user.get(f"/chat-sessions/{session['id']}"), 404) == "Chat session not found"
    assert error_detail(user.delete(f"/chat-sessions/{session['id']}"), 404) == "Chat session not found"


def test_deleting_the_diagram_removes_its_sessions(user, diagram, session):
    assert user.delete(f"/diagrams/{diagram['id']}").status_code == 200
    assert error_detail(user.get(f"/chat-sessions/{session['id']}"), 404) == "Chat session not found"


def test_provider_usage_of_a_new_user_is_empty(user):
    response = user.get("/chat-sessions/stats/provider-usage")
    assert response.status_code == 200
    assert response.json == {"provider_counts": {}, "total_messages": 0}
