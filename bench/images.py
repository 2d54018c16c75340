"""The image link rows and an uncached render per engine (docs/image-links.md, docs/operations.md).

- `etag_of(path)`: a scenario's `prepare` that fetches the image once (drawn and cached) and hands wrk its
  ETag as If-None-Match, so every request of the row is a revalidation answered 304.
- `uncached_renders(base_url)`: for every type this server draws on its own (GET /diagrams/render/engines),
  `count` sequential renders of distinct sources (each one misses the render cache), p50 and p99 in ms.
"""
import time

import requests

SOURCES = {
    "graphviz": "digraph G {{ a{n} -> b{n} -> c{n}; b{n} -> d{n}; }}",
    "plantuml": "@startuml\nAlice{n} -> Bob{n}: hello\nBob{n} --> Alice{n}: ok\n@enduml",
    "c4plantuml": ("@startuml\n!include <C4/C4_Container>\nPerson(user{n}, \"User {n}\")\n"
                   "System(app{n}, \"App {n}\")\nRel(user{n}, app{n}, \"uses\")\n@enduml"),
    "d2": "a{n} -> b{n}: call\nb{n} -> c{n}",
    "dbml": "Table users{n} {{\n  id int [pk]\n  name varchar\n}}\nTable posts{n} {{\n  id int [pk]\n"
            "  user_id int [ref: > users{n}.id]\n}}",
    "mermaid": "graph TD\n  A{n} --> B{n}\n  B{n} --> C{n}",
}


def etag_of(path):
    def prepare(base_url):
        response = requests.get(base_url + path, timeout=60)
        response.raise_for_status()
        return {"env": {"BENCH_IF_NONE_MATCH": response.headers["ETag"]}}

    return prepare


def _percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def uncached_renders(base_url, count=20):
    """{type: {p50_ms, p99_ms, errors}} for every locally drawn type with a source above."""
    engines = requests.get(f"{base_url}/api/v1/diagrams/render/engines", timeout=10)
    if engines.status_code != 200:
        return {}
    local = [entry["type"] for entry in engines.json() if entry.get("backend") == "local"]
    results = {}
    for kind in local:
        if kind not in SOURCES:
            continue
        timings, errors = [], 0
        for n in range(count):
            source = SOURCES[kind].format(n=f"{n}x{time.monotonic_ns()}")
            started = time.perf_counter()
            answer = requests.post(f"{base_url}/api/v1/diagrams/render", json={"source": source, "diagram_type": kind},
                                   timeout=120)
            timings.append((time.perf_counter() - started) * 1000)
            errors += answer.status_code != 200
        results[kind] = {"p50_ms": round(_percentile(timings, 0.5), 1), "p99_ms": round(_percentile(timings, 0.99), 1),
                         "errors": errors}
    return results
