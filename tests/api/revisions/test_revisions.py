"""Diagram history: what records a revision, coalescing of autosaves, labels, retention, restore and the
read routes (docs/history.md)."""
import pytest

from ...helpers import UNKNOWN_ID, create_diagram, error_detail, save_diagram, validation_errors

MERMAID = "graph TD\nA-->B\n"


def _revisions(web, diagram_id, **query):
    response = web.get(f"/diagrams/{diagram_id}/revisions", query_string=query)
    assert response.status_code == 200, response.json
    return response.json


def test_creating_a_diagram_records_revision_one(user, diagram):
    page = _revisions(user, diagram["id"])
    assert page["total"] == 1 and page["page"] == 1 and page["total_pages"] == 1
    first = page["items"][0]
    assert first["number"] == 1 and first["source"] == "create" and first["label"] is None
    assert first["title"] == "Flow" and first["diagram_type"] == "mermaid" and first["author_id"] == user.id
    assert first["size"] == len(MERMAID) and first["lines_added"] == 2 and first["lines_removed"] == 0
    assert len(first["content_hash"]) == 64 and first["stored_size"] > 0
    assert "content" not in first


def test_an_edit_records_a_revision_with_its_line_counts(user, diagram):
    save_diagram(user, diagram["id"], content=MERMAID + "B-->C\n")
    newest = _revisions(user, diagram["id"])["items"][0]
    assert newest["number"] == 2 and newest["source"] == "edit"
    assert (newest["lines_added"], newest["lines_removed"]) == (1, 0)
    revision = user.get(f"/diagrams/{diagram['id']}/revisions/2").json
    assert revision["content"] == MERMAID + "B-->C\n"
    assert user.get(f"/diagrams/{diagram['id']}/revisions/1").json["content"] == MERMAID


def test_saving_identical_content_records_nothing(user, diagram):
    save_diagram(user, diagram["id"], content=MERMAID, title="Flow", diagram_type="mermaid")
    assert _revisions(user, diagram["id"])["total"] == 1


def test_saving_only_the_view_or_the_description_records_nothing(user, diagram):
    save_diagram(user, diagram["id"], viewport_zoom=2.0, description="new words", config={"background_color": "#000"})
    assert _revisions(user, diagram["id"])["total"] == 1


def test_a_title_or_type_change_is_recorded(user, diagram):
    save_diagram(user, diagram["id"], title="Renamed")
    assert _revisions(user, diagram["id"])["items"][0]["title"] == "Renamed"


def test_autosaves_by_the_same_author_within_the_window_amend_one_revision(user, diagram):
    for n in range(5):
        save_diagram(user, diagram["id"], content=MERMAID + f"B-->C{n}\n")
    page = _revisions(user, diagram["id"])
    assert page["total"] == 2
    newest = page["items"][0]
    assert newest["number"] == 2 and (newest["lines_added"], newest["lines_removed"]) == (1, 0)
    assert newest["updated_at"] > newest["created_at"]
    assert user.get(f"/diagrams/{diagram['id']}/revisions/2").json["content"] == MERMAID + "B-->C4\n"


def test_a_save_after_the_window_starts_a_new_revision(user, diagram, age_revisions):
    save_diagram(user, diagram["id"], content="one\n")
    age_revisions(diagram["id"], 601)
    save_diagram(user, diagram["id"], content="two\n")
    assert [item["number"] for item in _revisions(user, diagram["id"])["items"]] == [3, 2, 1]


def test_the_window_is_a_setting(user, diagram, configure):
    configure(REVISION_COALESCE_SECONDS=0)
    save_diagram(user, diagram["id"], content="one\n")
    save_diagram(user, diagram["id"], content="two\n")
    assert _revisions(user, diagram["id"])["total"] == 3


