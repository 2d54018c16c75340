"""Concurrent writes of the files API: two clients creating one path never make two diagrams, and a sync
racing a PUT on the same file loses neither write's revision."""
from ...helpers import ApiClient, at_once


def _two_puts(app, user, url, round_, sources, headers=None):
    """Two raw PUTs of `url` (source `sources[i]`) from two clients released at the same instant; statuses."""
    clients = [ApiClient(app.test_client(), f"10.9.{round_}.{index + 1}", user.token) for index in range(2)]
    return at_once(2, lambda index: clients[index].put(url, data=sources[index], content_type="text/plain",
                                                       headers=headers or {}).status_code)


def _sync_and_put(app, user, project_id, round_):
    """A sync and a PUT of flow.mmd released at the same instant; their statuses."""
    sync = ApiClient(app.test_client(), f"10.9.{round_}.1", user.token)
    put = ApiClient(app.test_client(), f"10.9.{round_}.2", user.token)
    actions = (
        lambda: sync.post(f"/projects/{project_id}/sync", json={"files": [
            {"path": "flow.mmd", "content": f"graph TD\n  sync{round_} --> B"}]}).status_code,
        lambda: put.put(f"/projects/{project_id}/files/flow.mmd", data=f"graph TD\n  put{round_} --> B",
                        content_type="text/plain").status_code,
    )
    return at_once(2, lambda index: actions[index]())


def test_two_clients_creating_one_path_at_once_make_one_diagram(app, user, project, files_of):
    for round_ in range(5):
        url = f"/projects/{project['id']}/files/docs/race-{round_}.mmd"
        statuses = _two_puts(app, user, url, round_, ["graph TD\n  a --> b", "graph TD\n  c --> d"])
        assert statuses == [200, 201], statuses
    assert sorted(files_of(project["id"])) == [f"docs/race-{n}.mmd" for n in range(5)]
    assert user.get(f"/projects/{project['id']}/files").json["unaddressable"] == []


def test_with_if_none_match_only_one_of_two_concurrent_creations_wins(app, user, project):
    for round_ in range(5):
        url = f"/projects/{project['id']}/files/only-{round_}.d2"
        statuses = _two_puts(app, user, url, round_, ["a -> b", "c -> d"], {"If-None-Match": "*"})
        assert statuses == [201, 412], statuses


def test_a_sync_racing_a_put_on_the_same_file_keeps_both_revisions(app, user, project, configure):
    configure(REVISION_COALESCE_SECONDS=0)
    url = f"/projects/{project['id']}/files/flow.mmd"
    created = user.put(url, data="graph TD\n  A --> B", content_type="text/plain")
    assert created.status_code == 201
    for round_ in range(4):
        assert _sync_and_put(app, user, project["id"], round_) == [200, 200]
    revisions = user.get(f"/diagrams/{created.json['diagram_id']}/revisions").json
    assert sorted(item["number"] for item in revisions["items"]) == list(range(1, 10))
    assert user.get(url).get_data(as_text=True) in {"graph TD\n  sync3 --> B", "graph TD\n  put3 --> B"}
