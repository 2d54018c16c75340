"""Test helpers: an HTTP client bound to an address and a token, assertions on error shapes, and content,
shared links and AI providers made over HTTP."""
import threading
from dataclasses import dataclass, field

from trazo.extensions import db
from trazo.models.workspaces import Membership

PASSWORD = "Sturdy-Passw0rd!"
NEW_PASSWORD = "Renewed#Secret-2026"
API = "/api/v1"
UNKNOWN_ID = "00000000-0000-4000-8000-000000000000"
OUTSIDE_API = ("/api/", "/health", "/openapi.json", "/docs", "/redoc")


@dataclass
class ApiClient:
    """Flask test client with a client address (REMOTE_ADDR), an optional token and language."""

    flask_client: object
    ip: str
    token: str | None = None
    profile: dict = field(default_factory=dict)
    password: str | None = None

    @property
    def id(self):
        return self.profile.get("id")

    @property
    def email(self):
        return self.profile.get("email")

    def signed_in(self, token, profile=None, password=None):
        return ApiClient(self.flask_client, self.ip, token, profile or self.profile, password or self.password)

    def request(self, method, path, token=..., lang=None, headers=None, **kwargs):
        url = path if path == "/" or path.startswith(OUTSIDE_API) else API + path
        sent = dict(headers or {})
        token = self.token if token is ... else token
        if token:
            sent["Authorization"] = f"Bearer {token}"
        if lang:
            sent["Accept-Language"] = lang
        return self.flask_client.open(url, method=method, headers=sent,
                                      environ_base={"REMOTE_ADDR": self.ip}, **kwargs)

    def get(self, path, **kwargs):
        return self.request("GET", path, **kwargs)

    def post(self, path, **kwargs):
        return self.request("POST", path, **kwargs)

    def put(self, path, **kwargs):
        return self.request("PUT", path, **kwargs)

    def delete(self, path, **kwargs):
        return self.request("DELETE", path, **kwargs)


def error_detail(response, status, error_code=None):
    """Assert status and the {"detail": ...} shape (with `error_code` beside it when given); return the detail."""
    assert response.status_code == status, (response.status_code, response.get_data(as_text=True)[:500])
    body = response.get_json()
    if error_code is None:
        assert isinstance(body, dict) and set(body) == {"detail"}, body
    else:
        assert isinstance(body, dict) and set(body) == {"detail", "error_code"}, body
        assert body["error_code"] == error_code and isinstance(body["detail"], str), body
    return body["detail"]


def validation_errors(response, field=None, where="body"):
    """Assert a 422 in FastAPI's list shape; optionally that `field` is among the locations."""
    detail = error_detail(response, 422)
    assert isinstance(detail, list) and detail, detail
    for item in detail:
        assert set(item) >= {"loc", "msg", "type"}, item
        assert item["loc"][0] in ("body", "query", "path", "header"), item
    if field:
        assert any(item["loc"][0] == where and field in item["loc"] for item in detail), detail
    return detail


# -- content factories (through the HTTP API) --------------------------------------------

def create_project(client, **fields):
    response = client.post("/projects", json={"name": "Project", **fields})
    assert response.status_code == 201, response.json
    return response.json


def create_folder(client, project_id, **fields):
    response = client.post(f"/projects/{project_id}/folders", json={"name": "Folder", **fields})
    assert response.status_code == 201, response.json
    return response.json


def create_diagram(client, project_id, **fields):
    body = {"title": "Diagram", "diagram_type": "mermaid", "content": "graph TD\n  A --> B", **fields}
    response = client.post(f"/projects/{project_id}/diagrams", json=body)
    assert response.status_code == 201, response.json
    return response.json


def save_diagram(web, diagram_id, **fields):
    """PUT the fields, assert 200, return the diagram."""
    response = web.put(f"/diagrams/{diagram_id}", json=fields)
    assert response.status_code == 200, response.json
    return response.json


def share(client, diagram_id, **fields):
    """Create the diagram's shared link over HTTP; its JSON."""
    response = client.post("/shared-links", json={"diagram_id": diagram_id, **fields})
    assert response.status_code == 201, response.json
    return response.json


SHARE_CODE = "Sesame-42"  # the access code of the `protected` fixture's link (tests/conftest.py)


def add_provider(client, provider="openai", **fields):
    """Configure a provider for `client` over HTTP (the fake server answers the key check)."""
    body = {"provider": provider, "api_key": "sk-test-0123456789", "model": f"{provider}-model", **fields}
    if provider in ("ollama", "openai_compatible") and "base_url" not in fields:
        raise ValueError("self-hosted providers need base_url (e.g. fake_providers.openai.url)")
    response = client.post("/ai/providers", json=body)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def at_once(count, action):
    """`action(index)` in `count` threads released at the same instant; their results, sorted."""
    barrier, results = threading.Barrier(count), []

    def run(index):
        barrier.wait()
        results.append(action(index))

    threads = [threading.Thread(target=run, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sorted(results)


# -- teams (docs/teams.md) ---------------------------------------------------------------

def set_role(app, workspace_id, member, role):
    """Make `member` (an ApiClient or a user id) a member of `workspace_id` with `role`, straight in the
    database (no invitation, no members limit, no log entry): a test's arrangement, not a way in."""
    user_id = getattr(member, "id", member)
    with app.app_context():
        membership = db.session.get(Membership, (workspace_id, user_id))
        if membership is None:
            db.session.add(Membership(workspace_id=workspace_id, user_id=user_id, role=role))
        else:
            membership.role = role
        db.session.commit()
        db.session.remove()


def team_members(members):
    """(member, role) pairs of a `members` argument: a dict {user id: role} or pairs (ApiClient or id, role)."""
    return list(members.items()) if isinstance(members, dict) else list(members or ())
