"""Every MCP tool's happy path, called with the official SDK client over Streamable HTTP (docs/mcp.md, "Tools"):
the client checks each structuredContent against the tool's outputSchema, so a result that drifts from its schema
fails here too."""
import base64
import json
import shutil

import pytest

from ...helpers import create_diagram, create_project
from ...pngs import decode

GRAPH = "digraph G {\n  login -> dashboard\n}\n"
BROKEN = "digraph G {\n  login -> dashboard\n  -> -> broken\n}\n"
needs_graphviz = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz (dot) is not installed here")


@pytest.fixture
def token(user, mint):
    return mint(user, ["write"])


@pytest.fixture
def call(sdk, token):
    """call(name, arguments) -> the tool's CallToolResult, through the SDK client (2026-07-28)."""

    def run(name, arguments=None, mode="auto"):
        async def action(client):
            return await client.call_tool(name, arguments or {})

        return sdk(token, action, mode=mode)

    return run


def _structured(result):
    """The structured result of a call that succeeded, after checking its text block says the same."""
    assert result.is_error is False, result.content
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


def test_list_workspaces_names_each_workspace_with_the_caller_s_role(call, user, make_team):
    team = make_team(user, name="Platform")
    workspaces = _structured(call("list_workspaces"))["workspaces"]
    assert [(workspace["kind"], workspace["role"]) for workspace in workspaces] == [("personal", "owner"),
                                                                                   ("team", "owner")]
    assert workspaces[1]["id"] == team["id"] and workspaces[1]["name"] == "Platform"


def test_list_projects_spans_the_workspaces_or_keeps_to_one(call, user, make_team):
    team = make_team(user)
    mine = create_project(user, name="Mine")
    theirs = create_project(user, name="Team's", workspace_id=team["id"])
    create_diagram(user, theirs["id"])
    projects = _structured(call("list_projects"))["projects"]
    assert {project["name"] for project in projects} == {"Mine", "Team's"}
    only = _structured(call("list_projects", {"workspace_id": team["id"]}))["projects"]
    assert [(project["id"], project["diagram_count"], project["diagram_type_counts"]) for project in only] == [
        (theirs["id"], 1, {"mermaid": 1})]
    assert mine["id"] not in {project["id"] for project in only}


def test_list_files_and_read_diagram_address_diagrams_by_path(call, user, project):
    assert user.put(f"/projects/{project['id']}/files/docs/flow.mmd", data="graph TD\n  A --> B",
                    content_type="text/plain").status_code == 201
    files = _structured(call("list_files", {"project_id": project["id"]}))
    (listed,) = files["files"]
    assert listed["path"] == "docs/flow.mmd" and listed["type"] == "mermaid" and listed["version"] == 1
    by_path = _structured(call("read_diagram", {"project_id": project["id"], "path": "docs/flow.mmd"}))
    by_id = _structured(call("read_diagram", {"diagram_id": listed["diagram_id"]}))
    assert by_path == by_id
    assert by_id["content"] == "graph TD\n  A --> B" and by_id["path"] == "docs/flow.mmd" and by_id["version"] == 1
    assert by_id["title"] == "flow" and by_id["diagram_type"] == "mermaid"


@needs_graphviz
@pytest.mark.usefixtures("local_backend", "empty_render_cache")
def test_write_diagram_creates_then_updates_by_path_and_says_whether_it_draws(call, user, project):
    created = _structured(call("write_diagram", {"project_id": project["id"], "path": "arch/login.dot",
                                                 "content": GRAPH, "description": "Login"}))
    assert created["created"] is True and created["draws"] is True and created["version"] == 1
    assert created["path"] == "arch/login.dot" and created["type"] == "graphviz"
    updated = _structured(call("write_diagram", {"project_id": project["id"], "path": "arch/login.dot",
                                                 "content": GRAPH.replace("dashboard", "home"),
                                                 "expected_version": 1}))
    assert updated["created"] is False and updated["version"] == 2 and updated["draws"] is True
    assert updated["diagram_id"] == created["diagram_id"]
    diagram = user.get(f"/diagrams/{created['diagram_id']}").json
    assert "home" in diagram["content"] and diagram["description"] == "Login"


@needs_graphviz
@pytest.mark.usefixtures("local_backend", "empty_render_cache")
def test_validate_diagram_draws_a_source_and_names_the_line_of_an_error(call):
    assert _structured(call("validate_diagram", {"diagram_type": "graphviz", "source": GRAPH})) == {"valid": True}
    broken = _structured(call("validate_diagram", {"diagram_type": "dot", "source": BROKEN}))
    assert broken["valid"] is False and broken["line"] == 3 and broken["error"].startswith("Syntax error on line 3")
    unknown = call("validate_diagram", {"diagram_type": "visio", "source": "x"})
    assert unknown.is_error is True and "Unsupported diagram type" in unknown.content[0].text


