"""Server-Sent Events framing shared by the streamed routes (chat replies, the change feed)."""
import json

from flask import Response

KEEP_ALIVE = ": keep-alive\n\n"


def sse_event(payload, name=None, event_id=None):
    """One event: its `id:` and `event:` lines when given, a single `data:` line of compact UTF-8 JSON (or of
    `payload` itself when it is JSON text already) and a blank line."""
    data = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    head = (f"id: {event_id}\n" if event_id else "") + (f"event: {name}\n" if name else "")
    return f"{head}data: {data}\n\n"


def sse_response(events):
    return Response(events, mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