def test_a_save_by_another_author_is_never_merged_into_theirs(user, admin, diagram, age_revisions):
    save_diagram(user, diagram["id"], content="one\n")
    age_revisions(diagram["id"], 0, author_id=admin.id)  # as if the newest revision were someone else's
    save_diagram(user, diagram["id"], content="two\n")
    items = _revisions(user, diagram["id"])["items"]
    assert [(item["number"], item["author_id"]) for item in items[:2]] == [(3, user.id), (2, admin.id)]


def test_a_labelled_revision_is_never_amended(user, diagram):
    save_diagram(user, diagram["id"], content="one\n")
    labelled = user.post(f"/diagrams/{diagram['id']}/revisions", json={"label": "  Release 1 "})
    assert labelled.status_code == 201 and labelled.json["label"] == "Release 1" and labelled.json["number"] == 2
    assert labelled.json["content"] == "one\n"
    save_diagram(user, diagram["id"], content="two\n")
    items = _revisions(user, diagram["id"])["items"]
    assert [(item["number"], item["label"]) for item in items] == [(3, None), (2, "Release 1"), (1, None)]


def test_naming_a_state_that_already_has_a_name_is_a_conflict(user, diagram):
    assert user.post(f"/diagrams/{diagram['id']}/revisions", json={"label": "v1"}).status_code == 201
    detail = error_detail(user.post(f"/diagrams/{diagram['id']}/revisions", json={"label": "v2"}), 409)
    assert "v1" in detail
    spanish = error_detail(user.post(f"/diagrams/{diagram['id']}/revisions", json={"label": "v2"}, lang="es"), 409)
    assert spanish != detail and "v1" in spanish


def test_a_label_is_renamed_and_cleared(user, diagram):
    path = f"/diagrams/{diagram['id']}/revisions/1"
    assert user.put(path, json={"label": "Draft"}).json["label"] == "Draft"
    assert user.put(path, json={"label": "  "}).json["label"] is None
    assert user.put(path, json={"label": "Again"}).json["label"] == "Again"
    assert user.put(path, json={"label": None}).json["label"] is None


@pytest.mark.parametrize("body", [{}, {"label": ""}, {"label": "x" * 101}, {"label": 5}])
def test_a_bad_label_is_refused(user, diagram, body):
    validation_errors(user.post(f"/diagrams/{diagram['id']}/revisions", json=body), "label")


def test_restoring_records_a_new_revision_and_keeps_history(user, diagram):
    save_diagram(user, diagram["id"], content="changed\n", title="Changed")
    restored = user.post(f"/diagrams/{diagram['id']}/revisions/1/restore")
    assert restored.status_code == 200
    assert restored.json["content"] == MERMAID and restored.json["title"] == "Flow"
    assert restored.headers["ETag"] == f'"{restored.json["version"]}"'
    items = _revisions(user, diagram["id"])["items"]
    assert [(item["number"], item["source"]) for item in items] == [(3, "restore"), (2, "edit"), (1, "create")]
    assert (items[0]["lines_added"], items[0]["lines_removed"]) == (2, 1)
    assert user.get(f"/diagrams/{diagram['id']}").json["content"] == MERMAID


def test_an_edit_after_a_restore_is_a_revision_of_its_own(user, diagram):
    save_diagram(user, diagram["id"], content="changed\n")
    user.post(f"/diagrams/{diagram['id']}/revisions/1/restore")
    save_diagram(user, diagram["id"], content="after\n")
    assert [item["source"] for item in _revisions(user, diagram["id"])["items"]] == ["edit", "restore", "edit",
                                                                                      "create"]


def test_restoring_the_current_state_records_nothing(user, diagram):
    response = user.post(f"/diagrams/{diagram['id']}/revisions/1/restore")
    assert response.status_code == 200 and response.json["version"] == diagram["version"]
    assert _revisions(user, diagram["id"])["total"] == 1


