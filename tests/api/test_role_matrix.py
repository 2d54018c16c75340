"""The role matrix (docs/teams.md): every operation of /openapi.json on a workspace's content, members,
invitations or invite links declares the workspace role it needs (`x-role`), and over HTTP each of
{non-member, viewer, commenter, editor, admin, owner} of a team workspace gets 404, 403 `insufficient_role`,
or the operation's own answer, as the declaration says.

An operation added there without a declared need fails `test_every_content_operation_declares_its_role`
(or has to be added, with a reason, to EXEMPT); one declared without a request in REQUESTS fails
`test_every_declared_operation_has_a_request_in_the_matrix`.
"""
import io
import re
import threading
from dataclasses import dataclass

import pytest

from trazo.core.workspaces.personal import personal_workspace_id
from trazo.extensions import db
from trazo.models.base import new_id
from trazo.models.chat import ROLE_ASSISTANT, ChatMessage, ChatSession
from trazo.models.workspaces import COMMENTER, OWNER, RANK, ROLES, VIEWER

from ..helpers import add_provider, create_diagram, create_folder, set_role, share

METHODS = ("get", "put", "post", "delete", "patch")
API = "/api/v1"
MERMAID = "graph TD\n  A --> B"
TEAM_NAME = "Team"
# A path naming one of these (or under one of these prefixes) reaches a workspace: its content, its members,
# its invitations or invite links.
CONTENT_PARAMETERS = ("{project_id}", "{folder_id}", "{diagram_id}", "{link_id}", "{session_id}", "{file_path}",
                      "{message_id}", "{workspace_id}", "{comment_id}")
CONTENT_PREFIXES = ("/projects", "/folders", "/diagrams", "/shared-links", "/chat-sessions", "/prompt-history",
                    "/workspaces", "/invitations", "/invite-links", "/comments", "/events")
# Operations of those areas without a workspace role, each for its reason.
EXEMPT = {
    ("GET", "/projects"),  # lists the projects of the caller's own workspaces (no one object)
    ("POST", "/projects"),  # the workspace is an optional body field; the service checks editor (projects tests)
    ("GET", "/diagrams/recent"),  # spans the caller's own workspaces
    ("POST", "/diagrams/convert"),  # converts code sent in the body; no stored diagram
    ("POST", "/diagrams/render"),  # renders code sent in the body
    ("GET", "/diagrams/render/engines"),  # the installation's engines
    ("GET", "/prompt-history"),  # the caller's own prompts
    ("DELETE", "/prompt-history/{entry_id}"),  # one of the caller's own prompts
    ("GET", "/chat-sessions/stats/provider-usage"),  # counts over the caller's own sessions
    ("GET", "/workspaces"),  # lists the caller's own workspaces
    ("POST", "/workspaces"),  # makes a new team workspace, the caller its owner
    ("GET", "/invitations/{token}"),  # by the token of an invitation, for someone not yet a member
    ("POST", "/invitations/{token}/accept"),  # the invited address joins (tests/api/invitations)
    ("POST", "/invite-links/{token}/join"),  # anyone with the link joins (tests/api/invitations)
}


@dataclass
class Objects:
    """A fresh set of a team workspace's content, members, invitation and invite link, made for one call."""

    project_id: str
    folder_id: str
    diagram_id: str
    link_id: str  # a shared link
    session_id: str
    message_id: str
    file_path: str
    target_project_id: str
    personal_workspace_id: str
    workspace_id: str
    member_id: str  # a viewer made for this call, to change or remove
    co_owner_id: str  # the team's other owner
    invitation_id: str
    invite_link_id: str
    password: str  # the caller's
    comment_id: str  # a thread on the diagram, the caller's when they may comment (editing is the author's)


def _send_body():
    return {"content": "Add a step", "diagram_code": MERMAID, "diagram_type": "mermaid"}


def _upload():
    return {"data": {"files": (io.BytesIO(MERMAID.encode()), "imported.mmd")}, "content_type": "multipart/form-data"}


