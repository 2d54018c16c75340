"""The Model Context Protocol's JSON-RPC messages and what answers them (docs/mcp.md, "Protocol versions").

Two generations on one endpoint, and no state between requests in either:
- the handshake generation (2025-06-18, 2025-11-25): `initialize` answers the client's version when it is one of
  them, else the newest; `notifications/initialized` and other notifications are acknowledged; `ping`,
  `tools/list` and `tools/call` need no `initialize` before them (no session is kept, none is issued);
- the stateless revision 2026-07-28: every request carries its version and capabilities in `params._meta`, mirrored
  in the MCP-Protocol-Version, Mcp-Method and Mcp-Name headers (a mismatch is HeaderMismatch, -32020);
  `server/discover` names the versions, capabilities and instructions; results carry `resultType` and the
  server's identity in `_meta`; a version this server does not speak is UnsupportedProtocolVersion (-32022).
A request is of the 2026-07-28 generation when its `_meta` names a protocol version or its MCP-Protocol-Version
header names one the handshake generation does not have; else of the handshake generation. Batches (JSON arrays)
are refused in both: 2025-06-18 removed them.
"""
import base64
import json
from dataclasses import dataclass
from typing import Any

from flask import current_app
from flask_babel import gettext as _

from ...errors import AppError
from ...extensions import db
from .arguments import InvalidArguments, ensure_valid
from .catalog import BY_NAME, TOOLS
from .outcomes import Outcome

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602
HEADER_MISMATCH, UNSUPPORTED_PROTOCOL_VERSION = -32020, -32022
MODERN_VERSIONS = ("2026-07-28",)
HANDSHAKE_VERSIONS = ("2025-11-25", "2025-06-18")  # newest first: an unknown one is answered with the first
SUPPORTED_VERSIONS = (*MODERN_VERSIONS, *HANDSHAKE_VERSIONS)
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"
VERSION_HEADER, METHOD_HEADER, NAME_HEADER = "MCP-Protocol-Version", "Mcp-Method", "Mcp-Name"
CAPABILITIES = {"tools": {"listChanged": False}}
LIST_TTL_MS = 5 * 60 * 1000  # the tool list changes with a deployment only
SHOWN_NAME_MAX = 100
INSTRUCTIONS = (
    "Trazo keeps diagrams as code (Mermaid, PlantUML, D2, DBML, Graphviz, ...) in projects of workspaces. Find "
    "them with search_diagrams, or list_workspaces, list_projects and list_files; read one with read_diagram. "
    "write_diagram creates or updates a diagram by path: pass the version you read as expected_version, and look "
    "at `draws` in its answer to fix a diagram that does not draw. validate_diagram checks a source without "
    "storing it; diagram_types lists the languages and a syntax reminder of each.")


class RpcError(Exception):
    """A JSON-RPC error: code, message (a sentence) and optional data."""

    def __init__(self, code, message, data=None, request_id=None, modern=False):
        super().__init__(message)
        self.code, self.message, self.data = code, message, data
        self.request_id = request_id  # the id of the request it answers, when it could be read
        self.modern = modern  # raised by the 2026-07-28 checks, before the request's era was settled

    def body(self):
        return {"code": self.code, "message": self.message, **({"data": self.data} if self.data is not None else {})}


@dataclass(frozen=True)
class Message:
    """A decoded JSON-RPC message: a request (`id` set), a notification, or a response the client posted."""

    id: Any
    method: str | None
    params: dict
    kind: str  # "request", "notification" or "response"


@dataclass(frozen=True)
class Era:
    modern: bool
    version: str


def shown(text):
    """A name the client sent, as an error message may repeat it."""
    cleaned = "".join(char if char.isprintable() else "?" for char in text[:SHOWN_NAME_MAX])
    return cleaned + ("…" if len(text) > SHOWN_NAME_MAX else "")


