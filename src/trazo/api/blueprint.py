"""The blueprint every area uses: a route declares who may call it and which object its path names, and the
blueprint both enforces the first and documents the common answers (docs/api.md, "Authentication").

    blp = Blueprint("diagrams", __name__, description="Diagrams")

    @blp.route("/<diagram_id>", not_found="Diagram not found")       # a signed-in user (the default)
    @blp.route("/plans", auth=PUBLIC)                                # anyone
    @blp.route("/admin/plans", auth=ADMIN)                           # administrators
    @blp.route("/<diagram_id>/share", auth={"GET": USER, "DELETE": ADMIN})
    @blp.route("/subscriptions/me", transaction=True)                # a GET that writes (see below)

A content area's blueprint is built with `personal_tokens=True`: its USER routes also take a personal
access token (auth.py, docs/automation.md) that has the scope the operation needs, "read" for GET and
HEAD, "write" for the other methods. Every other route refuses personal access tokens with 403, whatever
their scopes; the OpenAPI document lists the `personalAccessToken` scheme and `x-token-scope` on the
operations that take one.

What each level adds to every operation of the route (a function view, or each method of a MethodView):
- USER: the access-token check before anything else runs (so a missing token is a 401 even when the body
  is invalid), the bearer security requirement and a documented 401;
- ADMIN: the same with the administrator check, and a documented 403;
- PUBLIC: no check, and `security: []` in the document.
Every route documents 429 unless the blueprint is built with `rate_limited=False` (one the limiter
exempts); `not_found` documents the 404 its lookup answers.

GET, HEAD and OPTIONS requests run their statements in autocommit, without a transaction (fewer round
trips, docs/operations.md). A GET route whose writes must commit together or follow a read of the same
transaction (creates a row on first use, keeps what an outside service answered) declares
`transaction=True`: every method of the route then runs in a transaction, savepoints and several statements
committed together included. A write of one statement that stands alone (a shared link's visit log line)
needs none: it commits on its own.

A content route declares the workspace role it needs (docs/teams.md): `role="viewer"` (or a dict per method,
like `auth`). The service enforces it through core/content/access.py; the route documents the 403
`insufficient_role` and carries `x-role` in the OpenAPI document, which the role matrix test reads.

A change that a stolen access token alone must not make (second factors, personal tokens) declares
`recent_sign_in=True` (docs/security.md): once its JSON body is parsed and valid, the request must carry
the current password in the body's `password` field or a token from a recent sign-in
(auth.confirm_recent_sign_in), and the route documents that 403. The route needs a JSON body schema with
a `password` field.
"""
from functools import partial, wraps

import flask_smorest
import marshmallow as ma
from flask import g, request
from flask.views import MethodView
from webargs.flaskparser import FlaskParser

from ..auth import admin_required, confirm_recent_sign_in, current_user, login_required
from ..core.accounts.personal_tokens import READ, WRITE
from ..errors import CodedErrorSchema, ErrorSchema
from ..models.workspaces import ROLES
from ..transactions import READ_METHODS, in_transaction

USER, ADMIN, PUBLIC = "user", "admin", "public"
# A change feed stream: the session token, or a one-use ticket in the query the view itself redeems
# (docs/events.md); documented with both schemes, checked by the view.
TICKET = "ticket"
BEARER = [{"bearerAuth": []}]
BEARER_OR_TOKEN = [{"bearerAuth": []}, {"personalAccessToken": []}]
BEARER_OR_TICKET = [{"bearerAuth": []}, {"feedTicket": []}]
RECENT_SIGN_IN_REFUSED = "Wrong password, or no password and no recent sign-in"


IMMUTABLE = (str, int, float, bool, type(None))
KEEPS_OR_REFUSES_UNKNOWN = (ma.RAISE, ma.INCLUDE)
# The locations whose load of nothing may be answered without a load.
FIXED_LOAD_LOCATIONS = frozenset({"query", "querystring", "headers"})