# (method, documented path) -> (the request's keyword arguments from the objects, the allowed answer's status);
# "path" among the arguments names a path parameter's value where it is not the objects' field of that name.
REQUESTS = {
    ("GET", "/projects/{project_id}"): (lambda o: {}, 200),
    ("PUT", "/projects/{project_id}"): (lambda o: {"json": {"name": "Renamed"}}, 200),
    ("DELETE", "/projects/{project_id}"): (lambda o: {}, 200),
    ("POST", "/projects/{project_id}/transfer"): (lambda o: {"json": {"workspace_id": o.personal_workspace_id}},
                                                 200),
    ("GET", "/projects/{project_id}/export"): (lambda o: {}, 200),
    ("GET", "/projects/{project_id}/export/summary"): (lambda o: {}, 200),
    ("POST", "/projects/{project_id}/import"): (lambda o: {"query_string": {"dry_run": "true"}, **_upload()}, 200),
    ("POST", "/projects/{project_id}/folders"): (lambda o: {"json": {"name": "New folder"}}, 201),
    ("POST", "/projects/{project_id}/diagrams"): (lambda o: {"json": {"title": "New", "diagram_type": "mermaid",
                                                                      "content": MERMAID}}, 201),
    ("GET", "/projects/{project_id}/files"): (lambda o: {}, 200),
    ("GET", "/projects/{project_id}/files/{file_path}"): (lambda o: {}, 200),
    ("PUT", "/projects/{project_id}/files/{file_path}"): (lambda o: {"data": "graph TD\n  X --> Y",
                                                                     "content_type": "text/plain"}, 200),
    ("DELETE", "/projects/{project_id}/files/{file_path}"): (lambda o: {}, 204),
    ("POST", "/projects/{project_id}/sync"): (lambda o: {"json": {"files": [{"path": "synced.mmd",
                                                                             "content": MERMAID}]}}, 200),
    ("GET", "/folders/{folder_id}"): (lambda o: {}, 200),
    ("PUT", "/folders/{folder_id}"): (lambda o: {"json": {"name": "Renamed"}}, 200),
    ("DELETE", "/folders/{folder_id}"): (lambda o: {}, 200),
    ("GET", "/diagrams/{diagram_id}"): (lambda o: {}, 200),
    ("PUT", "/diagrams/{diagram_id}"): (lambda o: {"json": {"title": "Renamed"}}, 200),
    ("DELETE", "/diagrams/{diagram_id}"): (lambda o: {}, 200),
    ("POST", "/diagrams/{diagram_id}/move"): (lambda o: {"json": {"target_project_id": o.target_project_id}}, 200),
    ("POST", "/diagrams/{diagram_id}/duplicate"): (lambda o: {"json": {"title": "Copy"}}, 200),
    ("GET", "/diagrams/{diagram_id}/image.{fmt}"): (lambda o: {"path": {"fmt": "svg"}}, 200),
    ("GET", "/diagrams/{diagram_id}/revisions"): (lambda o: {}, 200),
    ("POST", "/diagrams/{diagram_id}/revisions"): (lambda o: {"json": {"label": "v1"}}, 201),
    ("GET", "/diagrams/{diagram_id}/revisions/{number}"): (lambda o: {}, 200),
    ("PUT", "/diagrams/{diagram_id}/revisions/{number}"): (lambda o: {"json": {"label": "Named"}}, 200),
    ("GET", "/diagrams/{diagram_id}/revisions/{number}/diff"): (lambda o: {}, 200),
    ("POST", "/diagrams/{diagram_id}/revisions/{number}/restore"): (lambda o: {}, 200),
    ("POST", "/diagrams/{diagram_id}/fix"): (lambda o: {"json": {}}, 400),
    ("GET", "/diagrams/{diagram_id}/comments"): (lambda o: {}, 200),
    ("POST", "/diagrams/{diagram_id}/comments"): (lambda o: {"json": {"body": "A thread"}}, 201),
    ("POST", "/comments/{comment_id}/replies"): (lambda o: {"json": {"body": "A reply"}}, 201),
    ("PUT", "/comments/{comment_id}"): (lambda o: {"json": {"body": "Edited"}}, 200),
    ("DELETE", "/comments/{comment_id}"): (lambda o: {}, 204),
    ("POST", "/comments/{comment_id}/resolve"): (lambda o: {}, 200),
    ("POST", "/comments/{comment_id}/reopen"): (lambda o: {}, 200),  # past the access check: no provider
    ("POST", "/shared-links"): (lambda o: {"json": {"diagram_id": o.diagram_id}}, 201),
    ("GET", "/shared-links/diagram/{diagram_id}"): (lambda o: {}, 200),
    ("PUT", "/shared-links/{link_id}"): (lambda o: {"json": {"allow_copy_code": False}}, 200),
    ("DELETE", "/shared-links/{link_id}"): (lambda o: {}, 200),
    ("POST", "/prompt-history"): (lambda o: {"json": {"prompt_text": "Draw a login flow", "operation_type": "creation",
                                                      "diagram_id": o.diagram_id}}, 201),
    ("GET", "/chat-sessions"): (lambda o: {"query_string": {"diagram_id": o.diagram_id}}, 200),
    ("POST", "/chat-sessions"): (lambda o: {"json": {"diagram_id": o.diagram_id}}, 201),
    ("GET", "/chat-sessions/{session_id}"): (lambda o: {}, 200),
    ("PUT", "/chat-sessions/{session_id}"): (lambda o: {"json": {"title": "Renamed"}}, 200),
    ("DELETE", "/chat-sessions/{session_id}"): (lambda o: {}, 200),
    ("PUT", "/chat-sessions/{session_id}/model"): (lambda o: {"json": {"provider": "openai", "model": "gpt-test"}},
                                                   200),
    ("POST", "/chat-sessions/{session_id}/messages"): (lambda o: {"json": _send_body()}, 201),
    ("POST", "/chat-sessions/{session_id}/messages/stream"): (lambda o: {"json": _send_body()}, 200),
    ("DELETE", "/chat-sessions/{session_id}/messages/{message_id}"): (lambda o: {}, 200),
    ("PUT", "/chat-sessions/{session_id}/messages/{message_id}/status"): (lambda o: {"json": {"status": "accepted"}},
                                                                          200),
    ("GET", "/workspaces/{workspace_id}"): (lambda o: {}, 200),
    ("PUT", "/workspaces/{workspace_id}"): (lambda o: {"json": {"name": "Renamed team"}}, 200),
    ("DELETE", "/workspaces/{workspace_id}"): (lambda o: {"json": {"confirmation": TEAM_NAME,
                                                                   "password": o.password}}, 200),
    ("GET", "/workspaces/{workspace_id}/members"): (lambda o: {}, 200),
    # viewer to commenter: within what an admin may grant (owner would be refused by the owner rule)
    ("PUT", "/workspaces/{workspace_id}/members/{member_id}"): (lambda o: {"json": {"role": "commenter"}}, 200),
    ("DELETE", "/workspaces/{workspace_id}/members/{member_id}"): (lambda o: {}, 200),
    ("POST", "/workspaces/{workspace_id}/leave"): (lambda o: {}, 200),  # the owner leaves the co-owner behind
    ("PUT", "/workspaces/{workspace_id}/billing-owner"): (lambda o: {"json": {"user_id": o.co_owner_id}}, 200),
    ("GET", "/workspaces/{workspace_id}/audit-log"): (lambda o: {}, 200),
    ("GET", "/workspaces/{workspace_id}/invitations"): (lambda o: {}, 200),
    ("POST", "/workspaces/{workspace_id}/invitations"): (lambda o: {"json": {"email": f"invitee-{new_id()}@example.com",
                                                                             "role": VIEWER}}, 201),
    ("DELETE", "/workspaces/{workspace_id}/invitations/{invitation_id}"): (lambda o: {}, 204),
    ("GET", "/workspaces/{workspace_id}/invite-links"): (lambda o: {}, 200),
    ("POST", "/workspaces/{workspace_id}/invite-links"): (lambda o: {"json": {"role": VIEWER}}, 201),
    ("DELETE", "/workspaces/{workspace_id}/invite-links/{link_id}"): (lambda o: {"path": {"link_id": o.invite_link_id}},
                                                                      204),
    ("GET", "/diagrams/{diagram_id}/events"): (lambda o: {}, 200),
    ("GET", "/workspaces/{workspace_id}/events"): (lambda o: {}, 200),
    ("POST", "/events/tickets"): (lambda o: {"json": {"diagram_id": o.diagram_id}}, 201),
}
NEEDS_PROVIDER = {("POST", "/chat-sessions/{session_id}/messages")}
STREAMS = {("POST", "/chat-sessions/{session_id}/messages/stream")}
# Change feeds never end by themselves: opened unbuffered, their answer is the status, then they are closed.
FEEDS = {("GET", "/diagrams/{diagram_id}/events"), ("GET", "/workspaces/{workspace_id}/events")}


