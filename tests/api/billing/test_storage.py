"""The storage quota of a plan (max_storage_mb): UTF-8 bytes of the user's diagram content and
descriptions plus the compressed bytes of their history, checked atomically with every write that grows
them; admins are unlimited."""
import io
import zlib

from ...helpers import error_detail, validation_errors

MIB = 1024 * 1024


def _storage_refusal(response, current, limit=MIB):
    detail = error_detail(response, 403)
    assert detail == {"error": "resource_limit_exceeded", "resource_type": "storage", "current_usage": current,
                      "limit": limit, "message": detail["message"]}, detail
    return detail["message"]


def _stored(text):
    """What a revision of `text` weighs (docs/history.md): its compressed size."""
    return len(zlib.compress(text.encode(), 6))


def _used(size):
    """Usage of a diagram of `size` times "a" as created: its content and its first revision."""
    return size + _stored("a" * size)


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
    while size - base + _stored("b" * size) > free:
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
    assert exact - 900_000 + _stored("b" * exact) == MIB - used
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
