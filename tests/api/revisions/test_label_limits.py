"""Cheap history growth is bounded: labelled revisions per diagram are capped by the plan
(max_labelled_revisions_per_diagram), and restoring and labelling have rate limits of their own
(docs/history.md, "Retention and storage"; docs/security.md)."""
import json

from ...helpers import create_diagram, create_project, error_detail
from ...zips import make_zip
from ..projects.test_import import upload

FLOW = "graph TD\n  A --> B"


def _free_plan(web):
    return next(plan for plan in web.get("/plans").json if plan["code"] == "FREE")


def _set_free_plan(admin, user, **limits):
    response = admin.put(f"/admin/plans/{_free_plan(user)['id']}", json=limits)
    assert response.status_code == 200, response.json
    return response.json


def _edit(web, diagram_id, n):
    response = web.put(f"/diagrams/{diagram_id}", json={"content": f"graph TD\n  A --> N{n}"})
    assert response.status_code == 200, response.json


def _labels(web, diagram_id):
    items = web.get(f"/diagrams/{diagram_id}/revisions", query_string={"page_size": 100}).json["items"]
    return [(item["number"], item["label"]) for item in items if item["label"] is not None]


def test_the_free_plan_caps_labelled_revisions_from_the_settings(user):
    assert _free_plan(user)["max_labelled_revisions_per_diagram"] == 20


def test_the_label_past_the_plan_s_cap_answers_409_and_names_the_cap(user, admin, diagram, configure):
    configure(REVISION_COALESCE_SECONDS=0)
    _set_free_plan(admin, user, max_labelled_revisions_per_diagram=2)
    assert user.put(f"/diagrams/{diagram['id']}/revisions/1", json={"label": "Uno"}).status_code == 200
    _edit(user, diagram["id"], 2)
    assert user.post(f"/diagrams/{diagram['id']}/revisions", json={"label": "Dos"}).status_code == 201
    _edit(user, diagram["id"], 3)
    refused = user.post(f"/diagrams/{diagram['id']}/revisions", json={"label": "Tres"})
    assert error_detail(refused, 409) == ("This diagram already has 2 named revisions and your plan allows 2; "
                                          "clear the name of one before naming another.")
    spanish = user.post(f"/diagrams/{diagram['id']}/revisions", json={"label": "Tres"}, lang="es")
    assert error_detail(spanish, 409) == ("Este diagrama ya tiene 2 revisiones con nombre y tu plan permite 2; "
                                          "quita el nombre de una antes de nombrar otra.")
    by_number = user.put(f"/diagrams/{diagram['id']}/revisions/3", json={"label": "Tres"})
    assert "2" in error_detail(by_number, 409)
    assert _labels(user, diagram["id"]) == [(2, "Dos"), (1, "Uno")]


def test_renaming_a_named_revision_and_clearing_one_stay_allowed_at_the_cap(user, admin, diagram, configure):
    configure(REVISION_COALESCE_SECONDS=0)
    _set_free_plan(admin, user, max_labelled_revisions_per_diagram=1)
    assert user.put(f"/diagrams/{diagram['id']}/revisions/1", json={"label": "Uno"}).status_code == 200
    renamed = user.put(f"/diagrams/{diagram['id']}/revisions/1", json={"label": "Primero"})
    assert renamed.status_code == 200 and renamed.json["label"] == "Primero"
    _edit(user, diagram["id"], 2)
    assert user.put(f"/diagrams/{diagram['id']}/revisions/2", json={"label": "Dos"}).status_code == 409
    assert user.put(f"/diagrams/{diagram['id']}/revisions/1", json={"label": None}).status_code == 200
    assert user.put(f"/diagrams/{diagram['id']}/revisions/2", json={"label": "Dos"}).status_code == 200
    assert _labels(user, diagram["id"]) == [(2, "Dos")]


def test_the_cap_counts_per_diagram_and_administrators_are_unlimited(user, admin, project, diagram, configure):
    _set_free_plan(admin, user, max_labelled_revisions_per_diagram=1)
    other = create_diagram(user, project["id"], title="Otro")
    assert user.post(f"/diagrams/{diagram['id']}/revisions", json={"label": "A"}).status_code == 201
    assert user.post(f"/diagrams/{other['id']}/revisions", json={"label": "B"}).status_code == 201
    mine = create_diagram(admin, create_project(admin, name="Admin")["id"])
    assert admin.put(f"/diagrams/{mine['id']}/revisions/1", json={"label": "A"}).status_code == 200
    admin.put(f"/diagrams/{mine['id']}", json={"content": "graph TD\n  X"})
    assert admin.post(f"/diagrams/{mine['id']}/revisions", json={"label": "B"}).status_code == 201


