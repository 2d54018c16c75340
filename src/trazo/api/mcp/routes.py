"""The MCP endpoint (docs/mcp.md): `POST /mcp` speaks the Model Context Protocol over Streamable HTTP, statelessly,
with personal access tokens; `GET /.well-known/oauth-protected-resource` (and its `/mcp` suffixed form, RFC 9728)
tells clients how to authenticate. Outside the API prefix and the OpenAPI document (create_app registers the
blueprint on its own); any other method of /mcp is a 405."""
from flask import Blueprint, jsonify, request

from ...strict_json import answers_invalid_json
from . import metadata, transport

blp = Blueprint("mcp", __name__)


@blp.route(metadata.ENDPOINT, methods=["POST"])
@answers_invalid_json
def endpoint():
    return transport.answer(request.headers, request.get_data())


@blp.route(metadata.RESOURCE_METADATA)
@blp.route(metadata.RESOURCE_METADATA + metadata.ENDPOINT)
def resource_metadata():
    return jsonify(metadata.resource_metadata())
