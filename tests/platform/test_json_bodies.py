"""Hostile JSON bodies (absurd nesting, lone surrogates, huge integers) are a 422, never a 500,
and nothing of them is stored."""
import io

import pytest
from sqlalchemy import func, select

from trazo.extensions import db
from trazo.models import User

from ..helpers import PASSWORD, UNKNOWN_ID, create_diagram, create_project, error_detail

INVALID_JSON = [{"loc": ["body"], "msg": "Invalid JSON body.", "type": "json_invalid"}]
HOSTILE_VALUES = {
    "nested 100,000 deep": "[" * 100_000 + "]" * 100_000,
    "nested 800 deep": "[" * 800 + "]" * 800,
    "nested 65 deep": "[" * 64 + "]" * 64,
    "a lone surrogate": '"\\ud800"',
    "a lone low surrogate in a key": '{"\\udc00": 1}',
    "an integer of 4,301 digits": "1" * 4301,
}


def _body(field_values):
    """A JSON object whose values are raw JSON text, so the hostile parts reach the parser verbatim."""
    return "{" + ", ".join(f'"{name}": {value}' for name, value in field_values.items()) + "}"


def _send(client, method, path, field_values, **kwargs):
    return client.request(method, path, data=_body(field_values).encode(), content_type="application/json",
                          **kwargs)


@pytest.mark.parametrize("hostile", HOSTILE_VALUES.values(), ids=HOSTILE_VALUES.keys())
def test_a_hostile_json_body_on_register_is_refused_as_invalid_json_and_creates_no_account(client, app,
                                                                                             hostile):
    response = _send(client, "POST", "/users/register", {"email": '"eve@example.com"',
                                                         "password": f'"{PASSWORD}"', "full_name": hostile})
    assert error_detail(response, 422) == INVALID_JSON
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(User)) == 0


@pytest.mark.parametrize("hostile", HOSTILE_VALUES.values(), ids=HOSTILE_VALUES.keys())
def test_a_hostile_json_body_on_create_project_is_refused_as_invalid_json(user, hostile):
    response = _send(user, "POST", "/projects", {"name": hostile})
    assert error_detail(response, 422) == INVALID_JSON
    assert user.get("/projects").json == []


@pytest.mark.parametrize("hostile", HOSTILE_VALUES.values(), ids=HOSTILE_VALUES.keys())
def test_a_hostile_json_body_on_a_diagram_update_is_refused_and_the_diagram_is_unchanged(user, hostile):
    diagram = create_diagram(user, create_project(user)["id"], title="Kept")
    response = _send(user, "PUT", f"/diagrams/{diagram['id']}", {"title": hostile, "content": hostile})
    assert error_detail(response, 422) == INVALID_JSON
    after = user.get(f"/diagrams/{diagram['id']}")
    assert after.status_code == 200 and after.json["title"] == "Kept"
    assert after.json["content"] == diagram["content"]


@pytest.mark.parametrize("hostile", HOSTILE_VALUES.values(), ids=HOSTILE_VALUES.keys())
def test_a_hostile_json_body_on_the_chat_stream_is_refused_before_any_event(user, hostile):
    response = _send(user, "POST", f"/chat-sessions/{UNKNOWN_ID}/messages/stream", {"content": hostile})
    assert response.headers["Content-Type"] == "application/json"
    assert error_detail(response, 422) == INVALID_JSON


def test_the_invalid_json_message_is_translated(client):
    response = _send(client, "POST", "/users/login", {"email": '"\\ud800"', "password": '"x"'}, lang="es")
    assert error_detail(response, 422) == [{"loc": ["body"], "msg": "Cuerpo JSON no válido.",
                                           "type": "json_invalid"}]


@pytest.mark.parametrize("text", ['"\\ud83d\\ude00 ok"', '"\\\\ud800 is only text"', '"\\u00e9t\\u00e9"'],
                         ids=["a surrogate pair", "an escaped backslash", "plain escapes"])
def test_escapes_that_form_valid_text_are_accepted_and_stored(user, text):
    response = _send(user, "POST", "/projects", {"name": text})
    assert response.status_code == 201, response.json
    assert response.json["name"] in ("\U0001F600 ok", "\\ud800 is only text", "été")


def test_deep_but_reasonable_nesting_and_long_numbers_still_reach_validation(client):
    response = _send(client, "POST", "/users/login", {"email": "[" * 50 + "]" * 50, "password": "1" * 4300})
    detail = error_detail(response, 422)
    assert {tuple(item["loc"]) for item in detail} == {("body", "email"), ("body", "password")}
    assert {item["type"] for item in detail if item["loc"] == ["body", "password"]} == {"string_type"}


@pytest.mark.parametrize("name", ["drawing.excalidraw", "sketch.freehand.json"])
def test_an_imported_sketch_with_a_lone_surrogate_is_skipped_as_invalid_json(user, name):
    project = create_project(user)
    elements = '[{"type": "text", "id": "t\\ud800", "text": "\\udfff", "x": 1, "y": 2}]'
    sketch = '{"type": "excalidraw", "elements": ' + elements + "}"
    response = user.post(f"/projects/{project['id']}/import", content_type="multipart/form-data",
                         data={"files": [(io.BytesIO(sketch.encode()), name), (io.BytesIO(b"graph TD"), "ok.mmd")]})
    assert response.status_code == 200, response.json
    assert response.json["skipped"] == [{"source": name, "reason": "invalid_json"}]
    assert [diagram["source"] for diagram in response.json["diagrams"]] == ["ok.mmd"]


@pytest.mark.parametrize("path", [f"/chat-sessions/{UNKNOWN_ID}/messages",
                                  f"/chat-sessions/{UNKNOWN_ID}/messages/stream", "/ai/generate-diagram"])
def test_a_body_over_the_size_limit_on_a_route_that_reads_its_language_is_a_413(user, path):
    body = b'{"language": "es", "content": "' + b"a" * (6 * 1024 * 1024) + b'"}'
    response = user.post(path, data=body, content_type="application/json")
    assert error_detail(response, 413) == "Request body too large"