def _valid_id(value):
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def read_message(decoded):
    """The Message of a decoded body, or RpcError(INVALID_REQUEST) naming the request's id when it has one."""
    if isinstance(decoded, list):
        raise RpcError(INVALID_REQUEST, _("Batches are not supported: send one JSON-RPC message per request."))
    if not isinstance(decoded, dict) or decoded.get("jsonrpc") != "2.0":
        raise RpcError(INVALID_REQUEST, _("The body must be one JSON-RPC 2.0 request or notification."))
    has_id = "id" in decoded
    message_id = decoded.get("id") if has_id and _valid_id(decoded.get("id")) else None
    if "method" not in decoded and has_id and message_id is not None and ("result" in decoded or "error" in decoded):
        return Message(message_id, None, {}, "response")
    params = decoded.get("params", {})
    if not isinstance(decoded.get("method"), str) or (has_id and message_id is None) or not isinstance(params, dict):
        raise RpcError(INVALID_REQUEST, _("The body must be one JSON-RPC 2.0 request or notification."),
                       request_id=message_id)
    return Message(message_id, decoded["method"], params, "request" if has_id else "notification")


def _unsupported(requested):
    return RpcError(UNSUPPORTED_PROTOCOL_VERSION, _("Unsupported protocol version"),
                    {"supported": list(SUPPORTED_VERSIONS), "requested": requested})


def era_of(message, headers):
    """The generation and version `message` speaks; RpcError when its version or headers do not hold."""
    header = headers.get(VERSION_HEADER)
    meta = message.params.get("_meta")
    if message.method == "initialize":
        return Era(False, HANDSHAKE_VERSIONS[0])
    if isinstance(meta, dict) and VERSION_KEY in meta:
        return _modern(message, headers, meta)
    if header is None:  # a bare discover is a probe; anything else is served as the newest handshake version
        discover = message.method == "server/discover"
        return Era(discover, MODERN_VERSIONS[0] if discover else HANDSHAKE_VERSIONS[0])
    if header in HANDSHAKE_VERSIONS:
        return Era(False, header)
    if header in MODERN_VERSIONS:
        return _modern(message, headers, meta)
    raise _unsupported(header)


def _modern(message, headers, meta):
    """The 2026-07-28 checks: the envelope in `_meta`, the headers that mirror the body, a version spoken here."""
    if message.kind != "request":
        return Era(True, MODERN_VERSIONS[0])
    if not isinstance(meta, dict) or VERSION_KEY not in meta or CAPABILITIES_KEY not in meta:
        raise RpcError(INVALID_PARAMS, _("params._meta must carry %(version)s and %(capabilities)s.",
                                         version=VERSION_KEY, capabilities=CAPABILITIES_KEY), modern=True)
    version = meta[VERSION_KEY]
    mirrored = {VERSION_HEADER: version, METHOD_HEADER: message.method}
    if message.method == "tools/call" and isinstance(message.params.get("name"), str):
        mirrored[NAME_HEADER] = message.params["name"]
    for name, expected in mirrored.items():
        values = headers.getlist(name)
        if len(values) != 1 or _decoded(values[0]) != expected:
            raise RpcError(HEADER_MISMATCH, _("The %(header)s header does not match the request body.", header=name))
    if not isinstance(version, str):
        raise RpcError(INVALID_PARAMS, _("The protocol version must be a string."), modern=True)
    if version not in MODERN_VERSIONS:
        raise _unsupported(version)
    return Era(True, version)


def _decoded(value):
    """A header value, its `=?base64?...?=` form decoded (None when that form does not decode)."""
    if value.startswith("=?base64?") and value.endswith("?=") and len(value) >= 11:
        try:  # a non-ASCII value, bad base64 and bad UTF-8 are all ValueErrors
            return base64.b64decode(value[9:-2].encode("ascii"), validate=True).decode("utf-8")
        except ValueError:
            return None
    return value


def server_info():
    config = current_app.config
    return {"name": config["SERVICE_NAME"].lower(), "title": config["SERVICE_NAME"],
            "version": config["SERVICE_VERSION"]}