def test_the_list_is_paged_newest_first(user, diagram, configure):
    configure(REVISION_COALESCE_SECONDS=0)
    for n in range(4):
        save_diagram(user, diagram["id"], content=f"v{n}\n")
    page = _revisions(user, diagram["id"], page=2, page_size=2)
    assert page["total"] == 5 and page["total_pages"] == 3
    assert [item["number"] for item in page["items"]] == [3, 2]
    validation_errors(user.get(f"/diagrams/{diagram['id']}/revisions", query_string={"page_size": 0}),
                      "page_size", where="query")


def test_another_users_history_is_not_found(user, other_user, diagram):
    base = f"/diagrams/{diagram['id']}/revisions"
    for response in (other_user.get(base), other_user.get(f"{base}/1"), other_user.get(f"{base}/1/diff"),
                     other_user.post(base, json={"label": "mine"}), other_user.put(f"{base}/1", json={"label": "x"}),
                     other_user.post(f"{base}/1/restore")):
        assert error_detail(response, 404) == "Diagram not found"
    assert _revisions(user, diagram["id"])["items"][0]["label"] is None


def test_an_unknown_revision_or_diagram_is_not_found_in_both_languages(user, diagram):
    base = f"/diagrams/{diagram['id']}/revisions"
    assert error_detail(user.get(f"{base}/9"), 404) == "Revision not found"
    assert error_detail(user.get(f"{base}/9", lang="es"), 404) == "Revisión no encontrada"
    assert error_detail(user.post(f"{base}/9/restore"), 404) == "Revision not found"
    assert error_detail(user.get(f"{base}/99999999999999999999"), 404)
    assert error_detail(user.get(f"/diagrams/{UNKNOWN_ID}/revisions"), 404) == "Diagram not found"


def test_the_history_routes_need_a_token(client, diagram):
    base = f"/diagrams/{diagram['id']}/revisions"
    for response in (client.get(base), client.get(f"{base}/1"), client.post(base, json={"label": "x"}),
                     client.post(f"{base}/1/restore"), client.get(f"{base}/1/diff")):
        assert response.status_code == 401


def test_deleting_a_diagram_deletes_its_history(user, diagram, rows):
    save_diagram(user, diagram["id"], content="more\n")
    assert len(rows(diagram["id"])) == 2
    assert user.delete(f"/diagrams/{diagram['id']}").status_code == 200
    assert rows(diagram["id"]) == []


def test_deleting_a_project_or_the_account_deletes_the_history(user, project, diagram, rows):
    other = create_diagram(user, user.post("/projects", json={"name": "Other"}).json["id"], content="x")
    assert user.delete(f"/projects/{project['id']}").status_code == 200
    assert rows(diagram["id"]) == [] and len(rows(other["id"])) == 1
    farewell = {"confirmation_phrase": "delete me", "password": user.password}
    assert user.delete("/users/me", json=farewell).status_code == 200
    assert rows(other["id"]) == []


def test_duplicating_starts_the_copy_with_its_own_history(user, diagram):
    save_diagram(user, diagram["id"], content="changed\n")
    copy = user.post(f"/diagrams/{diagram['id']}/duplicate", json={"title": "Copy"}).json
    items = _revisions(user, copy["id"])["items"]
    assert [(item["number"], item["source"], item["title"]) for item in items] == [(1, "duplicate", "Copy")]
    assert user.get(f"/diagrams/{copy['id']}/revisions/1").json["content"] == "changed\n"


def test_the_list_runs_a_constant_number_of_statements(user, other_user, configure, count_queries):
    configure(REVISION_COALESCE_SECONDS=0)
    small = create_diagram(other_user, other_user.post("/projects", json={"name": "P"}).json["id"])
    big = create_diagram(user, user.post("/projects", json={"name": "P"}).json["id"])
    for n in range(20):
        save_diagram(user, big["id"], content=f"v{n}\n" * 50)
    counts = []
    for web, diagram_id in ((other_user, small["id"]), (user, big["id"])):
        with count_queries() as counted:
            assert len(_revisions(web, diagram_id, page_size=100)["items"]) in (1, 21)
        counts.append(counted.count)
    assert counts[0] == counts[1]
