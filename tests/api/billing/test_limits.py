"""Plan limits (API.md §10): enforced on project and diagram creation, atomically, live, never
for administrators; the FREE plan comes from the settings and is editable; `flask seed`."""
import os
import threading

import pytest
import sqlalchemy as sa

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


def _creation_while_the_account_is_locked(app, user, name):
    """Start a project creation while another transaction holds the account's lock (core/billing/quotas.py
    lock_account: the user's row FOR NO KEY UPDATE); the creation's response once it ends, and whether it had
    ended before the lock was released."""
    engine = sa.create_engine(os.environ["TEST_DATABASE_URL"], poolclass=sa.pool.NullPool)
    answers = []
    try:
        with engine.connect() as holder:
            holder.execute(sa.text("SELECT id FROM users WHERE id = :id FOR NO KEY UPDATE"), {"id": user.id})
            creating = threading.Thread(target=lambda: answers.append(user.post("/projects", json={"name": name})))
            creating.start()
            creating.join(timeout=3)
            ended_under_the_lock = not creating.is_alive()
            holder.rollback()
        creating.join(timeout=30)
    finally:
        engine.dispose()
    return answers[0], ended_under_the_lock


@pytest.mark.skipif(not os.environ.get("TEST_DATABASE_URL", "").startswith("postgresql"),
                    reason="row locks held by another transaction are PostgreSQL's")
def test_only_a_limited_plan_waits_for_the_accounts_lock(app, user, make_plan, subscribe, configure):
    """The lock serializes the checks of one account's limited writes; with nothing to count (a plan without
    limits) a write takes no lock, and the new row's reference to the user (projects.user_id) does not wait for
    it either, so it never waits behind another write of the account."""
    configure(FREE_PLAN_MAX_PROJECTS=10)
    limited, ended = _creation_while_the_account_is_locked(app, user, "Limited")
    assert limited.status_code == 201 and not ended
    subscribe(user, make_plan("UNLIMITED", price_usd=9))  # no project, diagram or storage limit
    unlimited, ended = _creation_while_the_account_is_locked(app, user, "Unlimited")
    assert unlimited.status_code == 201 and ended
