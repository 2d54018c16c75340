"""A public image link's revalidations, answered below Flask for a few seconds (docs/image-links.md), stop
at once, in the worker that ended the link and in the others, on every path that ends a link or its
diagram: re-share, revoke, protect, diagram, folder, project or account deletion, files API and sync
deletes (issue 24 item 8).

"Another worker" is a second application built from the same settings: its own process memory (its own
remembered ETags), the same database and the same limiter storage, as gunicorn workers sharing Redis."""
from contextlib import contextmanager

import pytest
from sqlalchemy import event

from trazo import create_app
from trazo.extensions import db

from ...helpers import PASSWORD, ApiClient, create_diagram, create_folder, error_detail, share
from .test_shared_public import CODE

GRAPH = "digraph G {\n  login -> dashboard\n}\n"
LOCAL = {"RENDER_BACKEND": "local", "RENDER_TIMEOUT": 10}


@pytest.fixture(scope="module")
def second_worker(app_env):
    return create_app(overrides=LOCAL, env=app_env)


@pytest.fixture
def workers(app, second_worker, settings, client):
    """{name: (application, anonymous client)} of the worker that makes the change and of another one."""
    settings(**LOCAL)
    return {"this worker": (app, client),
            "another worker": (second_worker, ApiClient(second_worker.test_client(), "10.9.0.1"))}


@pytest.fixture
def folder(user, project):
    return create_folder(user, project["id"], name="docs")


@pytest.fixture
def graph(user, project, folder):
    return create_diagram(user, project["id"], title="Graph", diagram_type="graphviz", content=GRAPH,
                          folder_id=folder["id"])


@contextmanager
def _statements(worker):
    """The SQL statements `worker` runs inside the block."""
    with worker.app_context():
        engine = db.engine
    seen = []

    def record(_conn, _cursor, statement, *_args):
        seen.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", record)


def _remembered(worker, client, link, etag):
    """A revalidation answered below Flask: 304 without a statement."""
    with _statements(worker) as seen:
        answer = _revalidate(client, link, etag)
    return answer.status_code == 304 and not seen


def _image(client, link):
    return client.get(f"/shared/{link['token']}/image.svg")


def _revalidate(client, link, etag):
    return client.get(f"/shared/{link['token']}/image.svg", headers={"If-None-Match": etag})


ENDINGS = {
    "re-share": lambda user, link, graph, project, folder: user.post("/shared-links", json={"diagram_id": graph["id"]}),
    "revoke": lambda user, link, graph, project, folder: user.delete(f"/shared-links/{link['id']}"),
    "diagram delete": lambda user, link, graph, project, folder: user.delete(f"/diagrams/{graph['id']}"),
    "folder delete": lambda user, link, graph, project, folder:
        user.delete(f"/folders/{folder['id']}", query_string={"delete_diagrams": "true"}),
    "project delete": lambda user, link, graph, project, folder: user.delete(f"/projects/{project['id']}"),
    "account delete": lambda user, link, graph, project, folder:
        user.delete("/users/me", json={"confirmation_phrase": "delete me", "password": PASSWORD}),
    "file delete": lambda user, link, graph, project, folder:
        user.delete(f"/projects/{project['id']}/files/docs/Graph.dot"),
    "sync delete": lambda user, link, graph, project, folder:
        user.post(f"/projects/{project['id']}/sync",
                  json={"files": [{"path": "other.dot", "content": "digraph { a }\n"}], "delete_missing": True}),
}


@pytest.mark.parametrize("where", ["this worker", "another worker"])
@pytest.mark.parametrize("ending", list(ENDINGS))
def test_a_revalidation_after_a_link_ends_answers_404_at_once(workers, user, project, folder, graph, ending,
                                                               where):
    link = share(user, graph["id"])
    worker, client = workers[where]
    etag = _image(client, link).headers["ETag"]
    assert _remembered(worker, client, link, etag)
    ended = ENDINGS[ending](user, link, graph, project, folder)
    assert ended.status_code in (200, 201, 204), ended.get_data(as_text=True)[:300]
    assert error_detail(_revalidate(client, link, etag), 404) == "Shared link not found"
    assert error_detail(_revalidate(workers["this worker"][1], link, etag), 404) == "Shared link not found"


@pytest.mark.parametrize("where", ["this worker", "another worker"])
def test_protecting_a_link_stops_its_revalidations_at_once_everywhere(workers, user, graph, where):
    link = share(user, graph["id"])
    worker, client = workers[where]
    etag = _image(client, link).headers["ETag"]
    assert _remembered(worker, client, link, etag)
    user.put(f"/shared-links/{link['id']}", json={"access_type": "protected", "access_code": CODE})
    assert error_detail(_revalidate(client, link, etag), 403) == "Links protected by an access code have no image link."


def test_an_ended_link_is_not_remembered_again_and_other_links_keep_answering(workers, user, project, graph):
    link = share(user, graph["id"])
    other = share(user, create_diagram(user, project["id"], title="Other", diagram_type="graphviz",
                                       content=GRAPH)["id"])
    worker, client = workers["another worker"]
    etags = {item["token"]: _image(client, item).headers["ETag"] for item in (link, other)}
    assert user.delete(f"/diagrams/{graph['id']}").status_code == 200
    assert _revalidate(client, link, etags[link["token"]]).status_code == 404
    assert _revalidate(client, link, etags[link["token"]]).status_code == 404
    assert _remembered(worker, client, other, etags[other["token"]])

