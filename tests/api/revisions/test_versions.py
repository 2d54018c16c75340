"""No lost update: a diagram's version is its ETag, and a write based on a stale version answers 412
(docs/history.md); without If-Match or expected_version the write goes through and the overwritten state
stays in the history."""
import pytest

from ...helpers import ApiClient, at_once, error_detail, validation_errors


def _etag(response):
    return response.headers["ETag"]


def _conflict(response, current_version):
    """Assert a 412 version conflict naming `current_version`; return its detail."""
    assert response.status_code == 412, (response.status_code, response.json)
    body = response.json
    assert set(body) == {"detail", "error_code", "current_version"} and body["error_code"] == "version_conflict"
    assert body["current_version"] == current_version and _etag(response) == f'"{current_version}"'
    return body["detail"]


def test_reading_a_diagram_gives_its_version_as_etag(user, diagram):
    response = user.get(f"/diagrams/{diagram['id']}")
    assert response.status_code == 200 and response.json["version"] == 1 and _etag(response) == '"1"'


def test_a_content_save_moves_the_version_and_a_view_save_does_not(user, diagram):
    path = f"/diagrams/{diagram['id']}"
    saved = user.put(path, json={"content": "graph LR\nX-->Y\n"})
    assert saved.json["version"] == 2 and _etag(saved) == '"2"'
    viewed = user.put(path, json={"viewport_zoom": 1.5, "user_preferences": {"description_pinned": True}})
    assert viewed.json["version"] == 2
    described = user.put(path, json={"description": "words"})
    assert described.json["version"] == 3


def test_a_save_with_the_current_etag_goes_through(user, diagram):
    path = f"/diagrams/{diagram['id']}"
    etag = _etag(user.get(path))
    saved = user.put(path, json={"content": "first"}, headers={"If-Match": etag})
    assert saved.status_code == 200 and saved.json["content"] == "first"
    again = user.put(path, json={"content": "second"}, headers={"If-Match": _etag(saved)})
    assert again.status_code == 200
    assert user.put(path, json={"content": "third"}, headers={"If-Match": "*"}).status_code == 200


def test_a_save_from_a_stale_tab_answers_412_with_the_current_version(user, diagram):
    path = f"/diagrams/{diagram['id']}"
    stale = _etag(user.get(path))
    assert user.put(path, json={"content": "from tab one"}, headers={"If-Match": stale}).status_code == 200
    refused = user.put(path, json={"content": "from tab two"}, headers={"If-Match": stale})
    assert "version 2" in _conflict(refused, 2)
    spanish = user.put(path, json={"content": "from tab two"}, headers={"If-Match": stale}, lang="es")
    assert _conflict(spanish, 2).startswith("Este diagrama se modificó")
    assert user.get(path).json["content"] == "from tab one"


def test_expected_version_in_the_body_works_like_if_match(user, diagram):
    path = f"/diagrams/{diagram['id']}"
    assert user.put(path, json={"content": "one", "expected_version": 1}).status_code == 200
    _conflict(user.put(path, json={"content": "two", "expected_version": 1}), 2)
    assert user.put(path, json={"content": "two", "expected_version": 2}).json["version"] == 3


@pytest.mark.parametrize("value", [0, -1, "2", 1.5, 2**40])
def test_a_bad_expected_version_is_refused(user, diagram, value):
    validation_errors(user.put(f"/diagrams/{diagram['id']}", json={"content": "x", "expected_version": value}),
                      "expected_version")


@pytest.mark.parametrize("header", ['"nope"', "garbage", 'W/"1"', '"0"'])
def test_an_if_match_naming_no_current_version_answers_412(user, diagram, header):
    response = user.put(f"/diagrams/{diagram['id']}", json={"content": "x"}, headers={"If-Match": header})
    _conflict(response, 1)


def test_without_a_precondition_the_last_write_wins_and_the_first_stays_in_history(user, diagram):
    path = f"/diagrams/{diagram['id']}"
    user.put(path, json={"content": "tab one"})
    user.put(path, json={"title": "tab two", "content": "tab two"})
    assert user.get(path).json["content"] == "tab two"
    contents = [user.get(f"{path}/revisions/{n}").json["content"] for n in (1, 2)]
    assert contents == [diagram["content"], "tab two"]


def test_the_overwritten_state_is_kept_once_the_coalescing_window_has_passed(user, diagram, configure):
    configure(REVISION_COALESCE_SECONDS=0)
    path = f"/diagrams/{diagram['id']}"
    user.put(path, json={"content": "tab one"})
    user.put(path, json={"content": "tab two"})
    contents = [user.get(f"{path}/revisions/{n}").json["content"] for n in (2, 3)]
    assert contents == ["tab one", "tab two"]


def test_a_stale_move_or_duplicate_answers_412(user, project, diagram):
    path = f"/diagrams/{diagram['id']}"
    user.put(path, json={"content": "changed"})
    moved = user.post(f"{path}/move", json={"target_project_id": project["id"]}, headers={"If-Match": '"1"'})
    _conflict(moved, 2)
    copied = user.post(f"{path}/duplicate", json={"title": "Copy"}, headers={"If-Match": '"1"'})
    _conflict(copied, 2)
    fresh = user.post(f"{path}/duplicate", json={"title": "Copy"}, headers={"If-Match": '"2"'})
    assert fresh.status_code == 200 and fresh.json["content"] == "changed" and fresh.json["version"] == 1


def test_a_stale_write_to_another_users_diagram_is_still_a_404(other_user, diagram):
    response = other_user.put(f"/diagrams/{diagram['id']}", json={"content": "x"}, headers={"If-Match": '"9"'})
    assert error_detail(response, 404) == "Diagram not found"


def _two_tabs_save(app, user, path, etag, round_):
    """Two saves (with If-Match `etag`, unless None) released at the same instant; their statuses."""
    tabs = [ApiClient(app.test_client(), f"10.8.{round_}.{index + 1}", user.token) for index in range(2)]
    return at_once(2, lambda index: tabs[index].put(path, json={"content": f"round {round_} tab {index}"},
                                                    headers={"If-Match": etag} if etag else {}).status_code)


def test_two_concurrent_writers_with_the_same_etag_one_wins_one_gets_412(app, user, diagram):
    """Both tabs read version N and save at the same instant: the diagram's UPDATE names the version read,
    so the overtaken save is read again, sees version N+1 and is refused; repeated so a race shows up."""
    path = f"/diagrams/{diagram['id']}"
    for round_ in range(6):
        statuses = _two_tabs_save(app, user, path, _etag(user.get(path)), round_)
        assert statuses == [200, 412], statuses
    final = user.get(path).json
    assert final["version"] == 7 and final["content"].startswith("round 5 tab ")


def test_two_concurrent_writers_without_a_precondition_both_succeed_and_history_stays_whole(
        app, user, diagram, configure, rows):
    """Without If-Match both saves go through, one after the other (a save that read the diagram before
    the other's write reads it again), and every recorded state is a whole revision with its own number."""
    configure(REVISION_COALESCE_SECONDS=0)
    path = f"/diagrams/{diagram['id']}"
    for round_ in range(6):
        assert _two_tabs_save(app, user, path, None, round_) == [200, 200]
    revisions = rows(diagram["id"])
    assert [revision.number for revision in revisions] == list(range(1, 14))
    assert user.get(path).json["version"] == 13
    assert {revision.title for revision in revisions} == {"Flow"}