def test_restoring_and_labelling_to_inflate_history_stops_at_the_cap(user, diagram, configure):
    """The attack: a large revision restored and named again and again, each copy kept forever."""
    configure(REVISION_COALESCE_SECONDS=0, RATE_LIMIT_REVISION_RESTORE="100/minute")
    big = "graph TD\n%% " + "x" * 200_000
    assert user.put(f"/diagrams/{diagram['id']}", json={"content": big}).status_code == 200
    _edit(user, diagram["id"], 0)
    statuses = []
    for _round in range(21):
        assert user.post(f"/diagrams/{diagram['id']}/revisions/2/restore").status_code == 200
        statuses.append(user.post(f"/diagrams/{diagram['id']}/revisions", json={"label": "copia"}).status_code)
        assert user.post(f"/diagrams/{diagram['id']}/revisions/3/restore").status_code == 200
    assert statuses == [201] * 20 + [409]
    assert len(_labels(user, diagram["id"])) == 20


def test_plan_schemas_take_and_show_the_labelled_revisions_cap(admin):
    created = admin.post("/admin/plans", json={"name": "Equipo", "code": "TEAM", "price_usd": 5,
                                               "max_labelled_revisions_per_diagram": 200})
    assert created.status_code == 201, created.json
    assert created.json["max_labelled_revisions_per_diagram"] == 200
    updated = admin.put(f"/admin/plans/{created.json['id']}", json={"max_labelled_revisions_per_diagram": -1})
    assert updated.status_code == 200 and updated.json["max_labelled_revisions_per_diagram"] is None
    refused = admin.put(f"/admin/plans/{created.json['id']}", json={"max_labelled_revisions_per_diagram": "many"})
    assert refused.status_code == 422


def test_an_import_keeps_the_names_of_the_newest_labelled_revisions_within_the_cap(user, admin):
    _set_free_plan(admin, user, max_labelled_revisions_per_diagram=2)
    listed = [{"number": n, "title": "Flujo", "type": "mermaid", "source": "edit", "label": f"v{n}",
               "file": f"{n:04d}.mmd"} for n in range(1, 6)]
    entries = {"Flujo/manifest.json": json.dumps({
                   "format": "diagramahub-export", "format_version": 1, "folders": [],
                   "diagrams": [{"title": "Flujo", "type": "mermaid", "path": "Flujo.mmd", "folder": None,
                                 "history_path": ".history/Flujo.mmd/revisions.json"}]}),
               "Flujo/Flujo.mmd": "graph TD\n  N5",
               "Flujo/.history/Flujo.mmd/revisions.json": json.dumps({"revisions": listed})}
    entries.update({f"Flujo/.history/Flujo.mmd/{n:04d}.mmd": f"graph TD\n  N{n}" for n in range(1, 6)})
    project = create_project(user, name="Destino")
    response = upload(user, project["id"], [("flujo.zip", make_zip(entries))])
    assert response.status_code == 200, response.json
    diagram_id = response.json["created_diagram_ids"][0]
    assert _labels(user, diagram_id) == [(5, "v5"), (4, "v4")]


def test_restores_past_the_rate_answer_429_with_retry_after(user, other_user, diagram, configure):
    configure(RATE_LIMIT_REVISION_RESTORE="2/minute", REVISION_COALESCE_SECONDS=0)
    _edit(user, diagram["id"], 1)
    assert user.post(f"/diagrams/{diagram['id']}/revisions/1/restore").status_code == 200
    assert user.post(f"/diagrams/{diagram['id']}/revisions/2/restore").status_code == 200
    refused = user.post(f"/diagrams/{diagram['id']}/revisions/1/restore")
    assert error_detail(refused, 429).startswith("Too many requests")
    assert int(refused.headers["Retry-After"]) >= 1
    theirs = create_diagram(other_user, create_project(other_user, name="Suyo")["id"])
    other_user.put(f"/diagrams/{theirs['id']}", json={"content": "graph TD\n  Z"})
    assert other_user.post(f"/diagrams/{theirs['id']}/revisions/1/restore").status_code == 200


def test_labels_past_the_rate_answer_429_with_retry_after(user, diagram, configure):
    configure(RATE_LIMIT_REVISION_LABEL="2/minute")
    assert user.post(f"/diagrams/{diagram['id']}/revisions", json={"label": "Uno"}).status_code == 201
    assert user.put(f"/diagrams/{diagram['id']}/revisions/1", json={"label": "Otro"}).status_code == 200
    refused = user.put(f"/diagrams/{diagram['id']}/revisions/1", json={"label": "Tercero"})
    assert error_detail(refused, 429).startswith("Too many requests")
    assert int(refused.headers["Retry-After"]) >= 1
    also_refused = user.post(f"/diagrams/{diagram['id']}/revisions", json={"label": "Cuatro"})
    assert error_detail(also_refused, 429).startswith("Too many requests")
    assert _labels(user, diagram["id"]) == [(1, "Otro")]
