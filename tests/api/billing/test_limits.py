"""Plan limits (API.md §10): enforced on project and diagram creation, atomically, live, never
for administrators; the FREE plan comes from the settings and is editable; `flask seed`."""

import pytest

from trazo.core.billing.quotas import ensure_within_plan
from trazo.errors import Forbidden
from trazo.extensions import db
from trazo.models import User

from ...helpers import ApiClient, at_once, error_detail

DIAGRAM = {"title": "Flow", "content": "graph TD; a-->b", "diagram_type": "mermaid"}


def _limit_detail(response, resource_type, current, limit):
    detail = error_detail(response, 403)
    assert detail == {"error": "resource_limit_exceeded", "resource_type": resource_type,
                      "current_usage": current, "limit": limit,
                      "message": detail["message"]}, detail
    return detail["message"]


def test_project_limit_of_the_free_plan(user, configure):
    configure(FREE_PLAN_MAX_PROJECTS=1)
    assert user.post("/projects", json={"name": "First"}).status_code == 201
    message = _limit_detail(user.post("/projects", json={"name": "Second"}), "projects", 1, 1)
    assert message == "You have reached your projects limit (1/1)"
    spanish = _limit_detail(user.post("/projects", json={"name": "Second"}, lang="es"), "projects", 1, 1)
    assert spanish == "Has alcanzado tu límite de proyectos (1/1)"
    assert len(user.get("/projects").json) == 1


def test_diagram_limit_covers_create_and_duplicate(user, configure):
    configure(FREE_PLAN_MAX_DIAGRAMS=2)
    first = user.post("/projects", json={"name": "A"}).json
    second = user.post("/projects", json={"name": "B"}).json
    diagram = user.post(f"/projects/{first['id']}/diagrams", json=DIAGRAM).json
    assert user.post(f"/projects/{second['id']}/diagrams", json=DIAGRAM).status_code == 201
    _limit_detail(user.post(f"/projects/{first['id']}/diagrams", json=DIAGRAM), "diagrams", 2, 2)
    _limit_detail(user.post(f"/diagrams/{diagram['id']}/duplicate", json={"title": "Copy"}), "diagrams", 2, 2)
    assert user.delete(f"/diagrams/{diagram['id']}").status_code == 200
    assert user.post(f"/projects/{first['id']}/diagrams", json=DIAGRAM).status_code == 201  # counts are live


def test_limits_are_per_user_and_never_apply_to_administrators(admin, user, other_user, configure):
    configure(FREE_PLAN_MAX_PROJECTS=1)
    for web in (user, other_user):
        assert web.post("/projects", json={"name": "Mine"}).status_code == 201
    assert {admin.post("/projects", json={"name": f"P{i}"}).status_code for i in range(3)} == {201}


def test_free_plan_limits_are_editable_by_the_admin(admin, user, configure):
    configure(FREE_PLAN_MAX_PROJECTS=1)
    free = next(plan for plan in user.get("/plans").json if plan["code"] == "FREE")
    user.post("/projects", json={"name": "First"})
    assert admin.put(f"/admin/plans/{free['id']}", json={"max_projects": 2}).status_code == 200
    assert user.post("/projects", json={"name": "Second"}).status_code == 201
    assert admin.put(f"/admin/plans/{free['id']}", json={"max_projects": None}).status_code == 200
    assert user.post("/projects", json={"name": "Third"}).status_code == 201


def test_a_paid_plan_lifts_the_limit_even_while_a_payment_fails(user, make_plan, subscribe, configure):
    configure(FREE_PLAN_MAX_PROJECTS=0)
    _limit_detail(user.post("/projects", json={"name": "Blocked"}), "projects", 0, 0)
    subscribe(user, make_plan("PRO", price_usd=9, max_projects=2), status="payment_failed", stripe_id="sub_1")
    assert user.post("/projects", json={"name": "Allowed"}).status_code == 201


def _race(app, token, attempts):
    """`attempts` project creations released at the same instant; their statuses."""
    clients = [ApiClient(app.test_client(), f"10.7.0.{index}", token) for index in range(attempts)]
    return at_once(attempts, lambda index: clients[index].post("/projects", json={"name": f"Race {index}"})
                   .status_code)


def test_concurrent_creations_cannot_pass_the_limit(app, admin, user):
    free = next(plan for plan in user.get("/plans").json if plan["code"] == "FREE")
    for limit in (2, 4, 6):  # a few rounds, so a missing lock shows up reliably
        admin.put(f"/admin/plans/{free['id']}", json={"max_projects": limit})
        assert _race(app, user.token, 8) == [201, 201] + [403] * 6
        assert len(user.get("/projects").json) == limit


def test_bulk_additions_are_checked_as_a_whole(app, user, configure):
    configure(FREE_PLAN_MAX_DIAGRAMS=3)
    project = user.post("/projects", json={"name": "Import target"}).json
    user.post(f"/projects/{project['id']}/diagrams", json=DIAGRAM)
    with app.test_request_context(headers={"Accept-Language": "en"}):
        account = db.session.get(User, user.id)
        ensure_within_plan(account, "diagrams", adding=2)
        with pytest.raises(Forbidden) as refused:
            ensure_within_plan(account, "diagrams", adding=3)
        with pytest.raises(ValueError):
            ensure_within_plan(account, "folders")
        db.session.rollback()
    assert refused.value.detail == {
        "error": "resource_limit_exceeded", "resource_type": "diagrams", "current_usage": 1, "limit": 3,
        "message": "Adding 3 diagrams would exceed your diagrams limit (1/3)"}


def test_flask_seed_ensures_the_free_plan_once(app, configure):
    configure(FREE_PLAN_MAX_PROJECTS=3)
    runner = app.test_cli_runner()
    first = runner.invoke(args=["seed"])
    assert first.exit_code == 0, first.output
    assert "FREE plan created (max_projects=3, max_diagrams=unlimited)" in first.output
    second = runner.invoke(args=["seed"])
    assert "FREE plan already present (max_projects=3, max_diagrams=unlimited)" in second.output
