"""Freehand sketch JSON as the content rules see it: decoded from untrusted text, and told apart from other
JSON (an object with an `elements` list). The archive's import (archive/sketch.py) and the files API's content
check (core/files/paths.py) share these."""
from ...strict_json import loads as strict_loads


def load_json(text):
    """JSON from untrusted text: NaN/Infinity read as 0; absurd nesting, a lone surrogate or bad syntax is a
    ValueError."""
    return strict_loads(text, parse_constant=lambda _constant: 0.0)


def is_sketch(data):
    return isinstance(data, dict) and isinstance(data.get("elements"), list)
