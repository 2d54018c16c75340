"""What the MCP tools may do (docs/mcp.md, "Access" and "Writes"): the token's scope and the user's role in the
workspace decide, and a refusal is a tool error (`isError` with the reason), never a JSON-RPC error; a non-member's
diagram is "not found"; a stale version is refused; every write is a revision with source `mcp` and an `mcp_write`
entry of the security audit log."""
import shutil

import pytest

from ...helpers import create_diagram, create_project, set_role

GRAPH = "digraph G {\n  login -> dashboard\n}\n"
BROKEN = "digraph G {\n  login -> dashboard\n  -> -> broken\n}\n"


@pytest.fixture
def writer(user, mint, rpc):
    return rpc(mint(user, ["write"], name="writer"))


@pytest.fixture
def reader(user, mint, rpc):
    return rpc(mint(user, ["read"], name="reader"))


def _refused(result, status, text):
    """Assert a tool error with `status` and `text` in its message; the structured part."""
    assert result["isError"] is True, result
    assert text in result["content"][0]["text"], result["content"]
    assert result["structuredContent"]["status"] == status, result["structuredContent"]
    return result["structuredContent"]


def _write(mcp, project_id, path="docs/flow.mmd", content="graph TD\n  A --> B", **extra):
    return mcp.call("write_diagram", {"project_id": project_id, "path": path, "content": content, **extra})


def test_a_read_token_reads_but_every_write_tool_is_a_tool_error(reader, user, project):
    diagram = create_diagram(user, project["id"])
    assert reader.call("read_diagram", {"diagram_id": diagram["id"]})["isError"] is False
    for tool, arguments in (("write_diagram", {"project_id": project["id"], "path": "a.mmd", "content": "graph TD"}),
                            ("restore_revision", {"diagram_id": diagram["id"], "number": 1}),
                            ("add_comment", {"diagram_id": diagram["id"], "body": "hi"})):
        _refused(reader.call(tool, arguments), 403, "can only read")
    assert user.get(f"/projects/{project['id']}/files").json["files"][0]["version"] == 1
    assert user.get(f"/diagrams/{diagram['id']}/comments").json["total"] == 0


def test_a_viewer_s_write_token_cannot_write_and_a_commenter_may_only_comment(app, user, other_user, make_team, mint,
                                                                              rpc):
    team = make_team(user, members=[(other_user, "viewer")])
    project = create_project(user, name="Team", workspace_id=team["id"])
    diagram = create_diagram(user, project["id"])
    viewer = rpc(mint(other_user, ["write"]))
    assert viewer.call("read_diagram", {"diagram_id": diagram["id"]})["isError"] is False
    refused = _refused(_write(viewer, project["id"]), 403, "role")
    assert refused["error_code"] == "insufficient_role"
    _refused(viewer.call("add_comment", {"diagram_id": diagram["id"], "body": "hi"}), 403, "role")
    _refused(viewer.call("restore_revision", {"diagram_id": diagram["id"], "number": 1}), 403, "role")
    set_role(app, team["id"], other_user, "commenter")
    assert viewer.call("add_comment", {"diagram_id": diagram["id"], "body": "hi"})["isError"] is False
    _refused(_write(viewer, project["id"]), 403, "role")


def test_a_diagram_of_a_workspace_the_user_is_not_in_is_not_found(other_user, mint, rpc, user, project):
    diagram = create_diagram(user, project["id"])
    stranger = rpc(mint(other_user, ["write"]))
    for tool, arguments in (("read_diagram", {"diagram_id": diagram["id"]}),
                            ("render_diagram", {"diagram_id": diagram["id"]}),
                            ("list_revisions", {"diagram_id": diagram["id"]}),
                            ("diff_revisions", {"diagram_id": diagram["id"], "from": 1}),
                            ("list_comments", {"diagram_id": diagram["id"]}),
                            ("add_comment", {"diagram_id": diagram["id"], "body": "hi"}),
                            ("restore_revision", {"diagram_id": diagram["id"], "number": 1})):
        _refused(stranger.call(tool, arguments), 404, "Diagram not found")
    for tool, arguments in (("list_files", {"project_id": project["id"]}),
                            ("read_diagram", {"project_id": project["id"], "path": "Diagram.mmd"})):
        _refused(stranger.call(tool, arguments), 404, "Project not found")
    _refused(_write(stranger, project["id"]), 404, "Project not found")
    assert stranger.call("list_projects")["structuredContent"] == {"projects": []}