@needs_graphviz
@pytest.mark.usefixtures("local_backend", "empty_render_cache")
def test_render_diagram_answers_svg_as_text_and_png_as_an_image(call, user, project):
    diagram = create_diagram(user, project["id"], diagram_type="graphviz", content=GRAPH)
    svg = call("render_diagram", {"diagram_id": diagram["id"]})
    assert svg.is_error is False and svg.content[0].type == "text" and "<svg" in svg.content[0].text
    assert svg.structured_content["mime_type"] == "image/svg+xml"
    assert svg.structured_content["diagram_id"] == diagram["id"]
    png = call("render_diagram", {"diagram_type": "graphviz", "source": GRAPH, "format": "png"})
    assert png.is_error is False and png.content[0].type == "image" and png.content[0].mime_type == "image/png"
    data = base64.b64decode(png.content[0].data)
    assert decode(data) and png.structured_content["bytes"] == len(data)
    assert png.structured_content == {"format": "png", "mime_type": "image/png", "bytes": len(data), "complete": True,
                                      "diagram_type": "graphviz", "diagram_id": None}


@pytest.mark.usefixtures("local_backend", "empty_render_cache")
def test_render_and_validate_say_why_they_cannot_draw(call):
    failed = call("render_diagram", {"diagram_type": "visio", "source": "x"})
    assert failed.is_error is True and "Unsupported diagram type" in failed.content[0].text
    assert failed.structured_content["status"] == 400


def test_history_tools_list_compare_and_restore_revisions(call, user, project):
    diagram = create_diagram(user, project["id"], content="graph TD\n  A --> B")
    assert user.put(f"/diagrams/{diagram['id']}", json={"content": "graph TD\n  A --> C"}).status_code == 200
    listed = _structured(call("list_revisions", {"diagram_id": diagram["id"]}))
    assert listed["total"] == 2 and [item["number"] for item in listed["items"]] == [2, 1]
    assert listed["items"][0]["author"]["full_name"] == "Test User"
    diff = _structured(call("diff_revisions", {"diagram_id": diagram["id"], "from": 1, "to": 2}))
    assert diff["from"]["number"] == 1 and diff["to"]["number"] == 2
    assert "-  A --> B" in diff["diff"] and "+  A --> C" in diff["diff"] and diff["lines_added"] == 1
    against_now = _structured(call("diff_revisions", {"diagram_id": diagram["id"], "from": 1}))
    assert against_now["to"]["number"] is None and against_now["diff"] == diff["diff"].replace("revision 2", "current")
    restored = _structured(call("restore_revision", {"diagram_id": diagram["id"], "number": 1}))
    assert restored["restored"] is True and restored["version"] == 3 and restored["number"] == 1
    assert user.get(f"/diagrams/{diagram['id']}").json["content"] == "graph TD\n  A --> B"
    again = _structured(call("restore_revision", {"diagram_id": diagram["id"], "number": 1}))
    assert again["restored"] is False and again["version"] == 3


def test_comment_tools_add_and_list_threads(call, user, project):
    diagram = create_diagram(user, project["id"], content="graph TD\n  A --> B\n  B --> C")
    made = _structured(call("add_comment", {"diagram_id": diagram["id"], "body": "Is B right?",
                                            "anchor": {"type": "lines", "start_line": 2, "end_line": 2}}))
    assert made["body"] == "Is B right?" and made["author"]["id"] == user.id
    assert made["anchor"]["quote"] == "  A --> B\n" and made["anchor"]["outdated"] is False
    assert user.post(f"/comments/{made['id']}/replies", json={"body": "Yes"}).status_code == 201
    threads = _structured(call("list_comments", {"diagram_id": diagram["id"]}))
    assert threads["total"] == 1 and threads["items"][0]["id"] == made["id"]
    assert [reply["body"] for reply in threads["items"][0]["replies"]] == ["Yes"]
    assert _structured(call("list_comments", {"diagram_id": diagram["id"], "status": "resolved"}))["total"] == 0


@pytest.mark.usefixtures("local_backend")
def test_diagram_types_lists_what_this_server_draws_with_a_syntax_reminder(call):
    types = {row["type"]: row for row in _structured(call("diagram_types"))["types"]}
    assert types, "the local backend draws at least one language here"
    if "graphviz" in types:
        assert types["graphviz"]["extension"] == ".dot" and "digraph" in types["graphviz"]["syntax"]
        assert types["graphviz"]["engine"] == "graphviz" and types["graphviz"]["version"]


def test_tools_answer_the_same_in_the_handshake_generation(call, user, project):
    create_diagram(user, project["id"], title="Flow")
    modern = _structured(call("list_files", {"project_id": project["id"]}))
    legacy = _structured(call("list_files", {"project_id": project["id"]}, mode="legacy"))
    assert modern == legacy and modern["files"][0]["path"] == "Flow.mmd"


def test_search_diagrams_finds_a_diagram_by_a_word_of_its_source(call, user, project):
    diagram = create_diagram(user, project["id"], title="Checkout", content="graph TD\n  Basket --> Payment")
    found = _structured(call("search_diagrams", {"query": "Payment"}))
    assert [item["diagram_id"] for item in found["items"]] == [diagram["id"]]
    hit = found["items"][0]
    assert hit["path"] == "Checkout.mmd" and hit["title"] == "Checkout"
    assert [hit["snippet"][match["start"]:match["end"]] for match in hit["matches"]] == ["Payment"]
