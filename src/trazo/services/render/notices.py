"""What a drawing left out, for the answer to say: D2 icons that could not be fetched
(services/render/icons.py). The render route sends them in the `X-Render-Warnings` header
(docs/rendering.md, "Icons"); the image links draw without them.

A drawing that left something out is not kept in the render cache (services/render/__init__.py): the next
request draws it again, and the icon cache remembers a failure only briefly.
"""
import contextvars
import json
from contextlib import contextmanager

HEADER = "X-Render-Warnings"
# The header stays small (proxies refuse large response headers): long URLs are cut, and entries past
# MAX_HEADER_CHARS are counted in a last {"reason": "more", "count": n} entry.
MAX_URL_CHARS = 200
MAX_HEADER_CHARS = 2048

_found = contextvars.ContextVar("trazo_render_notices", default=None)


@contextmanager
def collecting():
    """Collect what the drawings inside the block leave out: yields the list they fill. A collector
    around this one gets them too."""
    outer = _found.get()
    found = []
    token = _found.set(found)
    try:
        yield found
    finally:
        _found.reset(token)
        if outer is not None:
            outer.extend(found)


def add(entry):
    """Record something the current drawing left out (a dict such as {"icon": url, "reason": "timeout"})."""
    found = _found.get()
    if found is not None:
        found.append(entry)


def header_value(entries):
    """The entries as a JSON array in ASCII (no line breaks: a URL's control characters are escaped), at
    most MAX_HEADER_CHARS long."""
    kept, size = [], 2
    for index, entry in enumerate(entries):
        entry = {key: value[:MAX_URL_CHARS] if isinstance(value, str) else value for key, value in entry.items()}
        text = json.dumps(entry, ensure_ascii=True, separators=(",", ":"))
        if size + len(text) + 1 > MAX_HEADER_CHARS - 40:  # room for the "more" entry
            kept.append(json.dumps({"reason": "more", "count": len(entries) - index}, separators=(",", ":")))
            break
        kept.append(text)
        size += len(text) + 1
    return "[" + ",".join(kept) + "]"
