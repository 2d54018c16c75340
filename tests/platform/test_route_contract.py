"""The access contract of every route, read from /openapi.json and checked over HTTP: each operation states
who may call it (docs/api.md, "Authentication and tokens") and documents 429, and the application keeps that word."""
import itertools
import re

import pytest

METHODS = ("get", "put", "post", "delete", "patch")
BEARER = [{"bearerAuth": []}]
BEARER_OR_TOKEN = [{"bearerAuth": []}, {"personalAccessToken": []}]  # content routes (docs/automation.md)
BEARER_OR_TICKET = [{"bearerAuth": []}, {"feedTicket": []}]  # change feed streams (docs/events.md)
SIGNED_IN = (BEARER, BEARER_OR_TOKEN, BEARER_OR_TICKET)
FAKE_ID = "00000000-0000-4000-8000-000000000000"
ADMIN_ONLY = "Admin access required"
_addresses = itertools.count(1)


@pytest.fixture(scope="module")
def spec(app):
    return app.test_client().get("/openapi.json").json


def _security(spec, operation):
    """The operation's security requirement: its own, else the document's."""
    return operation.get("security", spec.get("security", []))


def _operations(spec):
    """(method, path, operation) of every documented operation."""
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if method in METHODS:
                yield method, path, operation


def _documented_path(rule):
    """A Flask rule as the document writes it: /a/<uuid:b_id> -> /a/{b_id}."""
    return re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule.rule)


def _fake_value(rule, name):
    """A value of the parameter nothing has: a well-formed id, a number for an integer parameter, the
    first choice of an `any(...)` one."""
    if re.search(rf"<int(?:\([^)]*\))?:{name}>", rule.rule):
        return 2**31 - 1
    if choices := re.search(rf"<any\(([^)]*)\):{name}>", rule.rule):
        return choices.group(1).split(",")[0].strip()
    return FAKE_ID


def _routes(app, spec, wanted):
    """(method, url, documented path) of every route whose documented operation satisfies `wanted`; path
    parameters hold a well-formed id nothing has."""
    for rule in app.url_map.iter_rules():
        path = _documented_path(rule)
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            operation = spec["paths"].get(path, {}).get(method.lower())
            if operation is not None and wanted(operation, _security(spec, operation)):
                url = rule.build({name: _fake_value(rule, name) for name in rule.arguments}, append_unknown=False)[1]
                yield method, url, path


def _call(app, method, url, token=None):
    """The answer to a request without a body, in English, from an address of its own (no shared budget)."""
    headers = {"Accept-Language": "en"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    number = next(_addresses)
    address = f"10.9.{number // 250 % 250}.{number % 250 + 1}"
    return app.test_client().open(url, method=method, headers=headers, environ_base={"REMOTE_ADDR": address})


def _fail_listing(offenders):
    """Fail with one line per offending route, sorted (so the routes of an area sit together)."""
    if offenders:
        pytest.fail("\n".join([f"{len(offenders)} offending routes:", *sorted(offenders)]), pytrace=False)


# The probes the limiter exempts (a load balancer polls them): they never answer 429, nor document it.
NOT_RATE_LIMITED = {"/", "/health", "/health/ready"}
# Routes kept out of the document on purpose: the document and its viewers with their files, and the
# Prometheus scrape, which answers as an unknown path to anyone but the scraper (docs/operations.md), and the MCP
# endpoint with its protected-resource metadata: JSON-RPC, not REST (docs/mcp.md, tests/api/mcp).
MCP_ROUTES = {"/mcp", "/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"}
# The authorization server of the MCP endpoint: OAuth's own protocol and pages (docs/oauth-server.md, tests/api/oauth2).
OAUTH2_ROUTES = {"/.well-known/oauth-authorization-server", "/oauth2/authorize", "/oauth2/token", "/oauth2/revoke",
                 "/oauth2/register"}
UNDOCUMENTED = {"/openapi.json", "/docs", "/redoc", "/docs-assets/<kind>/<path:filename>", "/static/<path:filename>",
                "/metrics", *MCP_ROUTES, *OAUTH2_ROUTES}


def test_every_route_is_in_the_document_but_the_docs_and_the_metrics(app, spec):
    rules = {rule.rule for rule in app.url_map.iter_rules() if _documented_path(rule) not in spec["paths"]}
    assert rules == UNDOCUMENTED


def test_every_operation_documents_429_and_who_may_call_it(spec):
    offenders = []
    for method, path, operation in _operations(spec):
        security, responses, faults = _security(spec, operation), operation.get("responses", {}), []
        if ("429" in responses) == (path in NOT_RATE_LIMITED):
            faults.append("429 documented on an exempt probe" if path in NOT_RATE_LIMITED else "no 429")
        if "security" not in operation:
            faults.append("no security of its own (the document's bearer applies)")
        if security in SIGNED_IN and "401" not in responses:
            faults.append("bearer without a documented 401")
        elif security not in (*SIGNED_IN, []):
            faults.append(f"security {security!r} is neither [], bearer, bearer or personal token, "
                          "nor bearer or ticket")
        if faults:
            offenders.append(f"{path} {method.upper()}: {'; '.join(faults)}")
    _fail_listing(offenders)


def test_every_route_documented_with_a_bearer_answers_401_without_a_token(app, spec):
    offenders = []
    for method, url, path in _routes(app, spec, lambda _operation, security: security in SIGNED_IN):
        response = _call(app, method, url)
        if response.status_code != 401 or response.get_json() != {"detail": "Not authenticated"}:
            offenders.append(f"{path} {method}: {response.status_code} {response.get_data(as_text=True)[:120]}")
    _fail_listing(offenders)


def test_no_route_documented_as_public_asks_for_a_token(app, spec):
    offenders = []
    for method, url, path in _routes(app, spec, lambda _operation, security: security == []):
        response = _call(app, method, url)
        if response.status_code == 401 and response.get_json() == {"detail": "Not authenticated"}:
            offenders.append(f"{path} {method}")
    _fail_listing(offenders)


def test_routes_documented_for_administrators_refuse_a_normal_users_token(app, spec, user):
    def for_administrators(operation, _security):
        return operation.get("responses", {}).get("403", {}).get("description") == ADMIN_ONLY

    routes = list(_routes(app, spec, for_administrators))
    assert routes, "no route documents the administrators' 403"
    offenders = []
    for method, url, path in routes:
        response = _call(app, method, url, user.token)
        if response.status_code != 403 or response.get_json() != {"detail": ADMIN_ONLY}:
            offenders.append(f"{path} {method}: {response.status_code} {response.get_data(as_text=True)[:120]}")
    _fail_listing(offenders)
