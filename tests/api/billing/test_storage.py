"""The storage quota of a plan (max_storage_mb): UTF-8 bytes of the user's diagram content and
descriptions, the compressed bytes of their history, and a fixed overhead per diagram, folder and revision
row (what a row costs the database, docs/security.md), checked atomically with every write that grows
them; admins are unlimited."""
import io
import zlib

import pytest

from ...helpers import error_detail, validation_errors

MIB = 1024 * 1024
# The row overheads these tests count with (the defaults' order of size, set here so the figures are explicit).
DIAGRAM, FOLDER, REVISION = 600, 250, 500


@pytest.fixture(autouse=True)
def row_overheads(configure):
    configure(STORAGE_OVERHEAD_DIAGRAM_BYTES=DIAGRAM, STORAGE_OVERHEAD_FOLDER_BYTES=FOLDER,
              STORAGE_OVERHEAD_REVISION_BYTES=REVISION)


def _storage_refusal(response, current, limit=MIB):
    detail = error_detail(response, 403)
    assert detail == {"error": "resource_limit_exceeded", "resource_type": "storage", "current_usage": current,
                      "limit": limit, "message": detail["message"]}, detail
    return detail["message"]


def _stored(text):
    """What a revision of `text` weighs (docs/history.md): its compressed size."""
    return len(zlib.compress(text.encode(), 6))


def _used(size):
    """Usage of a diagram of `size` times "a" as created: its content, its first revision, and the overhead
    of both rows."""
    return size + _stored("a" * size) + DIAGRAM + REVISION


def _usage(web):
    return web.get("/subscriptions/usage").json["storage"]["current"]


def _new_diagram(web, project_id, size, title="Big", description=""):
    return web.post(f"/projects/{project_id}/diagrams", json={
        "title": title, "diagram_type": "mermaid", "content": "a" * size, "description": description})


def test_creating_past_the_quota_is_refused_with_the_storage_limit(user, configure):
    configure(FREE_PLAN_MAX_STORAGE_MB=1)
    project = user.post("/projects", json={"name": "Mine"}).json
    assert _new_diagram(user, project["id"], 600_000, description="ñ" * 1000).status_code == 201
    message = _storage_refusal(_new_diagram(user, project["id"], 600_000), _used(600_000) + 2000)
    assert message == "This would exceed your storage limit (0.6 MB used of 1 MB)"
    spanish = _storage_refusal(user.post(f"/projects/{project['id']}/diagrams", lang="es", json={
        "title": "B", "content": "a" * 600_000}), _used(600_000) + 2000)
    assert spanish == "Esto superaría tu límite de almacenamiento (0.6 MB usados de 1 MB)"
    assert len(user.get(f"/projects/{project['id']}").json["diagrams"]) == 1


def _filling(free, base):
    """The size n of a content of "b" that, replacing `base` bytes of content with a new revision,
    grows the usage by exactly `free` bytes."""
    size = base + free
    while size - base + _stored("b" * size) + REVISION > free:
        size -= 1
    return size


def test_growing_a_diagram_past_the_quota_is_refused_but_shrinking_is_not(user, configure):
    configure(FREE_PLAN_MAX_STORAGE_MB=1, REVISION_COALESCE_SECONDS=0)
    project = user.post("/projects", json={"name": "Mine"}).json
    diagram = _new_diagram(user, project["id"], 900_000).json
    _new_diagram(user, project["id"], 100_000, title="Small")
    used = _usage(user)
    assert used == _used(900_000) + _used(100_000)
    path = f"/diagrams/{diagram['id']}"
    _storage_refusal(user.put(path, json={"content": "b" * 1_000_000}), used)
    _storage_refusal(user.put(path, json={"description": "d" * 48_577, "content": "a" * 900_001}), used)
    assert user.get(path).json["content"] == "a" * 900_000
    exact = _filling(MIB - used, 900_000)
    assert exact - 900_000 + _stored("b" * exact) + REVISION == MIB - used
    assert user.put(path, json={"content": "b" * exact}).status_code == 200  # exactly the quota
    assert user.get("/subscriptions/usage").json["storage"] == {"current": MIB, "limit": MIB}
    _storage_refusal(user.put(path, json={"description": "x"}), MIB)
    assert user.put(path, json={"content": "small"}).status_code == 200  # shrinking is always allowed
    assert _usage(user) < used


def test_duplicating_past_the_quota_is_refused(user, configure):
    configure(FREE_PLAN_MAX_STORAGE_MB=1)
    project = user.post("/projects", json={"name": "Mine"}).json
    diagram = _new_diagram(user, project["id"], 700_000).json
    _storage_refusal(user.post(f"/diagrams/{diagram['id']}/duplicate", json={"title": "Copy"}), _used(700_000))


