"""A tool's arguments checked against its `inputSchema` (docs/mcp.md): the JSON Schema a client is shown is the
one enforced, so the two never drift apart.

Only the keywords the tools' schemas use are read: `type` (object, string, integer, boolean), `properties`,
`required`, `additionalProperties: false`, `enum`, `minLength`/`maxLength`, `minimum`/`maximum` and `anyOf`
(alternative sets of required arguments); any other keyword (`description`, `default`, ...) is documentation.
No string may hold a NUL character (PostgreSQL text cannot), and no integer passes the database's (2^31 - 1)
unless its schema says less. Problems are localized sentences naming the
argument; the dispatcher answers them as JSON-RPC invalid params (-32602).
"""
from flask_babel import gettext as _

ROOT = "arguments"
INTEGER_MAX = 2_147_483_647  # the database's integer: a schema without `maximum` gets this one


class InvalidArguments(ValueError):
    """The arguments do not fit the tool: `problems` is the list of sentences saying why."""

    def __init__(self, problems):
        super().__init__("; ".join(problems))
        self.problems = problems


def ensure_valid(schema, arguments):
    """`arguments` when they fit `schema`, else InvalidArguments with every problem found."""
    problems = _problems(schema, arguments, ROOT)
    if problems:
        raise InvalidArguments(problems)
    return arguments


def _problems(schema, value, where):
    kind = schema.get("type")
    if kind is not None and not _is_a(kind, value):
        return [_type_problem(kind, where)]
    problems = []
    if isinstance(value, str):
        problems += _string_problems(schema, value, where)
    elif isinstance(value, int) and not isinstance(value, bool):
        problems += _number_problems(schema, value, where)
    elif isinstance(value, dict):
        problems += _object_problems(schema, value, where)
    if "enum" in schema and value not in schema["enum"]:
        problems.append(_("%(field)s must be one of: %(choices)s.", field=where,
                          choices=", ".join(str(choice) for choice in schema["enum"])))
    if "anyOf" in schema and not any(not _problems(branch, value, where) for branch in schema["anyOf"]):
        forms = "; ".join(" + ".join(branch.get("required", ())) for branch in schema["anyOf"])
        problems.append(_("%(field)s must name one of: %(forms)s.", field=where, forms=forms))
    return problems


def _is_a(kind, value):
    if kind == "object":
        return isinstance(value, dict)
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "boolean":
        return isinstance(value, bool)
    raise ValueError(f"the argument checker does not read type {kind!r}")


def _type_problem(kind, where):
    messages = {"object": _("%(field)s must be an object.", field=where),
                "string": _("%(field)s must be a string.", field=where),
                "integer": _("%(field)s must be an integer.", field=where),
                "boolean": _("%(field)s must be true or false.", field=where)}
    return messages[kind]


def _string_problems(schema, value, where):
    if "\x00" in value:
        return [_("%(field)s must not contain NUL characters.", field=where)]
    if len(value) < schema.get("minLength", 0):
        return [_("%(field)s must hold at least %(limit)s characters.", field=where, limit=schema["minLength"])]
    if "maxLength" in schema and len(value) > schema["maxLength"]:
        return [_("%(field)s must hold at most %(limit)s characters.", field=where, limit=schema["maxLength"])]
    return []


def _number_problems(schema, value, where):
    if "minimum" in schema and value < schema["minimum"]:
        return [_("%(field)s must be at least %(limit)s.", field=where, limit=schema["minimum"])]
    most = schema.get("maximum", INTEGER_MAX)
    if value > most:
        return [_("%(field)s must be at most %(limit)s.", field=where, limit=most)]
    return []


def _object_problems(schema, value, where):
    properties = schema.get("properties", {})
    problems = [_("%(field)s is required.", field=f"{where}.{name}")
                for name in schema.get("required", ()) if name not in value]
    for name, item in value.items():
        if name in properties:
            problems += _problems(properties[name], item, f"{where}.{name}")
        elif schema.get("additionalProperties") is False:
            problems.append(_("%(field)s is not expected.", field=f"{where}.{_shown(name)}"))
    return problems


def _shown(name):
    """An unknown argument's name as a message may show it: at most 64 characters, without control characters."""
    cleaned = "".join(char if char.isprintable() else "?" for char in name[:64])
    return cleaned + ("…" if len(name) > 64 else "")
