"""The opaque cursor of a search's next page (docs/search.md, "Pages"): the last hit's score and id, and a
fingerprint of the search it belongs to (the caller, the terms, the filters), base64url-encoded JSON.

A page asks for the hits ranked after that (score, id): each hit of an unchanged index comes once, however
the pages are read. A cursor of another search, or anything that is not a cursor, is a 422.
"""
import base64
import binascii
import hashlib
import json
import math

from flask_babel import gettext as _

from .query import refused

CURSOR_MAX = 512  # characters


def fingerprint(user_id, terms, scope):
    """What a cursor must have been made for (16 hex digits of a SHA-256)."""
    described = json.dumps([user_id, [[term.text, term.prefix] for term in terms], scope.workspace_id,
                            scope.project_id, scope.diagram_type], ensure_ascii=False)
    return hashlib.sha256(described.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def make(score, diagram_id, print_):
    text = json.dumps({"s": score, "i": diagram_id, "f": print_}, separators=(",", ":"))
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def read(cursor, print_):
    """(score, diagram id) of a cursor of this search; 422 otherwise."""
    invalid = refused("cursor", _("Invalid cursor: start the search again without one."))
    if not isinstance(cursor, str) or not cursor or len(cursor) > CURSOR_MAX or not cursor.isascii():
        raise invalid
    try:
        data = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (binascii.Error, ValueError):
        raise invalid from None
    if not isinstance(data, dict) or data.get("f") != print_:
        raise invalid
    score, diagram_id = data.get("s"), data.get("i")
    if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score) \
            or not isinstance(diagram_id, str) or len(diagram_id) > 36:
        raise invalid
    return float(score), diagram_id
