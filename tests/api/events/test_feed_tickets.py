"""Tickets (docs/events.md, "Routes"): EventSource cannot send a header, so a member asks for a one-use
ticket and opens the feed with `?ticket=`: once, for the feed it names, within EVENT_TICKET_SECONDS, as
the member who asked for it; never written to the logs."""
import logging
import time

from trazo.logs import loggable_url

from ...helpers import NEW_PASSWORD, PASSWORD, error_detail
from .conftest import diagram_path, person, refused, ticket, workspace_path

REFUSED = "Invalid, used or expired ticket"


def test_a_diagram_ticket_opens_its_feed_once_without_a_header(team, client, follow, request_stream):
    path = diagram_path(team.diagram["id"])
    answer = team["viewer"].post("/events/tickets", json={"diagram_id": team.diagram["id"]})
    assert answer.status_code == 201 and answer.json["expires_in"] == 60
    issued = answer.json["ticket"]
    assert len(issued) >= 40 and issued.replace("-", "").replace("_", "").isalnum()
    stream = follow(client, path, ticket=issued)  # the anonymous client: no Authorization header
    team["editor"].put(f"/diagrams/{team.diagram['id']}", json={"title": "Through a ticket"})
    event = stream.next()
    assert (event.name, event.data["title"], event.author) == ("diagram.updated", "Through a ticket",
                                                               person(team["editor"]))
    assert refused(request_stream(client, path, ticket=issued), 401) == REFUSED
    assert refused(request_stream(team["viewer"], path, ticket=issued), 401) == REFUSED  # even with a token


def test_a_workspace_ticket_opens_the_workspace_feed(team, client, follow, request_stream):
    issued = ticket(team["commenter"], workspace_id=team.id)
    stream = follow(client, workspace_path(team.id), ticket=issued)
    created = team.owner.post("/projects", json={"name": "Ticketed", "workspace_id": team.id})
    assert created.status_code == 201
    event = stream.next()
    assert (event.name, event.data["name"]) == ("project.created", "Ticketed")
    assert refused(request_stream(client, workspace_path(team.id), ticket=issued), 401) == REFUSED


def test_each_ticket_is_its_own(team, client, follow):
    first, second = ticket(team["viewer"], diagram_id=team.diagram["id"]), ticket(team["viewer"],
                                                                                   diagram_id=team.diagram["id"])
    assert first != second
    follow(client, diagram_path(team.diagram["id"]), ticket=first)
    follow(client, diagram_path(team.diagram["id"]), ticket=second)


def test_a_ticket_opens_no_other_feed_than_the_one_it_names(team, client, request_stream):
    other = team.owner.post(f"/projects/{team.project['id']}/diagrams",
                            json={"title": "Other", "diagram_type": "mermaid", "content": "graph TD\n  O"}).json
    viewer = team["viewer"]
    for path, body in ((diagram_path(other["id"]), {"diagram_id": team.diagram["id"]}),
                       (workspace_path(team.id), {"diagram_id": team.diagram["id"]}),
                       (diagram_path(team.diagram["id"]), {"workspace_id": team.id})):
        assert refused(request_stream(client, path, ticket=ticket(viewer, **body)), 401) == REFUSED, path


def test_an_unknown_ticket_is_401(team, client, request_stream):
    assert refused(request_stream(client, diagram_path(team.diagram["id"]), ticket="made-up"), 401) == REFUSED


def test_an_expired_ticket_is_401(team, client, configure, request_stream, follow):
    configure(EVENT_TICKET_SECONDS=1)
    answer = team["viewer"].post("/events/tickets", json={"diagram_id": team.diagram["id"]})
    assert answer.status_code == 201 and answer.json["expires_in"] == 1
    fresh = ticket(team["viewer"], diagram_id=team.diagram["id"])
    follow(client, diagram_path(team.diagram["id"]), ticket=fresh)  # within its second: fine
    time.sleep(1.1)
    response = request_stream(client, diagram_path(team.diagram["id"]), ticket=answer.json["ticket"])
    assert refused(response, 401) == REFUSED


def test_a_ticket_made_before_a_password_change_is_401(team, client, request_stream):
    viewer = team["viewer"]
    issued = ticket(viewer, diagram_id=team.diagram["id"])
    changed = viewer.put("/users/change-password", json={"current_password": PASSWORD, "new_password": NEW_PASSWORD})
    assert changed.status_code == 200
    assert refused(request_stream(client, diagram_path(team.diagram["id"]), ticket=issued), 401) == REFUSED


def test_a_ticket_of_a_member_removed_since_opens_nothing(team, client, request_stream):
    issued = ticket(team["viewer"], workspace_id=team.id)
    removed = team.owner.delete(f"/workspaces/{team.id}/members/{team['viewer'].id}")
    assert removed.status_code == 200
    assert refused(request_stream(client, workspace_path(team.id), ticket=issued), 404) == "Workspace not found"


def test_a_non_member_gets_no_ticket(team, other_user):
    assert error_detail(other_user.post("/events/tickets", json={"diagram_id": team.diagram["id"]}), 404)
    assert error_detail(other_user.post("/events/tickets", json={"workspace_id": team.id}), 404)


def test_a_ticket_too_long_to_be_one_is_422_without_being_echoed(team, client, request_stream):
    long_ticket = "T" * 101
    response = request_stream(client, diagram_path(team.diagram["id"]), ticket=long_ticket)
    refused(response, 422, field="ticket", where="query")
    assert long_ticket not in response.get_data(as_text=True)


def test_a_ticket_never_appears_in_the_logs(team, client, request_stream, follow, caplog):
    path = diagram_path(team.diagram["id"])
    with caplog.at_level(logging.DEBUG):
        answer = team["viewer"].post("/events/tickets", json={"diagram_id": team.diagram["id"]})
        issued = answer.json["ticket"]
        stream = follow(client, path, ticket=issued)
        team["editor"].put(f"/diagrams/{team.diagram['id']}", json={"title": "Logged?"})
        assert stream.next().data["title"] == "Logged?"
        stream.close()
        refused(request_stream(client, path, ticket=issued), 401)
        request_stream(client, workspace_path(team.id), ticket=ticket(team["viewer"], diagram_id=team.diagram["id"]))
    for record in caplog.records:
        assert issued not in record.getMessage() and issued[:12] not in repr(record.__dict__), record
    assert issued not in caplog.text
    # the access log writes the request's target as loggable_url makes it: without its query string
    logged = loggable_url(f"/api/v1{path}?ticket={issued}")
    assert logged == f"/api/v1{path}" and issued not in logged
