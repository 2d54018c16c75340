"""Personal access tokens of the signed-in user: create (after a recent sign-in, which the route declares),
list, revoke (core/accounts/personal_tokens.py, docs/automation.md)."""
from types import SimpleNamespace

from ...core.accounts import personal_tokens


def create_token(user, data):
    token, text = personal_tokens.create(user, data["name"], data["scopes"], data["expires_in_days"])
    return SimpleNamespace(**{column: getattr(token, column) for column in (
        "id", "name", "prefix", "scopes", "created_at", "expires_at", "last_used_at")}, token=text)


def list_tokens(user):
    return personal_tokens.owned(user)


def revoke_token(user, token_id):
    personal_tokens.revoke(user, token_id)