def test_a_stale_expected_version_is_refused_with_the_current_one(writer, user, project):
    first = _write(writer, project["id"])["structuredContent"]
    assert user.put(f"/diagrams/{first['diagram_id']}", json={"content": "graph TD\n  A --> C"}).status_code == 200
    stale = _refused(_write(writer, project["id"], content="graph TD\n  A --> D", expected_version=1), 412,
                     "changed elsewhere")
    assert stale == {"status": 412, "error_code": "version_conflict", "current_version": 2}
    missing = _refused(_write(writer, project["id"], path="new.mmd", expected_version=1), 412, "no file")
    assert missing["error_code"] == "file_missing"
    assert user.get(f"/diagrams/{first['diagram_id']}").json["content"] == "graph TD\n  A --> C"


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz (dot) is not installed here")
@pytest.mark.usefixtures("local_backend", "empty_render_cache")
def test_a_diagram_that_does_not_draw_is_stored_and_the_answer_names_its_line(writer, user, project):
    result = _write(writer, project["id"], path="broken.dot", content=BROKEN)
    written = result["structuredContent"]
    assert result["isError"] is False and written["draws"] is False and written["line"] == 3
    assert written["error"].startswith("Syntax error on line 3")
    assert user.get(f"/diagrams/{written['diagram_id']}").json["content"] == BROKEN


@pytest.mark.usefixtures("local_backend")
def test_a_diagram_no_engine_here_draws_is_stored_with_draws_null(writer, project):
    written = _write(writer, project["id"], path="notes.txt", content="[x] --> [y]",
                     diagram_type="nomnoml")["structuredContent"]
    assert written["draws"] is None and written["error"] and written["type"] == "nomnoml"
    sketch = _write(writer, project["id"], path="s.freehand.json", content='{"elements": []}')["structuredContent"]
    assert sketch["draws"] is None and "Freehand" in sketch["error"]


def test_every_write_is_a_revision_of_source_mcp_and_an_audit_entry(writer, user, admin, project):
    written = _write(writer, project["id"])["structuredContent"]
    _write(writer, project["id"], content="graph TD\n  A --> Z")
    assert writer.call("restore_revision", {"diagram_id": written["diagram_id"], "number": 1})["isError"] is False
    assert writer.call("add_comment", {"diagram_id": written["diagram_id"], "body": "done"})["isError"] is False
    revisions = user.get(f"/diagrams/{written['diagram_id']}/revisions").json["items"]
    assert [(item["number"], item["source"]) for item in revisions] == [(3, "mcp"), (2, "mcp"), (1, "mcp")]
    entries = admin.get("/admin/audit-log", query_string={"event": "mcp_write"}).json["items"]
    tools = sorted(entry["details"]["tool"] for entry in entries)
    assert tools == ["add_comment", "restore_revision", "write_diagram", "write_diagram"]
    token = user.get("/users/me/tokens").json
    writer_token = next(item for item in token if item["name"] == "writer")
    assert {entry["details"]["token_prefix"] for entry in entries} == {writer_token["prefix"]}
    assert all(entry["user_id"] == user.id and "trz_" not in str(entry["details"]).replace(writer_token["prefix"], "")
               for entry in entries)


def test_a_refused_write_changes_nothing_and_is_not_audited(writer, admin, project, configure):
    configure(MAX_DIAGRAM_CONTENT_BYTES=10)
    _refused(_write(writer, project["id"], content="graph TD\n  A --> B"), 422, "too large")
    assert admin.get("/admin/audit-log", query_string={"event": "mcp_write"}).json["total"] == 0


def test_a_bad_path_or_comment_anchor_is_invalid_params(writer, user, project):
    diagram = create_diagram(user, project["id"], content="graph TD\n  A --> B")
    for arguments in ({"project_id": project["id"], "path": "a/.git/x.mmd", "content": "x"},
                      {"project_id": project["id"], "path": "flow.MMD", "content": "x"}):
        response = writer.modern("tools/call", {"name": "write_diagram", "arguments": arguments})
        assert response.status_code == 400 and response.json()["error"]["code"] == -32602
    for anchor in ({"type": "lines", "start_line": 2}, {"type": "lines", "start_line": 3, "end_line": 2},
                   {"type": "element"}):
        response = writer.modern("tools/call", {"name": "add_comment", "arguments": {
            "diagram_id": diagram["id"], "body": "x", "anchor": anchor}})
        assert response.status_code == 400 and response.json()["error"]["code"] == -32602, anchor
    outside = writer.call("add_comment", {"diagram_id": diagram["id"], "body": "x",
                                          "anchor": {"type": "lines", "start_line": 5, "end_line": 9}})
    _refused(outside, 422, "outside")


def test_tools_spend_the_per_user_limits_of_their_routes(writer, user, project, configure):
    configure(RATE_LIMIT_COMMENTS="1/minute")
    diagram = create_diagram(user, project["id"])
    assert writer.call("add_comment", {"diagram_id": diagram["id"], "body": "one"})["isError"] is False
    limited = _refused(writer.call("add_comment", {"diagram_id": diagram["id"], "body": "two"}), 429, "Too many")
    assert limited["retry_after"] > 0


def test_refusals_speak_the_caller_s_language(reader, project):
    response = reader.modern("tools/call", {"name": "write_diagram", "arguments": {
        "project_id": project["id"], "path": "a.mmd", "content": "graph TD"}}, headers={"Accept-Language": "es"})
    assert response.json()["result"]["content"][0]["text"].startswith("Este token de acceso personal solo puede leer")
    invalid = reader.modern("tools/call", {"name": "list_files", "arguments": {}}, headers={"Accept-Language": "es"})
    assert invalid.json()["error"]["data"]["problems"] == ["arguments.project_id es obligatorio."]