def _content_operations(spec):
    for path, item in spec["paths"].items():
        if not path.startswith(API):
            continue
        short = path[len(API):]
        for method, operation in item.items():
            if method in METHODS and (any(name in short for name in CONTENT_PARAMETERS)
                                      or short.startswith(CONTENT_PREFIXES)):
                yield (method.upper(), short), operation


@pytest.fixture(scope="module")
def spec(app):
    return app.test_client().get("/openapi.json").json


def test_every_content_operation_declares_its_role(spec):
    undeclared = sorted(key for key, operation in _content_operations(spec)
                        if "x-role" not in operation and key not in EXEMPT)
    assert not undeclared, f"content operations without role= (or a reason in EXEMPT): {undeclared}"
    assert EXEMPT <= {key for key, _operation in _content_operations(spec)}, "EXEMPT names a gone operation"


def test_every_declared_operation_has_a_request_in_the_matrix(spec):
    declared = {key for key, operation in _content_operations(spec) if "x-role" in operation}
    assert declared == set(REQUESTS), (sorted(declared - set(REQUESTS)), sorted(set(REQUESTS) - declared))
    for key, operation in _content_operations(spec):
        if "x-role" in operation:
            assert operation["x-role"] in ROLES
            assert operation["responses"]["403"], key


@dataclass
class Team:
    workspace_id: str
    owner: object
    members: dict  # role -> client
    co_owner: object  # a second owner: the owner may leave and hand billing over to them
    outsider: object
    make_user: object  # the factory, for a member to change or remove in each call


