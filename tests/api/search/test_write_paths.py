"""Every write path keeps the index, in its own transaction (docs/search.md, "How the index is kept"): the
diagrams API, the files API and sync, revision restores, imports, comments, folder and project deletions.
Each test searches before and after the write, over HTTP."""
import io

from ...helpers import create_diagram, create_folder, create_project, save_diagram
from .conftest import hit_of, search, titles


def _deleted(response):
    assert response.status_code == 200 and set(response.json) == {"message"}, response.json


def _ids(client, q):
    return [hit["diagram_id"] for hit in search(client, q)["items"]]


def test_a_created_diagram_is_found_at_once(user, project):
    assert titles(user, "zebra") == []
    diagram = create_diagram(user, project["id"], title="Stripes", content="graph TD\n  zebra --> lion")
    assert _ids(user, "zebra") == [diagram["id"]]


def test_a_saved_content_replaces_the_old_words_and_a_renamed_title_is_found(user, project):
    diagram = create_diagram(user, project["id"], title="Draft", content="graph TD\n  alpha --> beta")
    save_diagram(user, diagram["id"], content="graph TD\n  gamma --> delta")
    assert titles(user, "alpha") == [] and titles(user, "gamma") == ["Draft"]
    save_diagram(user, diagram["id"], title="Final plan", description="Reviewed by finance")
    assert titles(user, "draft") == [] and titles(user, "final plan") == ["Final plan"]
    assert titles(user, "finance") == ["Final plan"]


def test_a_view_only_save_changes_nothing_of_the_index(user, project):
    diagram = create_diagram(user, project["id"], title="Zoomed", content="graph TD\n  kiwi")
    save_diagram(user, diagram["id"], viewport_zoom=2.5)
    assert _ids(user, "kiwi") == [diagram["id"]]


def test_a_moved_diagram_is_found_in_its_new_project_by_the_target_workspace_members(user, make_user, make_team,
                                                                                     project):
    colleague = make_user()
    team = make_team(user, members=[(colleague, "viewer")])
    target = create_project(user, name="Shared", workspace_id=team["id"])
    diagram = create_diagram(user, project["id"], title="Mover", content="graph TD\n  walrus")
    assert titles(colleague, "walrus") == []
    response = user.post(f"/diagrams/{diagram['id']}/move", json={"target_project_id": target["id"]})
    assert response.status_code == 200, response.json
    hit = hit_of(colleague, "walrus", "Mover")
    assert (hit["project_id"], hit["workspace_id"]) == (target["id"], team["id"])


def test_a_duplicate_is_found_beside_its_original(user, project):
    diagram = create_diagram(user, project["id"], title="Original", content="graph TD\n  narwhal")
    response = user.post(f"/diagrams/{diagram['id']}/duplicate", json={"title": "Copy"})
    assert response.status_code == 200, response.json
    assert sorted(titles(user, "narwhal")) == ["Copy", "Original"]


def test_a_deleted_diagram_is_gone(user, project):
    diagram = create_diagram(user, project["id"], title="Doomed", content="graph TD\n  dodo")
    _deleted(user.delete(f"/diagrams/{diagram['id']}"))
    assert search(user, "dodo") == {"items": [], "next_cursor": None}


def test_files_api_writes_and_deletions_keep_the_index(user, project):
    created = user.put(f"/projects/{project['id']}/files/docs/flow.mmd", data="graph TD\n  platypus",
                       content_type="text/plain")
    assert created.status_code == 201, created.json
    hit = hit_of(user, "platypus", "flow")
    assert (hit["diagram_id"], hit["path"]) == (created.json["diagram_id"], "docs/flow.mmd")
    updated = user.put(f"/projects/{project['id']}/files/docs/flow.mmd", data="graph TD\n  echidna",
                       content_type="text/plain")
    assert updated.status_code == 200, updated.json
    assert titles(user, "platypus") == [] and titles(user, "echidna") == ["flow"]
    assert user.delete(f"/projects/{project['id']}/files/docs/flow.mmd").status_code == 204
    assert titles(user, "echidna") == []


def test_a_sync_creates_updates_and_deletes_in_the_index(user, project):
    first = user.post(f"/projects/{project['id']}/sync", json={"files": [
        {"path": "a.mmd", "content": "graph TD\n  axolotl"}, {"path": "b.d2", "content": "bison -> yak"}]})
    assert first.status_code == 200 and first.json["created"] == ["a.mmd", "b.d2"], first.json
    assert titles(user, "axolotl") == ["a"] and titles(user, "yak") == ["b"]
    second = user.post(f"/projects/{project['id']}/sync", json={
        "files": [{"path": "a.mmd", "content": "graph TD\n  capybara"}], "delete_missing": True})
    assert second.status_code == 200, second.json
    assert (second.json["updated"], second.json["deleted"]) == (["a.mmd"], ["b.d2"])
    assert titles(user, "axolotl") == [] and titles(user, "capybara") == ["a"] and titles(user, "yak") == []


