"""POST /projects/{id}/sync: a whole tree in one transaction, with a dry run (docs/files-api.md)."""
import hashlib
import time

from trazo.extensions import db
from trazo.models.content import Diagram, Project

from ...helpers import create_diagram, error_detail, validation_errors
from .conftest import free_plan
from .test_files import HIDDEN_PATHS

TREE = [
    {"path": "docs/diagrams/api.mmd", "content": "graph TD\n  A --> B\n"},
    {"path": "docs/diagrams/db.dbml", "content": "Table users {\n  id int\n}\n"},
    {"path": "readme.puml", "content": "@startuml\nA -> B\n@enduml\n"},
]


def _sync(web, project, files, **options):
    return web.post(f"/projects/{project['id']}/sync", json={"files": files, **options})


def test_a_dry_run_lists_what_would_change_and_writes_nothing(user, project, files_of):
    response = _sync(user, project, TREE, dry_run=True)
    assert response.status_code == 200, response.json
    assert response.json == {"dry_run": True, "created": [item["path"] for item in TREE], "updated": [],
                             "unchanged": [], "deleted": [], "unaddressable": []}
    assert files_of(project["id"]) == {}
    assert user.get(f"/projects/{project['id']}").json["folders"] == []
    by_query = user.post(f"/projects/{project['id']}/sync?dry_run=true", json={"files": TREE})
    assert by_query.json["dry_run"] is True and files_of(project["id"]) == {}


def test_a_sync_creates_updates_and_leaves_unchanged_files(user, project, files_of):
    first = _sync(user, project, TREE)
    assert first.status_code == 200 and first.json["created"] == [item["path"] for item in TREE]
    listed = files_of(project["id"])
    assert {path: item["sha256"] for path, item in listed.items()} == {
        item["path"]: hashlib.sha256(item["content"].encode()).hexdigest() for item in TREE}
    changed = [TREE[0], {**TREE[1], "content": "Table users {\n  id bigint\n}\n"}, TREE[2],
               {"path": "new/one.d2", "content": "a -> b\n"}]
    preview = _sync(user, project, changed, dry_run=True).json
    second = _sync(user, project, changed).json
    assert preview == {**second, "dry_run": True}
    assert second == {"dry_run": False, "created": ["new/one.d2"], "updated": ["docs/diagrams/db.dbml"],
                      "unchanged": ["docs/diagrams/api.mmd", "readme.puml"], "deleted": [], "unaddressable": []}
    after = files_of(project["id"])
    assert after["docs/diagrams/db.dbml"]["version"] == 2 and after["docs/diagrams/api.mmd"]["version"] == 1
    revisions = user.get(f"/diagrams/{after['docs/diagrams/db.dbml']['diagram_id']}/revisions").json["items"]
    assert {item["source"] for item in revisions} == {"api"}


def test_delete_missing_removes_the_files_the_tree_lacks_but_never_unaddressable_diagrams(user, project, files_of):
    _sync(user, project, TREE)
    slashed = create_diagram(user, project["id"], title="a/b")
    kept = _sync(user, project, TREE[:1]).json
    assert kept["deleted"] == [] and len(files_of(project["id"])) == 3
    preview = _sync(user, project, TREE[:1], delete_missing=True, dry_run=True).json
    assert preview["deleted"] == ["docs/diagrams/db.dbml", "readme.puml"] and len(files_of(project["id"])) == 3
    applied = _sync(user, project, TREE[:1], delete_missing=True).json
    assert applied["deleted"] == ["docs/diagrams/db.dbml", "readme.puml"] and applied["unchanged"] == [TREE[0]["path"]]
    assert [item["title"] for item in applied["unaddressable"]] == ["a/b"]
    assert list(files_of(project["id"])) == ["docs/diagrams/api.mmd"]
    assert user.get(f"/diagrams/{slashed['id']}").status_code == 200


def test_one_bad_file_refuses_the_whole_sync_naming_every_bad_path(user, project, files_of):
    files = [TREE[0], {"path": "../escape.mmd", "content": "x"}, {"path": "a.svg", "content": "x"},
             {"path": "s.freehand.json", "content": "not json"}, {"path": "n.txt", "content": "x"},
             {"path": "DOCS/diagrams/API.mmd", "content": "x"}]
    response = _sync(user, project, files)
    detail = validation_errors(response)
    assert [(item["loc"][2:], item["path"]) for item in detail] == [
        ([1, "path"], "../escape.mmd"), ([2, "path"], "a.svg"), ([3, "content"], "s.freehand.json"),
        ([4, "type"], "n.txt"), ([5, "path"], "DOCS/diagrams/API.mmd")]
    assert "files[0]" in detail[-1]["msg"]
    assert files_of(project["id"]) == {}
    spanish = validation_errors(user.post(f"/projects/{project['id']}/sync", json={"files": files}, lang="es"))
    assert spanish[1]["msg"].startswith("Extensión de archivo desconocida")


