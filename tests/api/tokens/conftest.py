"""Fixtures of the personal access tokens: minting one over HTTP and a client that sends it."""
import pytest


@pytest.fixture
def mint(user):
    """mint(["read"], client=user, **fields) -> (the created token's JSON, a client sending it)."""

    def make(scopes, client=None, **fields):
        owner = client or user
        response = owner.post("/users/me/tokens", json={"name": fields.pop("name", "ci"), "scopes": scopes,
                                                         **fields})
        assert response.status_code == 201, response.json
        return response.json, owner.signed_in(response.json["token"])

    return make
