"""The autosave scenario: PUT /api/v1/diagrams/{id} where every request is a real edit, as the editor's
autosave sends while someone types (the "PUT /diagrams/{id}" row sends one body again and again, so after
its first request every save is identical).

The content is a Mermaid flowchart of LINES lines; bench/lua/autosave.lua stamps one line per request
(in turn) with a save counter, zero-padded, so the text changes on every request and keeps its size. Each
wrk connection runs in its own wrk thread and edits its own diagram of the same user: one request in
flight per diagram, as one person typing, so writers never queue on one diagram's row lock. Before the
load, every diagram gets a text of that size (the seeded one is shorter): the measured saves then never
grow the account's storage, so they never take its quota lock either (as the editor workload's).
"""
from pathlib import Path

import requests

from . import load

LUA = Path(__file__).resolve().parent / "lua" / "autosave.lua"
HEADER = "flowchart TD"
LINES = 40
# (line, line, revision, line + 1); no quote or backslash: the Lua script writes the JSON string itself.
LINE_FORMAT = "    n%02d[step %02d, revision %010d] --> n%02d"
ENDPOINT = "PUT /diagrams/{id} (autosave)"
assert '"' not in LINE_FORMAT + HEADER and "\\" not in LINE_FORMAT + HEADER


def content(revisions=None):
    """The text the Lua script sends, for these revisions of each line (all 0: the primed text)."""
    revisions = revisions or [0] * LINES
    return "\n".join([HEADER] + [LINE_FORMAT % (line, line, revisions[line - 1], line + 1)
                                 for line in range(1, LINES + 1)])


def prime(base_url, token, diagram_ids):
    """Give each diagram a text of the size the autosaves keep."""
    with requests.Session() as session:
        session.headers["Authorization"] = f"Bearer {token}"
        for diagram_id in diagram_ids:
            response = session.put(f"{base_url}/api/v1/diagrams/{diagram_id}", json={"content": content()},
                                   timeout=30)
            if response.status_code != 200:
                raise RuntimeError(f"priming diagram {diagram_id} for the autosaves: {response.status_code} "
                                   f"{response.text[:300]}")


def scenario(token, diagram_ids, connections):
    """A bench.run scenario spec: load.wrk's keyword arguments, plus `prepare(base_url)` to call first."""
    ids = list(diagram_ids[:connections])
    if len(ids) < connections:
        raise ValueError(f"the autosave scenario needs {connections} diagrams (one per connection), got {len(ids)}")
    return {"path": "/api/v1/diagrams/{id}", "method": "PUT", "token": token, "script": LUA,
            "thread_per_connection": True,
            "env": {"BENCH_DIAGRAMS": ",".join(ids), "BENCH_HEADER": HEADER, "BENCH_LINES": str(LINES),
                    "BENCH_LINE_FORMAT": LINE_FORMAT},
            "prepare": lambda base_url: prime(base_url, token, ids)}


def run(base_url, token, diagram_ids, connections, duration):
    """Prime the diagrams, then `duration` seconds of autosaves over `connections` connections."""
    spec = scenario(token, diagram_ids, connections)
    spec.pop("prepare")(base_url)
    return load.wrk(base_url, connections=connections, duration=duration, **spec)