def handle(message, era, caller):
    """The result of a request, or RpcError."""
    method = message.method
    if method == "initialize":
        requested = message.params.get("protocolVersion")
        return {"protocolVersion": requested if requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[0],
                "capabilities": CAPABILITIES, "serverInfo": server_info(), "instructions": INSTRUCTIONS}
    if method == "server/discover":
        return _modern_result({"supportedVersions": list(SUPPORTED_VERSIONS), "capabilities": CAPABILITIES,
                               "instructions": INSTRUCTIONS, "ttlMs": LIST_TTL_MS, "cacheScope": "public"})
    if method == "ping" and not era.modern:
        return {}
    if method == "tools/list":
        if message.params.get("cursor") is not None:
            raise RpcError(INVALID_PARAMS, _("Unknown cursor: the tool list has one page."))
        tools = {"tools": [tool.listed() for tool in TOOLS]}
        return _modern_result({**tools, "ttlMs": LIST_TTL_MS, "cacheScope": "public"}) if era.modern else tools
    if method == "tools/call":
        result = call_tool(message.params, caller)
        return _modern_result(result) if era.modern else result
    raise RpcError(METHOD_NOT_FOUND, _("Method not found: %(method)s", method=shown(method)))


def _modern_result(result):
    return {**result, "resultType": "complete", "_meta": {SERVER_INFO_KEY: server_info()}}


def call_tool(params, caller):
    """A tool's CallToolResult: its structured answer, or `isError` with the reason it was refused (a role, a
    scope, a stale version, a missing diagram...). An unknown tool or arguments that do not fit its schema are
    invalid params."""
    name, arguments = params.get("name"), params.get("arguments")
    tool = BY_NAME.get(name) if isinstance(name, str) else None
    if tool is None:
        raise RpcError(INVALID_PARAMS, _("Unknown tool: %(name)s", name=shown(name) if isinstance(name, str) else "-"))
    arguments = {} if arguments is None else arguments
    try:
        outcome = tool.run(caller, ensure_valid(tool.input_schema, arguments))
    except InvalidArguments as invalid:
        db.session.rollback()
        raise RpcError(INVALID_PARAMS, _("Invalid arguments for %(tool)s: %(problems)s", tool=tool.name,
                                         problems="; ".join(invalid.problems)),
                       {"problems": invalid.problems}) from None
    except AppError as refusal:
        db.session.rollback()
        return tool_error(refusal)
    if not isinstance(outcome, Outcome):
        outcome = Outcome(outcome)
    return {"content": outcome.content or [{"type": "text", "text": to_json(outcome.structured)}],
            "structuredContent": outcome.structured, "isError": False}


def _problem_text(detail):
    if isinstance(detail, str):
        return detail
    return "; ".join(f"{item['loc'][-1]}: {item['msg']}" if len(item.get("loc", ())) > 1 else item["msg"]
                     for item in detail)


def tool_error(refusal):
    """The CallToolResult of a refused tool call: the localized reason as text, and in structuredContent the
    status the REST route would have answered, its error_code and what it added (current_version, retry_after)."""
    structured = {"status": refusal.status, **(refusal.extra or {})}
    if refusal.error_code:
        structured["error_code"] = refusal.error_code
    if "Retry-After" in refusal.headers:
        structured["retry_after"] = int(refusal.headers["Retry-After"])
    return {"content": [{"type": "text", "text": _problem_text(refusal.detail)}], "structuredContent": structured,
            "isError": True}


def to_json(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=_iso)


def _iso(value):
    if hasattr(value, "isoformat"):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON")


def reply(message_id, result):
    return {"jsonrpc": "2.0", "id": message_id, "result": result}


def error_reply(error, message_id=None):
    """The error response of `error`, to the request it names or else `message_id` (None: an unread request)."""
    return {"jsonrpc": "2.0", "id": error.request_id if error.request_id is not None else message_id,
            "error": error.body()}


# The HTTP status of a JSON-RPC error (Streamable HTTP): 2026-07-28 names one for each; the handshake generation
# answers a request it could read with 200 and its error, one it could not read (or an unsupported version) 400.
MODERN_STATUSES = {PARSE_ERROR: 400, INVALID_REQUEST: 400, INVALID_PARAMS: 400, HEADER_MISMATCH: 400,
                   UNSUPPORTED_PROTOCOL_VERSION: 400, METHOD_NOT_FOUND: 404}
HANDSHAKE_STATUSES = {PARSE_ERROR: 400, INVALID_REQUEST: 400, HEADER_MISMATCH: 400, UNSUPPORTED_PROTOCOL_VERSION: 400}


def status_of(error, era):
    modern = error.modern or (era is not None and era.modern)
    return (MODERN_STATUSES if modern else HANDSHAKE_STATUSES).get(error.code, 200)
