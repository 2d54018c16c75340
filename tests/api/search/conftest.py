"""Search fixtures and helpers (docs/search.md): `search(client, q, **params)` asserts a 200 and answers the
page; `titles(...)` the titles of its hits."""
import pytest

from ...helpers import create_project


def search(client, q, status=200, **params):
    response = client.get("/search", query_string={"q": q, **params})
    assert response.status_code == status, (response.status_code, response.get_json())
    return response.get_json()


def titles(client, q, **params):
    return [hit["title"] for hit in search(client, q, **params)["items"]]


def hit_of(client, q, title, **params):
    """The one hit titled `title` of the search."""
    hits = [hit for hit in search(client, q, **params)["items"] if hit["title"] == title]
    assert len(hits) == 1, hits
    return hits[0]


@pytest.fixture
def project(user):
    return create_project(user, name="Payments")


@pytest.fixture
def mint(user):
    """mint(["read"]) -> a client sending a new personal access token of `user` with those scopes."""

    def make(scopes, client=None):
        owner = client or user
        response = owner.post("/users/me/tokens", json={"name": "search", "scopes": scopes})
        assert response.status_code == 201, response.json
        return owner.signed_in(response.json["token"])

    return make