def test_deleting_frees_the_quota(user, configure):
    configure(FREE_PLAN_MAX_STORAGE_MB=1)
    first = user.post("/projects", json={"name": "One"}).json
    second = user.post("/projects", json={"name": "Two"}).json
    diagram = _new_diagram(user, first["id"], 800_000).json
    _storage_refusal(_new_diagram(user, second["id"], 800_000), _used(800_000))  # counted across projects
    assert user.delete(f"/diagrams/{diagram['id']}").status_code == 200
    assert _new_diagram(user, second["id"], 800_000).status_code == 201
    assert user.delete(f"/projects/{second['id']}").status_code == 200
    assert _new_diagram(user, first["id"], 800_000).status_code == 201


def test_the_quota_is_per_user_and_administrators_are_unlimited(admin, user, other_user, configure):
    configure(FREE_PLAN_MAX_STORAGE_MB=1)
    for web in (user, other_user):
        project = web.post("/projects", json={"name": "Mine"}).json
        assert _new_diagram(web, project["id"], 900_000).status_code == 201
    project = admin.post("/projects", json={"name": "Admin's"}).json
    assert {_new_diagram(admin, project["id"], 900_000, title=f"D{i}").status_code for i in range(3)} == {201}
    assert admin.get("/subscriptions/usage").json["storage"] == {"current": 3 * _used(900_000), "limit": None}


def test_the_free_plan_quota_defaults_to_100_mb(client):
    free = next(plan for plan in client.get("/plans").json if plan["code"] == "FREE")
    assert free["max_storage_mb"] == 100


def test_a_negative_free_plan_setting_is_unlimited(client, configure):
    configure(FREE_PLAN_MAX_STORAGE_MB=-1)
    free = next(plan for plan in client.get("/plans").json if plan["code"] == "FREE")
    assert free["max_storage_mb"] is None


def test_the_storage_quota_is_set_through_the_admin_plan_routes(admin, user, make_plan, subscribe, configure):
    configure(FREE_PLAN_MAX_STORAGE_MB=1)
    plan = make_plan("PRO", price_usd=9, max_storage_mb=2)
    assert plan["max_storage_mb"] == 2
    subscribe(user, plan)
    project = user.post("/projects", json={"name": "Mine"}).json
    assert _new_diagram(user, project["id"], 1_000_000).status_code == 201
    assert _new_diagram(user, project["id"], 1_000_000, title="Second").status_code == 201
    _storage_refusal(_new_diagram(user, project["id"], 200_000, title="Third"), 2 * _used(1_000_000), 2 * MIB)
    updated = admin.put(f"/admin/plans/{plan['id']}", json={"max_storage_mb": -1})
    assert updated.status_code == 200 and updated.json["max_storage_mb"] is None
    assert _new_diagram(user, project["id"], 200_000, title="Third").status_code == 201
    assert admin.put(f"/admin/plans/{plan['id']}", json={"max_storage_mb": 3}).json["max_storage_mb"] == 3
    listed = next(p for p in admin.get("/admin/plans").json if p["code"] == "PRO")
    assert listed["max_storage_mb"] == 3
    validation_errors(admin.put(f"/admin/plans/{plan['id']}", json={"max_storage_mb": 1.5}), "max_storage_mb")
    validation_errors(admin.post("/admin/plans", json={"code": "X", "name": "X", "price_usd": 1,
                                                       "max_storage_mb": -2}), "max_storage_mb")


def test_an_import_past_the_quota_is_refused_and_its_preview_says_so(user, configure):
    configure(FREE_PLAN_MAX_STORAGE_MB=1)
    project = user.post("/projects", json={"name": "Mine"}).json
    _new_diagram(user, project["id"], 600_000)
    path = f"/projects/{project['id']}/import"

    def files():
        return {"files": [(io.BytesIO(b"graph TD\n" + b"a" * 600_000), "big.mmd")]}

    preview = user.post(path + "?dry_run=true", data=files(), content_type="multipart/form-data")
    assert preview.status_code == 200 and preview.json["allowed"] is False
    _storage_refusal(user.post(path, data=files(), content_type="multipart/form-data"), _used(600_000))
    assert len(user.get(f"/projects/{project['id']}").json["diagrams"]) == 1


# -- what a row costs (issue 24, item 4) ---------------------------------------------------------

def _sync(web, project_id, paths, dry_run=False):
    return web.post(f"/projects/{project_id}/sync", json={"files": [{"path": path, "content": ""} for path in paths],
                                                          "dry_run": dry_run})


def _file_count(web, project_id):
    return len(web.get(f"/projects/{project_id}/files").json["files"])


def test_many_empty_diagrams_created_by_sync_reach_the_storage_limit(user, configure):
    # An empty diagram used to count 8 bytes (its compressed history) while its rows cost the database ~1 KB.
    configure(FREE_PLAN_MAX_STORAGE_MB=1, RATE_LIMIT_CREATIONS="5000/hour")
    project = user.post("/projects", json={"name": "Mine"}).json["id"]
    each = DIAGRAM + REVISION + _stored("")
    assert _sync(user, project, [f"bulk/{n}.mmd" for n in range(500)]).status_code == 200
    used = FOLDER + 500 * each
    assert _usage(user) == used
    more = [f"more/{n}.mmd" for n in range(500)]
    for dry_run in (True, False):
        _storage_refusal(_sync(user, project, more, dry_run=dry_run), used)
    assert _file_count(user, project) == 500
    fitting = (MIB - used - FOLDER) // each
    assert _sync(user, project, more[:fitting]).status_code == 200
    assert _usage(user) == used + FOLDER + fitting * each > MIB - each
    _storage_refusal(_sync(user, project, [more[fitting]]), used + FOLDER + fitting * each)
    assert _file_count(user, project) == 500 + fitting


