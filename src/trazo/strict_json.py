"""JSON from untrusted input, decoded into values the application can hold.

The stock decoder lets three things through that later fail as a 500: nesting thousands of levels
deep (RecursionError there, or in whatever walks the value next), integers past Python's digit
limit (a ValueError that is not a JSONDecodeError), and lone surrogate escapes ("\\ud800": a
string no database or encoder accepts). Here every one of them is a ValueError.
"""
import json
import re

# Far deeper than anything the API or an import takes; shallow enough that nothing later recurses
# out of stack.
MAX_NESTING = 64
_SURROGATE_ESCAPE = {bytes: re.compile(rb"\\u[dD][89a-fA-F]"), str: re.compile(r"\\u[dD][89a-fA-F]")}
_OPENING = {bytes: (b"[", b"{"), str: ("[", "{")}


def loads(data, **options):
    """`json.loads` of str or bytes; refusals (any of the above, or bad syntax) are ValueErrors."""
    kind = bytes if isinstance(data, (bytes, bytearray)) else str
    try:
        value = json.loads(data, **options)
    except RecursionError as exc:
        raise ValueError("JSON nested too deep") from exc
    if _SURROGATE_ESCAPE[kind].search(data):
        # The decoder joins a valid pair into one character; a lone surrogate cannot be encoded.
        json.dumps(value, ensure_ascii=False).encode()
    # Each level needs an opening bracket: a text with few of them is shallow.
    if sum(data.count(bracket) for bracket in _OPENING[kind]) > MAX_NESTING and _deeper_than(value, MAX_NESTING):
        raise ValueError(f"JSON nested deeper than {MAX_NESTING} levels")
    return value


def is_acceptable(data):
    """Whether `data` is JSON that `loads` accepts."""
    try:
        loads(data)
    except ValueError:
        return False
    return True


def _deeper_than(value, limit):
    level = [value] if isinstance(value, (dict, list)) else []
    for _ in range(limit):
        level = [child for container in level
                 for child in (container.values() if isinstance(container, dict) else container)
                 if isinstance(child, (dict, list))]
        if not level:
            return False
    return True


def answers_invalid_json(view):
    """Mark a view that answers a body that is not acceptable JSON itself (the MCP endpoint answers a JSON-RPC
    parse error), so that web/hooks.py does not refuse the body before it."""
    view.answers_invalid_json = True
    return view


def view_answers_invalid_json(view):
    return getattr(view, "answers_invalid_json", False)
