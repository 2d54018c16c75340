"""Retention and storage: the plan's revision limit prunes the oldest unlabelled revisions in the same
transaction; revisions count toward the storage quota at their stored (compressed) size."""
import random
import zlib

from ...helpers import create_diagram, error_detail

MIB = 1024 * 1024


def _numbers(web, diagram_id):
    return [item["number"] for item in web.get(f"/diagrams/{diagram_id}/revisions?page_size=100").json["items"]]


def _free_plan(web):
    return next(plan for plan in web.get("/plans").json if plan["code"] == "FREE")


def _edits(web, diagram_id, count, start=0):
    for n in range(start, start + count):
        assert web.put(f"/diagrams/{diagram_id}", json={"content": f"version {n}\n"}).status_code == 200


def test_the_free_plan_keeps_the_settings_number_of_revisions(user, configure):
    assert _free_plan(user)["max_revisions_per_diagram"] == 50


def test_past_the_limit_the_oldest_unlabelled_revisions_are_pruned(user, admin, diagram, configure):
    configure(REVISION_COALESCE_SECONDS=0)
    admin.put(f"/admin/plans/{_free_plan(user)['id']}", json={"max_revisions_per_diagram": 3})
    _edits(user, diagram["id"], 4)
    assert _numbers(user, diagram["id"]) == [5, 4, 3]
    assert user.get(f"/diagrams/{diagram['id']}/revisions/5").json["content"] == "version 3\n"
    assert user.get(f"/diagrams/{diagram['id']}/revisions/1").status_code == 404


def test_labelled_revisions_survive_pruning(user, admin, diagram, configure):
    configure(REVISION_COALESCE_SECONDS=0)
    admin.put(f"/admin/plans/{_free_plan(user)['id']}", json={"max_revisions_per_diagram": 3})
    user.put(f"/diagrams/{diagram['id']}/revisions/1", json={"label": "Original"})
    _edits(user, diagram["id"], 5)
    assert _numbers(user, diagram["id"]) == [6, 5, 1]
    assert user.get(f"/diagrams/{diagram['id']}/revisions/1").json["label"] == "Original"


def test_labels_beyond_the_limit_are_all_kept(user, admin, diagram, configure):
    configure(REVISION_COALESCE_SECONDS=0)
    admin.put(f"/admin/plans/{_free_plan(user)['id']}", json={"max_revisions_per_diagram": 2})
    for n in range(3):
        _edits(user, diagram["id"], 1, start=n)
        assert user.post(f"/diagrams/{diagram['id']}/revisions", json={"label": f"v{n}"}).status_code == 201
    _edits(user, diagram["id"], 1, start=9)
    assert _numbers(user, diagram["id"]) == [5, 4, 3, 2]


def test_an_unlimited_plan_and_administrators_keep_everything(user, admin, configure):
    configure(REVISION_COALESCE_SECONDS=0)
    admin.put(f"/admin/plans/{_free_plan(user)['id']}", json={"max_revisions_per_diagram": -1})
    assert _free_plan(user)["max_revisions_per_diagram"] is None
    mine = create_diagram(user, user.post("/projects", json={"name": "P"}).json["id"])
    _edits(user, mine["id"], 6)
    assert len(_numbers(user, mine["id"])) == 7
    admin.put(f"/admin/plans/{_free_plan(user)['id']}", json={"max_revisions_per_diagram": 1})
    theirs = create_diagram(admin, admin.post("/projects", json={"name": "P"}).json["id"])
    _edits(admin, theirs["id"], 4)
    assert len(_numbers(admin, theirs["id"])) == 5


def test_the_revision_limit_is_set_through_the_admin_plan_routes(admin):
    created = admin.post("/admin/plans", json={"code": "TEAM", "name": "Team", "price_usd": 5,
                                               "max_revisions_per_diagram": 500})
    assert created.status_code == 201 and created.json["max_revisions_per_diagram"] == 500
    updated = admin.put(f"/admin/plans/{created.json['id']}", json={"max_revisions_per_diagram": None})
    assert updated.json["max_revisions_per_diagram"] is None
    refused = admin.put(f"/admin/plans/{created.json['id']}", json={"max_revisions_per_diagram": "many"})
    assert refused.status_code == 422


def _usage(web):
    return web.get("/subscriptions/usage").json["storage"]["current"]


def test_revisions_count_toward_storage_at_their_compressed_size(user, project, configure):
    # Without the rows' overhead (STORAGE_OVERHEAD_*, tests/api/billing/test_storage.py), usage is the bytes.
    configure(REVISION_COALESCE_SECONDS=0, STORAGE_OVERHEAD_DIAGRAM_BYTES=0, STORAGE_OVERHEAD_REVISION_BYTES=0)
    text = "graph TD\n" + "".join(f"N{n}-->N{n + 1}\n" for n in range(2000))
    diagram = create_diagram(user, project["id"], content=text, description="")
    compressed = len(zlib.compress(text.encode(), 6))
    assert compressed < len(text) // 2
    assert _usage(user) == len(text) + compressed
    assert user.get(f"/diagrams/{diagram['id']}/revisions").json["items"][0]["stored_size"] == compressed
    user.put(f"/diagrams/{diagram['id']}", json={"content": "small"})
    assert _usage(user) == len("small") + compressed + len(zlib.compress(b"small", 6))
    user.delete(f"/diagrams/{diagram['id']}")
    assert _usage(user) == 0


def test_history_that_would_pass_the_quota_is_refused_and_nothing_is_written(user, project, admin, configure):
    configure(REVISION_COALESCE_SECONDS=0)
    admin.put(f"/admin/plans/{_free_plan(user)['id']}", json={"max_storage_mb": 1})
    text = random.Random(7).randbytes(275_000).hex()  # hardly compressible: each revision weighs ~half the text
    diagram = create_diagram(user, project["id"], content=text)
    before = _usage(user)
    refused = user.put(f"/diagrams/{diagram['id']}", json={"content": text[::-1]})
    detail = error_detail(refused, 403)
    assert detail["resource_type"] == "storage" and detail["current_usage"] == before
    assert user.get(f"/diagrams/{diagram['id']}").json["content"] == text
    assert _numbers(user, diagram["id"]) == [1] and _usage(user) == before


def test_a_restore_past_the_quota_is_refused(user, project, admin, configure):
    configure(REVISION_COALESCE_SECONDS=0)
    text = random.Random(8).randbytes(10_000).hex()
    diagram = create_diagram(user, project["id"], content=text)
    user.put(f"/diagrams/{diagram['id']}", json={"content": "tiny"})
    admin.put(f"/admin/plans/{_free_plan(user)['id']}", json={"max_storage_mb": 0})
    response = user.post(f"/diagrams/{diagram['id']}/revisions/1/restore")
    assert error_detail(response, 403)["resource_type"] == "storage"
    assert user.get(f"/diagrams/{diagram['id']}").json["content"] == "tiny"
