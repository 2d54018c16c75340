"""A user's connected apps (docs/oauth-server.md, "Connected apps"): the OAuth clients they allowed, and
disconnecting one, which revokes every token of that grant. A signed-in session only."""
from urllib.parse import urlsplit

import marshmallow as ma
from flask_babel import gettext as _

from ...auth import current_user
from ...core.accounts import oauth_grants
from ...errors import NotFound
from ..blueprint import Blueprint
from ..common import BaseSchema, Timestamp

blp = Blueprint("connected_apps", __name__, description="Applications connected by OAuth (the MCP endpoint)")


class ConnectedAppSchema(BaseSchema):
    id = ma.fields.String(metadata={"description": "the grant's id: DELETE it to disconnect"})
    client_id = ma.fields.String()
    client_name = ma.fields.String()
    client_uri = ma.fields.String(allow_none=True)
    redirect_hosts = ma.fields.List(ma.fields.String())
    scopes = ma.fields.List(ma.fields.String())
    resource = ma.fields.String()
    created_at = Timestamp()
    last_used_at = Timestamp(allow_none=True)


def _shown(grant, client):
    return {"id": grant.id, "client_id": client.client_id, "client_name": client.client_name,
            "client_uri": client.client_uri, "scopes": grant.scope.split(), "resource": grant.resource,
            "redirect_hosts": sorted({urlsplit(uri).netloc for uri in client.redirect_uris}),
            "created_at": grant.created_at, "last_used_at": grant.last_used_at}


@blp.route("")
@blp.response(200, ConnectedAppSchema(many=True))
def list_connected_apps():
    """List the applications the caller connected (their live grants)"""
    return [_shown(grant, client) for grant, client in oauth_grants.connected_apps(current_user)]


@blp.route("/<grant_id>", methods=["DELETE"], not_found="Connected app not found")
@blp.response(204)
def disconnect(grant_id):
    """Disconnect an application: its grant and every token issued under it are revoked at once"""
    grant = oauth_grants.owned_grant(current_user, grant_id)
    if grant is None:
        raise NotFound(_("Connected app not found"))
    oauth_grants.revoke_grant(grant, "disconnected")