@pytest.fixture
def team(make_user, make_team):
    """A team workspace with one member of each role (the owner, first, is the installation's admin: no plan
    limit gets in the way of the content made for every call), a second owner, and an outsider."""
    owner = make_user(full_name="Owner")
    members = {role: owner if role == OWNER else make_user(full_name=role.title()) for role in ROLES}
    co_owner = make_user(full_name="Co-owner")
    outsider = make_user(full_name="Outsider")
    workspace = make_team(owner, members=[*((members[role], role) for role in ROLES if role != OWNER),
                                          (co_owner, OWNER)], name=TEAM_NAME)
    return Team(workspace["id"], owner, members, co_owner, outsider, make_user)


def _project(client, workspace_id, name):
    response = client.post("/projects", json={"name": name, "workspace_id": workspace_id})
    assert response.status_code == 201, response.json
    return response.json["id"]


def _created(response):
    assert response.status_code == 201, response.json
    return response.json["id"]


def build(app, team, caller):
    """Fresh content in the team workspace (made by its owner), a chat session of `caller` on its diagram
    with a proposal in it (the outsider's: a session left from when they were a member), and a fresh viewer,
    invitation and invite link of the workspace."""
    member = team.make_user(full_name="Member")
    set_role(app, team.workspace_id, member, VIEWER)
    invitation_id = _created(team.owner.post(f"/workspaces/{team.workspace_id}/invitations",
                                             json={"email": f"invited-{new_id()}@example.com", "role": VIEWER}))
    invite_link_id = _created(team.owner.post(f"/workspaces/{team.workspace_id}/invite-links",
                                              json={"role": VIEWER}))
    project_id = _project(team.owner, team.workspace_id, "Matrix")
    folder_id = create_folder(team.owner, project_id)["id"]
    diagram = create_diagram(team.owner, project_id, title="Flow", content=MERMAID)
    link = share(team.owner, diagram["id"])
    files = team.owner.get(f"/projects/{project_id}/files").json["files"]
    commenting = caller in team.members.values() and RANK[_role_of(team, caller)] >= RANK[COMMENTER]
    comment_id = _created((caller if commenting else team.owner).post(f"/diagrams/{diagram['id']}/comments",
                                                                       json={"body": "A thread"}))
    with app.app_context():
        session = ChatSession(id=new_id(), user_id=caller.id, diagram_id=diagram["id"])
        db.session.add(session)
        db.session.flush()
        message = ChatMessage(id=new_id(), session_id=session.id, role=ROLE_ASSISTANT, content="Try this",
                              improved_code=MERMAID + "\n  B --> C", improvement_status="pending")
        db.session.add(message)
        db.session.commit()
        personal = personal_workspace_id(caller.id)
        objects = Objects(project_id, folder_id, diagram["id"], link["id"], session.id, message.id,
                          files[0]["path"], _project(team.owner, team.workspace_id, "Target"), personal,
                          team.workspace_id, member.id, team.co_owner.id, invitation_id, invite_link_id,
                          caller.password, comment_id)
    return objects