class ArgumentsParser(FlaskParser):
    """webargs' Flask parser with two additions.

    - A query or headers schema whose load of nothing is fixed (no required field, no default computed by a
      function, unknown keys dropped) answers that load, made once, when the request carries none of its
      keys: the usual case (an access token, a filter or a precondition header sent now and then). A load
      would find every field missing and give the same answer, after building the location's proxy and
      running marshmallow on it (docs/operations.md, "The hot read path").
    - On a route declared `recent_sign_in=True`, it confirms the recent sign-in once the JSON body is valid
      (so an invalid body stays a 422, and the password comes from the body)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fixed_loads = {}  # (schema, location) -> (its keys there, what it loads from none of them), or None

    def parse(self, argmap, req=None, *, location=None, **kwargs):
        if (location in FIXED_LOAD_LOCATIONS and isinstance(argmap, ma.Schema) and kwargs.get("validate") is None
                and self._drops_unknown(argmap, location, kwargs.get("unknown"))):
            fixed = self._fixed_load(argmap, location)
            if fixed is not None and not _carries(req or request, location, fixed[0]):
                return dict(fixed[1])
        data = super().parse(argmap, req, location=location, **kwargs)
        if location == "json" and g.pop("recent_sign_in_pending", False):
            confirm_recent_sign_in(current_user, data.get("password"))
        return data

    def _drops_unknown(self, schema, location, unknown):
        """Whether the load drops unknown keys: the schema's setting, and no setting of the parse (the call's,
        the parser's, the location's default) that keeps or refuses them."""
        return schema.unknown == ma.EXCLUDE and all(
            value not in KEEPS_OR_REFUSES_UNKNOWN
            for value in (unknown, self.unknown, self.DEFAULT_UNKNOWN_BY_LOCATION.get(location)))

    def _fixed_load(self, schema, location):
        """(the keys `schema` reads, as `location` names them; what it loads from none of them) when that load is
        always the same and holds only immutable values; else None. Made once per schema and location."""
        if (schema, location) not in self.fixed_loads:
            self.fixed_loads[schema, location] = _load_of_nothing(schema, location)
        return self.fixed_loads[schema, location]


def _load_of_nothing(schema, location):
    fields = schema.load_fields
    if any(field.required or callable(field.load_default) for field in fields.values()):
        return None
    try:
        empty = schema.load({})
    except ma.ValidationError:
        return None
    if not isinstance(empty, dict) or not all(isinstance(value, IMMUTABLE) for value in empty.values()):
        return None
    return tuple(_key_in(location, field.data_key or name) for name, field in fields.items()), empty


def _key_in(location, key):
    """`key` as _carries looks it up: a query key as it is, a header by its WSGI environ name (a dict lookup,
    where werkzeug's header lookup raises and catches a KeyError for every absent header)."""
    if location != "headers":
        return key
    name = key.upper().replace("-", "_")
    return name if name in ("CONTENT_TYPE", "CONTENT_LENGTH") else f"HTTP_{name}"


def _carries(req, location, keys):
    """Whether the request carries one of `keys` (_key_in's) in `location`."""
    present = req.environ if location == "headers" else req.args
    return any(key in present for key in keys)


def requires_recent_sign_in(func):
    """`func` with the recent sign-in confirmed by ArgumentsParser when its JSON body is parsed."""

    @wraps(func)
    def confirmed(*args, **kwargs):
        g.recent_sign_in_pending = True
        try:
            answer = func(*args, **kwargs)
        finally:
            unconfirmed = g.pop("recent_sign_in_pending", False)
        if unconfirmed:
            raise RuntimeError("a recent_sign_in route parsed no JSON body (see api/blueprint.py)")
        return answer

    return confirmed


class Blueprint(flask_smorest.Blueprint):
    """flask-smorest's Blueprint whose `route` takes `auth`, `not_found` and `transaction` (see the module's
    docstring), and `recent_sign_in`."""

    ARGUMENTS_PARSER = ArgumentsParser()

    def __init__(self, *args, rate_limited=True, personal_tokens=False, **kwargs):
        super().__init__(*args, **kwargs)
        self.rate_limited = rate_limited
        self.personal_tokens = personal_tokens

    def route(self, rule, *, auth=USER, not_found=None, transaction=False, recent_sign_in=False, role=None,
              parameters=None, tags=None, **options):
        register = super().route(rule, parameters=parameters, tags=tags, **options)

        def decorator(view):
            if recent_sign_in:
                view = self._recent_sign_in(rule, view, auth)
            if isinstance(view, type) and issubclass(view, MethodView):
                for method in self.HTTP_METHODS:
                    if method in view.methods and ("methods" not in options or method in options["methods"]):
                        name = method.lower()
                        guarded = self._guard(getattr(view, name), _level(auth, method), not_found, transaction,
                                              self._scope((method,)))
                        setattr(view, name, self._needs(guarded, _per_method(role, method)))
                return register(view)
            methods = options.get("methods", ("GET",))
            levels = {_level(auth, method) for method in methods}
            needs = {_per_method(role, method) for method in methods}
            if len(levels) != 1 or len(needs) != 1:
                raise ValueError(f"{rule}: a function view has one access level and one role for all its methods")
            guarded = self._guard(view, levels.pop(), not_found, transaction, self._scope(methods))
            return register(self._needs(guarded, needs.pop()))

        return decorator

    def arguments(self, schema, *args, **kwargs):
        """flask-smorest's `arguments`, given a schema instance built once: webargs builds a new one on every
        request from a schema class (marshmallow's Schema.__init__, per request and argument location)."""
        return super().arguments(schema() if isinstance(schema, type) else schema, *args, **kwargs)

    def _needs(self, func, role):
        """`func` documented with the workspace role it needs (None: no content role)."""
        if role is None:
            return func
        if role not in ROLES:
            raise ValueError(f"unknown role {role!r}; expected one of {ROLES}")
        func = self.alt_response(403, schema=CodedErrorSchema,
                                 description=f"insufficient_role: the caller's role is below {role}")(func)
        return self.doc(**{"x-role": role})(func)

    def _recent_sign_in(self, rule, view, auth):
        if auth != USER or isinstance(view, type):
            raise ValueError(f"{rule}: recent_sign_in is for a function view signed-in users call")
        view = self.alt_response(403, schema=ErrorSchema, description=RECENT_SIGN_IN_REFUSED)(view)
        return requires_recent_sign_in(view)

    def _scope(self, methods):
        """The personal-token scope the operation needs, or None when it refuses personal tokens."""
        if not self.personal_tokens:
            return None
        return READ if all(method in READ_METHODS for method in methods) else WRITE

    def _guard(self, func, level, not_found, transaction=False, token_scope=None):
        """`func` with its access check and the documentation of its common answers (and, with
        `transaction`, its statements in a transaction: the flag is set before the access check)."""
        guarded = self._check_and_document(func, level, not_found, token_scope)
        return in_transaction(guarded) if transaction else guarded

    def _check_and_document(self, func, level, not_found, token_scope=None):
        if self.rate_limited:
            func = self.alt_response(429, schema=ErrorSchema, description="Too many requests (see Retry-After)")(func)
        if not_found:
            func = self.alt_response(404, schema=ErrorSchema, description=not_found)(func)
        if level == PUBLIC:
            return self.doc(security=[])(func)
        if level == TICKET:
            func = self.alt_response(401, schema=ErrorSchema, description="No session token and no valid ticket "
                                     "(a ticket opens one stream)")(func)
            return self.doc(security=BEARER_OR_TICKET)(func)
        if level == ADMIN:
            func = self.alt_response(403, schema=ErrorSchema, description="Admin access required")(func)
            check = admin_required
        elif level == USER:
            check = partial(login_required, token_scope=token_scope)
        else:
            raise ValueError(f"unknown access level {level!r}; expected USER, ADMIN, PUBLIC or TICKET")
        func = self.alt_response(401, schema=ErrorSchema, description="Missing, invalid or expired access token")(func)
        if level == USER and token_scope:
            return check(self.doc(security=BEARER_OR_TOKEN, **{"x-token-scope": token_scope})(func))
        return check(self.doc(security=BEARER)(func))


def _level(auth, method):
    return auth.get(method, USER) if isinstance(auth, dict) else auth


def _per_method(role, method):
    return role.get(method) if isinstance(role, dict) else role