def test_a_restored_revision_brings_its_words_back(user, project):
    diagram = create_diagram(user, project["id"], title="History", content="graph TD\n  mammoth")
    save_diagram(user, diagram["id"], content="graph TD\n  elephant")
    response = user.post(f"/diagrams/{diagram['id']}/revisions/1/restore")
    assert response.status_code == 200 and response.json["content"] == "graph TD\n  mammoth", response.json
    assert titles(user, "mammoth") == ["History"] and titles(user, "elephant") == []


def test_imported_diagrams_and_their_comments_are_found(user, project):
    response = user.post(f"/projects/{project['id']}/import", content_type="multipart/form-data",
                         data={"files": [(io.BytesIO(b"graph TD\n  pangolin"), "scales.mmd")]})
    assert response.status_code == 200, response.json
    assert titles(user, "pangolin") == ["scales"]
    diagram = create_diagram(user, project["id"], title="Discussed", content="graph TD\n  ok")
    assert user.post(f"/diagrams/{diagram['id']}/comments", json={"body": "Ask the quokka"}).status_code == 201
    archive = user.get(f"/projects/{project['id']}/export", query_string={"include_history": "true"})
    assert archive.status_code == 200
    copy = create_project(user, name="Copy")
    response = user.post(f"/projects/{copy['id']}/import", content_type="multipart/form-data",
                         data={"files": [(io.BytesIO(archive.data), "export.zip")]})
    assert response.status_code == 200, response.json
    assert sorted((hit["project_id"], hit["title"]) for hit in search(user, "quokka")["items"]) == sorted(
        [(project["id"], "Discussed"), (copy["id"], "Discussed")])


def test_comments_written_edited_and_deleted_keep_the_index(user, project):
    diagram = create_diagram(user, project["id"], title="Talk", content="graph TD\n  A")
    created = user.post(f"/diagrams/{diagram['id']}/comments", json={"body": "What about the tapir?"})
    assert created.status_code == 201, created.json
    reply = user.post(f"/comments/{created.json['id']}/replies", json={"body": "The okapi first"})
    assert reply.status_code == 201, reply.json
    assert titles(user, "tapir") == ["Talk"] and titles(user, "okapi") == ["Talk"]
    edited = user.put(f"/comments/{created.json['id']}", json={"body": "What about the gazelle?"})
    assert edited.status_code == 200, edited.json
    assert titles(user, "tapir") == [] and titles(user, "gazelle") == ["Talk"] and titles(user, "okapi") == ["Talk"]
    assert user.delete(f"/comments/{reply.json['id']}").status_code == 204
    assert titles(user, "okapi") == [] and titles(user, "gazelle") == ["Talk"]
    assert user.delete(f"/comments/{created.json['id']}").status_code == 204
    assert titles(user, "gazelle") == [] and titles(user, "talk") == ["Talk"]


def test_deleting_a_thread_removes_its_replies_from_the_index(user, project):
    diagram = create_diagram(user, project["id"], title="Thread", content="graph TD\n  A")
    root = user.post(f"/diagrams/{diagram['id']}/comments", json={"body": "First ibis"}).json
    for body in ("second heron", "third stork"):
        assert user.post(f"/comments/{root['id']}/replies", json={"body": body}).status_code == 201
    assert user.post(f"/diagrams/{diagram['id']}/comments", json={"body": "Keep the crane"}).status_code == 201
    assert user.delete(f"/comments/{root['id']}").status_code == 204
    assert titles(user, "ibis") == titles(user, "heron") == titles(user, "stork") == []
    assert titles(user, "crane") == ["Thread"]


def test_a_deleted_folder_takes_its_diagrams_or_leaves_them_at_the_root(user, project):
    kept = create_folder(user, project["id"], name="Kept")
    dropped = create_folder(user, project["id"], name="Dropped")
    create_diagram(user, project["id"], title="Stays", content="graph TD\n  heron", folder_id=kept["id"])
    create_diagram(user, project["id"], title="Goes", content="graph TD\n  heron", folder_id=dropped["id"])
    assert sorted(hit["path"] for hit in search(user, "heron")["items"]) == ["Dropped/Goes.mmd", "Kept/Stays.mmd"]
    _deleted(user.delete(f"/folders/{kept['id']}"))
    _deleted(user.delete(f"/folders/{dropped['id']}", query_string={"delete_diagrams": "true"}))
    assert [hit["path"] for hit in search(user, "heron")["items"]] == ["Stays.mmd"]


def test_a_deleted_project_takes_its_diagrams_out_of_the_index(user, project):
    create_diagram(user, project["id"], title="Gone with it", content="graph TD\n  moa")
    _deleted(user.delete(f"/projects/{project['id']}"))
    assert titles(user, "moa") == []


def test_a_transferred_project_is_found_by_the_members_of_its_new_workspace(user, make_user, make_team, project):
    colleague = make_user()
    team = make_team(user, members=[(colleague, "viewer")])
    create_diagram(user, project["id"], title="Travels", content="graph TD\n  albatross")
    assert titles(colleague, "albatross") == []
    response = user.post(f"/projects/{project['id']}/transfer", json={"workspace_id": team["id"]})
    assert response.status_code == 200, response.json
    assert [(hit["title"], hit["workspace_id"]) for hit in search(colleague, "albatross")["items"]] == [
        ("Travels", team["id"])]