def _role_of(team, caller):
    return next(role for role, member in team.members.items() if member is caller)


def _url(path, objects, kwargs):
    values = {**vars(objects), "number": 1, **kwargs.pop("path", {})}
    return re.sub(r"{(\w+)}", lambda match: str(values[match.group(1)]), path)


def _wait_for_streams(timeout=10):
    for thread in threading.enumerate():
        if thread.name == "chat-stream":
            thread.join(timeout)


def _callers(team):
    yield None, team.outsider
    for role in ROLES:
        yield role, team.members[role]


@pytest.fixture
def declared(spec):
    return {key: operation["x-role"] for key, operation in _content_operations(spec) if "x-role" in operation}


@pytest.mark.usefixtures("kroki", "fake_providers")
@pytest.mark.parametrize("key", sorted(REQUESTS), ids=lambda key: f"{key[0]} {key[1]}")
def test_each_role_gets_what_the_operation_declares(app, team, declared, key, configure):
    method, path = key
    need = declared[key]
    request, allowed = REQUESTS[key]
    if key in FEEDS:  # the test client waits for a stream's first chunk: a keep-alive comes at once
        configure(SSE_KEEPALIVE_SECONDS=0.05)
    for role, caller in _callers(team):
        objects = build(app, team, caller)
        if key in NEEDS_PROVIDER:
            add_provider(caller, model="gpt-test")
        kwargs = request(objects)
        response = caller.request(method, _url(path, objects, kwargs), buffered=key not in FEEDS, **kwargs)
        if key in FEEDS and response.status_code == 200:
            response.close()
            body = ""
        else:
            body = response.get_data().decode(errors="replace")
        _wait_for_streams()
        case = (role, need, response.status_code, body[:300])
        if role is None:
            assert response.status_code == 404, case
        elif RANK[role] < RANK[need]:
            assert response.status_code == 403 and response.json["error_code"] == "insufficient_role", case
        else:
            assert response.status_code == allowed, case