def test_the_usage_shows_the_row_overhead_and_its_breakdown(user, configure):
    configure(REVISION_COALESCE_SECONDS=0)
    project = user.post("/projects", json={"name": "Mine"}).json
    folder = user.post(f"/projects/{project['id']}/folders", json={"name": "F"}).json
    diagram = user.post(f"/projects/{project['id']}/diagrams", json={
        "title": "D", "content": "", "description": "dé", "folder_id": folder["id"]}).json
    assert user.put(f"/diagrams/{diagram['id']}", json={"content": "graph TD"}).status_code == 200
    history = _stored("") + _stored("graph TD")
    overhead = DIAGRAM + FOLDER + 2 * REVISION
    usage = user.get("/subscriptions/usage").json
    assert usage["storage"] == {"current": 8 + 3 + history + overhead, "limit": 100 * MIB}
    assert usage["storage_breakdown"] == {"content_bytes": 8 + 3, "history_bytes": history,
                                          "overhead_bytes": overhead, "folders": 1, "revisions": 2}
    assert usage["diagrams"]["current"] == 1 and usage["projects"]["current"] == 1
    user.delete(f"/projects/{project['id']}")
    assert user.get("/subscriptions/usage").json["storage_breakdown"] == {
        "content_bytes": 0, "history_bytes": 0, "overhead_bytes": 0, "folders": 0, "revisions": 0}


def test_folders_count_toward_the_storage_limit(user, configure):
    configure(FREE_PLAN_MAX_STORAGE_MB=1, STORAGE_OVERHEAD_FOLDER_BYTES=300_000)
    project = user.post("/projects", json={"name": "Mine"}).json["id"]
    for n in range(3):
        assert user.post(f"/projects/{project}/folders", json={"name": f"F{n}"}).status_code == 201
    _storage_refusal(user.post(f"/projects/{project}/folders", json={"name": "F3"}), 900_000)
    assert len(user.get(f"/projects/{project}").json["folders"]) == 3


CREATIONS = {
    "create": lambda web, ids: web.post(f"/projects/{ids['project']}/diagrams", json={"title": "New", "content": ""}),
    "duplicate": lambda web, ids: web.post(f"/diagrams/{ids['diagram']}/duplicate", json={"title": "Copy"}),
    "files PUT": lambda web, ids: web.put(f"/projects/{ids['project']}/files/new.mmd", data=b"",
                                          content_type="text/plain"),
    "sync": lambda web, ids: _sync(web, ids["project"], ["new.mmd"]),
    "import": lambda web, ids: web.post(f"/projects/{ids['project']}/import", content_type="multipart/form-data",
                                        data={"files": [(io.BytesIO(b"graph TD"), "new.mmd")]}),
}


@pytest.mark.parametrize("path", list(CREATIONS))
def test_every_way_of_creating_a_diagram_counts_its_rows(user, configure, path):
    configure(FREE_PLAN_MAX_STORAGE_MB=1, STORAGE_OVERHEAD_DIAGRAM_BYTES=MIB // 2, STORAGE_OVERHEAD_REVISION_BYTES=0)
    project = user.post("/projects", json={"name": "Mine"}).json["id"]
    diagram = user.post(f"/projects/{project}/diagrams", json={"title": "D", "content": ""}).json["id"]
    used = MIB // 2 + _stored("")
    _storage_refusal(CREATIONS[path](user, {"project": project, "diagram": diagram}), used)
    assert len(user.get(f"/projects/{project}").json["diagrams"]) == 1 and _usage(user) == used


def test_a_new_revision_counts_its_row_and_a_restore_too(user, configure):
    configure(FREE_PLAN_MAX_STORAGE_MB=1, STORAGE_OVERHEAD_REVISION_BYTES=400_000, REVISION_COALESCE_SECONDS=0)
    project = user.post("/projects", json={"name": "Mine"}).json["id"]
    diagram = user.post(f"/projects/{project}/diagrams", json={"title": "D", "content": "a"}).json["id"]
    assert user.put(f"/diagrams/{diagram}", json={"content": "b"}).status_code == 200
    used = DIAGRAM + 2 * 400_000 + 1 + _stored("a") + _stored("b")
    assert _usage(user) == used
    _storage_refusal(user.put(f"/diagrams/{diagram}", json={"content": "c"}), used)
    _storage_refusal(user.put(f"/projects/{project}/files/D.mmd", data=b"c", content_type="text/plain"), used)
    _storage_refusal(user.post(f"/diagrams/{diagram}/revisions/1/restore"), used)
    assert user.get(f"/diagrams/{diagram}").json["content"] == "b" and _usage(user) == used