def test_a_sync_refuses_format_characters_git_and_drive_segments_naming_each_path(user, project, files_of):
    hidden = [path for path, _named in HIDDEN_PATHS]
    response = _sync(user, project, [TREE[0], *({"path": path, "content": "graph TD\n"} for path in hidden)])
    detail = validation_errors(response)
    assert [(item["loc"][2:], item["path"], item["type"]) for item in detail] == [
        ([position, "path"], path, "value_error.path") for position, path in enumerate(hidden, start=1)]
    assert all(named in item["msg"] for item, (_path, named) in zip(detail, HIDDEN_PATHS, strict=True))
    assert files_of(project["id"]) == {}


def test_a_file_over_the_content_cap_refuses_the_sync(user, project, configure, files_of):
    configure(MAX_DIAGRAM_CONTENT_BYTES=20)
    response = _sync(user, project, [TREE[2], {"path": "small.mmd", "content": "graph TD\n"}])
    detail = validation_errors(response)
    assert [item["path"] for item in detail] == ["readme.puml"] and "too large" in detail[0]["msg"]
    assert files_of(project["id"]) == {}


def test_empty_too_many_and_malformed_trees_are_refused(user, project):
    validation_errors(_sync(user, project, []), "files")
    validation_errors(_sync(user, project, [{"path": f"f{n}.mmd", "content": "x"} for n in range(501)]), "files")
    validation_errors(user.post(f"/projects/{project['id']}/sync", json={"files": [{"path": "a.mmd"}]}), "content")


def test_the_plan_limit_refuses_the_sync_and_writes_nothing(user, admin, project, files_of):
    admin.put(f"/admin/plans/{free_plan(user)['id']}", json={"max_diagrams": 2})
    for dry_run in (True, False):
        refused = _sync(user, project, TREE, dry_run=dry_run)
        detail = error_detail(refused, 403)
        assert detail["error"] == "resource_limit_exceeded" and detail["resource_type"] == "diagrams"
    assert files_of(project["id"]) == {} and user.get(f"/projects/{project['id']}").json["folders"] == []
    _sync(user, project, TREE[:2])
    swapped = _sync(user, project, [TREE[0], TREE[2]], delete_missing=True)
    assert swapped.status_code == 200 and swapped.json["deleted"] == ["docs/diagrams/db.dbml"]


def test_the_storage_quota_refuses_the_sync_and_writes_nothing(user, admin, project, files_of):
    admin.put(f"/admin/plans/{free_plan(user)['id']}", json={"max_storage_mb": 1})
    big = [{"path": f"big/{n}.mmd", "content": f"graph TD\n%% {n}\n" + "A-->B\n" * 60_000} for n in range(3)]
    for dry_run in (True, False):
        detail = error_detail(_sync(user, project, big, dry_run=dry_run), 403)
        assert detail["resource_type"] == "storage"
    assert files_of(project["id"]) == {} and user.get(f"/projects/{project['id']}").json["folders"] == []
    assert _sync(user, project, big[:1]).status_code == 200


def test_the_sync_is_rate_limited(user, project, configure):
    configure(RATE_LIMIT_FILES_SYNC="2/minute")
    for _ in range(2):
        assert _sync(user, project, TREE[:1], dry_run=True).status_code == 200
    refused = _sync(user, project, TREE[:1], dry_run=True)
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0


def test_a_listing_runs_the_same_number_of_statements_for_2_and_40_files(user, other_user, count_queries):
    def fill(web, count, without_history):
        project = web.post("/projects", json={"name": "P"}).json
        _sync(web, project, [{"path": f"dir{n % 3}/d{n}.mmd", "content": f"graph TD\n{n}\n"} for n in range(count)])
        with web.flask_client.application.app_context():  # diagrams from before history (their hash is computed)
            db.session.add_all(Diagram(project_id=project["id"], title=f"old{n}", diagram_type="mermaid",
                                       content=f"old {n}") for n in range(without_history))
            db.session.commit()
        return project

    def statements(web, project):
        with count_queries() as counted:
            response = web.get(f"/projects/{project['id']}/files")
        assert response.status_code == 200
        return counted.count, len(response.json["files"])

    small, big = fill(other_user, 2, 1), fill(user, 40, 10)
    assert statements(other_user, small) == (statements(user, big)[0], 3)
    assert statements(user, big)[1] == 50


def test_a_sync_of_the_largest_tree_is_applied_in_bounded_time(user, project, files_of):
    files = [{"path": f"tree/{n:03}.mmd", "content": f"graph TD\n%% {n}\n" + "A-->B; " * 5000}
             for n in range(500)]  # 500 files, 17.5 MB: the body limit is 20 MiB
    started = time.perf_counter()
    assert _sync(user, project, files).status_code == 200
    again = _sync(user, project, files)
    elapsed = time.perf_counter() - started
    assert again.json["unchanged"] == [item["path"] for item in files] and len(files_of(project["id"])) == 500
    assert elapsed < 30, elapsed
    with user.flask_client.application.app_context():
        assert db.session.query(Project).count() == 1
