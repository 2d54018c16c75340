"""Query and header arguments (api/blueprint.py, ArgumentsParser): a request that carries none of a schema's keys
gets the schema's load of nothing without a load, and every other request is loaded as before, so what a
route receives never depends on which way it went."""
import pytest

from ..helpers import SHARE_CODE, create_diagram, create_folder, error_detail, share, validation_errors


@pytest.fixture
def share_grant(client, protected):
    return client.post(f"/shared/{protected['token']}/verify", json={"access_code": SHARE_CODE}).json["access_token"]


def test_a_shared_diagram_without_an_access_token_is_answered(client, user, diagram):
    link = share(user, diagram["id"])
    answer = client.get(f"/shared/{link['token']}/diagram")
    assert answer.status_code == 200
    assert answer.json["title"] == diagram["title"]


def test_the_access_header_is_read_whatever_the_case_of_its_name(client, protected, share_grant):
    for name in ("X-Share-Access", "x-share-access", "X-SHARE-ACCESS"):
        answer = client.get(f"/shared/{protected['token']}/diagram", headers={name: share_grant})
        assert answer.status_code == 200, name
    assert error_detail(client.get(f"/shared/{protected['token']}/diagram"), 403) == \
        "This link requires an access code"


def test_an_access_token_in_the_query_is_read_and_unknown_query_keys_are_dropped(client, protected, share_grant):
    answer = client.get(f"/shared/{protected['token']}/diagram?access_token={share_grant}&other=1")
    assert answer.status_code == 200
    assert error_detail(client.get(f"/shared/{protected['token']}/diagram?other=1"), 403) == \
        "This link requires an access code"


def test_a_present_argument_is_still_validated(client, protected):
    too_long = "a" * 1025
    validation_errors(client.get(f"/shared/{protected['token']}/diagram?access_token={too_long}"), "access_token",
                      where="query")
    validation_errors(client.get(f"/shared/{protected['token']}/diagram", headers={"X-Share-Access": too_long}),
                      where="header")


def test_an_absent_argument_takes_its_default(user, project, folder):
    kept = create_diagram(user, project["id"], folder_id=folder["id"])
    assert user.delete(f"/folders/{folder['id']}").status_code == 200  # delete_diagrams defaults to false
    assert user.get(f"/diagrams/{kept['id']}").status_code == 200
    other = create_folder(user, project["id"], name="Gone with it")
    dropped = create_diagram(user, project["id"], folder_id=other["id"])
    assert user.delete(f"/folders/{other['id']}?delete_diagrams=true").status_code == 200
    error_detail(user.get(f"/diagrams/{dropped['id']}"), 404)


def test_a_required_argument_is_still_required(user):
    validation_errors(user.get("/search"), "q", where="query")
    validation_errors(user.get("/search?limit=5"), "q", where="query")
