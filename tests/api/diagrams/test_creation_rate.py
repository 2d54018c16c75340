"""The per-user rate of creations (RATE_LIMIT_CREATIONS): every diagram and folder a request creates spends one,
whatever the route; past it the request is refused whole with 429 + Retry-After and writes nothing
(docs/security.md)."""
import io

import pytest

from ...helpers import create_diagram, create_project, error_detail


def _sync(web, project_id, paths, dry_run=False, delete_missing=False):
    return web.post(f"/projects/{project_id}/sync", json={
        "files": [{"path": path, "content": "graph TD"} for path in paths], "dry_run": dry_run,
        "delete_missing": delete_missing})


def _refused(response):
    error_detail(response, 429)
    assert int(response.headers["Retry-After"]) > 0


def _counts(web, project_id):
    project = web.get(f"/projects/{project_id}").json
    return project["diagram_count"], len(project["folders"])


CREATIONS = {  # (client, ids, n): the n-th creation of its kind, under a name of its own
    "create": lambda web, ids, n: web.post(f"/projects/{ids['project']}/diagrams", json={"title": f"New {n}"}),
    "folder": lambda web, ids, n: web.post(f"/projects/{ids['project']}/folders", json={"name": f"New {n}"}),
    "duplicate": lambda web, ids, n: web.post(f"/diagrams/{ids['diagram']}/duplicate", json={"title": f"Copy {n}"}),
    "files PUT": lambda web, ids, n: web.put(f"/projects/{ids['project']}/files/new{n}.mmd", data=b"graph TD",
                                             content_type="text/plain"),
    "sync": lambda web, ids, n: _sync(web, ids["project"], [f"new{n}.mmd"]),
    "import": lambda web, ids, n: web.post(f"/projects/{ids['project']}/import", content_type="multipart/form-data",
                                           data={"files": [(io.BytesIO(b"graph TD"), f"new{n}.mmd")]}),
}


@pytest.mark.parametrize("path", list(CREATIONS))
def test_every_creation_spends_the_creation_rate(user, other_user, configure, path):
    ids = {"project": create_project(user)["id"]}
    ids["diagram"] = create_diagram(user, ids["project"], title="Original")["id"]
    configure(RATE_LIMIT_CREATIONS="1/hour")  # a budget of its own (the limit is part of the key)
    assert CREATIONS[path](user, ids, 1).status_code in (200, 201)
    created = _counts(user, ids["project"])
    _refused(CREATIONS[path](user, ids, 2))
    assert _counts(user, ids["project"]) == created
    assert user.put(f"/diagrams/{ids['diagram']}", json={"content": "graph LR"}).status_code == 200  # edits are free
    theirs = {"project": create_project(other_user)["id"]}
    assert CREATIONS["create"](other_user, theirs, 1).status_code == 201  # another user's budget is their own


def test_a_sync_spends_one_per_diagram_and_folder_it_creates_and_is_refused_whole_past_the_budget(user, configure):
    project = create_project(user)["id"]
    configure(RATE_LIMIT_CREATIONS="10/hour")
    assert _sync(user, project, ["a.mmd", "docs/b.mmd", "docs/c.mmd"]).status_code == 200  # 3 diagrams, 1 folder
    eight = [f"more/{n}.mmd" for n in range(7)]  # 7 diagrams and a folder: 8, past the 6 left
    preview = _sync(user, project, eight, dry_run=True)
    assert preview.status_code == 200 and len(preview.json["created"]) == 7  # a dry run spends nothing
    _refused(_sync(user, project, eight))
    assert _counts(user, project) == (3, 1)
    again = ["a.mmd", "docs/b.mmd", "docs/c.mmd"]
    assert _sync(user, project, again).json["unchanged"] == again  # unchanged and updated files are free
    assert _sync(user, project, eight[:5]).status_code == 200  # 5 diagrams and a folder: exactly the 6 left
    _refused(_sync(user, project, ["one.mmd"]))
    _refused(user.post(f"/projects/{project}/folders", json={"name": "Late"}))
    assert _counts(user, project) == (8, 2)


def test_an_import_past_the_budget_is_refused_whole_and_its_preview_spends_nothing(user, configure):
    project = create_project(user)["id"]
    configure(RATE_LIMIT_CREATIONS="4/hour")
    path = f"/projects/{project}/import"

    def upload(count, dry_run=False):
        files = [(io.BytesIO(b"graph TD"), f"d{n}.mmd") for n in range(count)]
        return user.post(path + ("?dry_run=true" if dry_run else ""), data={"files": files},
                         content_type="multipart/form-data")

    for _ in range(3):
        assert upload(5, dry_run=True).json["allowed"] is True
    _refused(upload(5))
    assert _counts(user, project) == (0, 0)
    assert upload(4).status_code == 200
    _refused(upload(1))
    assert _counts(user, project) == (4, 0)
