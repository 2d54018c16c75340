"""Capacity (docs/events.md, "Capacity"): a user holds at most EVENT_STREAMS_PER_USER open streams on a
worker (429), a worker at most EVENT_STREAMS_PER_WORKER (503 with Retry-After), and opening streams and
asking for tickets share RATE_LIMIT_EVENT_STREAMS per user (429). A stream that ends, or is closed, gives
its place back."""
from ...helpers import error_detail
from .conftest import diagram_path, refused, ticket, workspace_path

TOO_MANY_OF_YOURS = "You have too many open event streams; close one first."
WORKER_FULL = "Too many open event streams on this server; try again shortly."


def test_a_user_past_their_open_streams_gets_429_until_one_closes(team, configure, follow, request_stream, hub):
    configure(EVENT_STREAMS_PER_USER=2)
    viewer, path = team["viewer"], diagram_path(team.diagram["id"])
    first = follow(viewer, path)
    follow(viewer, workspace_path(team.id))
    answer = request_stream(viewer, path)
    assert refused(answer, 429) == TOO_MANY_OF_YOURS
    assert int(answer.headers["Retry-After"]) > 0
    assert hub.open_count() == 2  # the refused one holds no place
    follow(team["editor"], path)  # another user's streams are their own
    first.close()
    again = follow(viewer, path)
    assert team.owner.put(f"/diagrams/{team.diagram['id']}", json={"title": "Reopened"}).status_code == 200
    assert again.next().data["title"] == "Reopened"


def test_a_stream_that_ends_by_itself_gives_its_place_back(team, configure, follow, request_stream):
    configure(EVENT_STREAMS_PER_USER=1)
    viewer = team["viewer"]
    stream = follow(viewer, diagram_path(team.diagram["id"]))
    assert refused(request_stream(viewer, workspace_path(team.id)), 429) == TOO_MANY_OF_YOURS
    assert team.owner.delete(f"/diagrams/{team.diagram['id']}").status_code == 200
    assert [event.name for event in stream.rest()] == ["diagram.deleted"]
    follow(viewer, workspace_path(team.id))  # its place is free without a close


def test_a_full_worker_answers_503_with_retry_after(team, configure, follow, request_stream, client):
    configure(EVENT_STREAMS_PER_WORKER=1)
    path = diagram_path(team.diagram["id"])
    first = follow(team["viewer"], path)
    answer = request_stream(team["editor"], path)
    assert refused(answer, 503) == WORKER_FULL
    assert int(answer.headers["Retry-After"]) > 0
    by_ticket = request_stream(client, path, ticket=ticket(team["editor"], diagram_id=team.diagram["id"]))
    assert refused(by_ticket, 503) == WORKER_FULL
    first.close()
    stream = follow(team["editor"], path)
    assert team.owner.put(f"/diagrams/{team.diagram['id']}", json={"title": "Room again"}).status_code == 200
    assert stream.next().data["title"] == "Room again"


def test_opening_streams_and_asking_for_tickets_share_one_rate_limit(team, configure, follow, request_stream):
    configure(RATE_LIMIT_EVENT_STREAMS="2/minute")
    viewer, path = team["viewer"], diagram_path(team.diagram["id"])
    follow(viewer, path)
    ticket(viewer, diagram_id=team.diagram["id"])
    answer = viewer.post("/events/tickets", json={"diagram_id": team.diagram["id"]})
    detail = error_detail(answer, 429)
    assert int(answer.headers["Retry-After"]) > 0 and detail != TOO_MANY_OF_YOURS
    opened = request_stream(viewer, workspace_path(team.id))
    assert refused(opened, 429) == detail and int(opened.headers["Retry-After"]) > 0
    follow(team["editor"], path)  # per user: another member still opens
