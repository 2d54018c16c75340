"""Render fairness and PNG cost under the attacks of issue 24 (docs/security.md, "Render fairness" and "PNG
budget"), measured in process with Flask test clients, one thread per request, each with a client address.

- `mermaid`: one address runs two costly Mermaid renders (a valid ~26 KB flowchart, 1,990 edges over 300
  nodes, each with a unique comment so the cache misses); 0.5 s later another address renders a one-line
  flowchart: its status and seconds.
- `plantuml`: one address runs six 160-byte recursive PlantUML sources; 0.5 s later another address
  renders a trivial Graphviz graph: its status and seconds.
- `png`: a public link of a 1.6 KB D2 source with 30 shadowed 800x800 shapes; its SVG is fetched once,
  then 12 `GET /shared/{token}/image.png` from one address: their statuses and the CPU seconds of this
  process and its children (resvg) they took.

Usage: `.venv/bin/python bench/render_fairness.py [mermaid] [plantuml] [png]` (all three by default);
`RENDER_MAX_PNG_PIXELS=1000000000000` in the environment lifts the pixel bound, so resvg runs.
"""
import base64
import json
import os
import random
import resource
import sys
import tempfile
import threading
import time

from trazo import create_app
from trazo.extensions import db

API = "/api/v1"
PASSWORD = "Sturdy-Passw0rd!"


def mermaid_costly(tag):
    """A valid flowchart of 1,990 edges over 300 nodes (~26 KB); `tag` makes it miss the cache."""
    rng = random.Random(7)
    edges = set()
    while len(edges) < 1990:
        a, b = rng.randrange(300), rng.randrange(300)
        if a != b:
            edges.add((a, b))
    return "flowchart TD\n  %% " + tag + "\n" + "\n".join(f"n{a} --> n{b}" for a, b in sorted(edges)) + "\n"


def plantuml_recursive(tag):
    """160 bytes that ask PlantUML's preprocessor for 2^26 calls."""
    text = ("@startuml\n!function $f($n)\n!if $n == 0\n!return 1\n!endif\n!return $f($n - 1) + $f($n - 1)\n"
            "!endfunction\nAlice -> Bob : $f(26)\n@enduml\n")
    return "' " + tag.ljust(160 - len(text) - 3, ".") + "\n" + text


def d2_shadows():
    """30 shadowed 800x800 shapes: a 25,945 x 1,007 canvas whose shadows resvg blurs for minutes."""
    return "\n".join(f"shape{i}: {{width: 800; height: 800; style.shadow: true}}" for i in range(30)) + "\n"


def build_app():
    folder = tempfile.mkdtemp(prefix="trazo-bench-")
    env = {"APP_ENV": "testing", "INSTANCE_PATH": folder, "DATABASE_URL": f"sqlite:///{folder}/bench.db",
           "RATELIMIT_STORAGE_URI": "memory://", "SECRET_KEY": "bench-secret-key-0123456789abcdef",
           "JWT_SECRET_KEY": "bench-jwt-secret-0123456789abcdef0123456789",
           "ENCRYPTION_KEYS": base64.urlsafe_b64encode(b"k" * 32).decode(), "FRONTEND_URL": "http://localhost",
           "EMAIL_BACKEND": "console", "ARGON2_TIME_COST": "1", "ARGON2_MEMORY_COST": "1024",
           "ARGON2_PARALLELISM": "1", "RENDER_BACKEND": "local"}
    if os.environ.get("RENDER_MAX_PNG_PIXELS"):  # e.g. 10**12: resvg runs (and fails), no pixel bound
        env["RENDER_MAX_PNG_PIXELS"] = os.environ["RENDER_MAX_PNG_PIXELS"]
    app = create_app(env=env)
    with app.app_context():
        db.create_all()
    return app


def request(app, address, method, path, token=None, **kwargs):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return app.test_client().open(API + path, method=method, headers=headers,
                                  environ_base={"REMOTE_ADDR": address}, **kwargs)


def render(app, address, kind, source):
    started = time.monotonic()
    response = request(app, address, "POST", "/diagrams/render", json={"source": source, "diagram_type": kind})
    return response.status_code, round(time.monotonic() - started, 2), response.headers.get("Retry-After")


def victim_during(app, attack_kind, attack_sources, victim_kind, victim_source):
    """(the victim's (status, seconds, Retry-After), each attacker's) with every attack from one address."""
    attackers = []
    threads = [threading.Thread(target=lambda s=source: attackers.append(render(app, "10.9.0.1", attack_kind, s)))
               for source in attack_sources]
    for thread in threads:
        thread.start()
    time.sleep(0.5)
    victim = render(app, "10.9.0.2", victim_kind, victim_source)
    for thread in threads:
        thread.join()
    return victim, attackers


def bench_mermaid(app):
    print("warm-up:", render(app, "10.9.0.3", "mermaid", "flowchart LR\n  warm --> up"))
    tag = str(time.time_ns())
    victim, attackers = victim_during(app, "mermaid", [mermaid_costly(f"{tag}-{n}") for n in range(2)],
                                      "mermaid", f"flowchart LR\n  victim{tag} --> ok")
    return {"victim": victim, "attackers": attackers}


def bench_plantuml(app):
    print("warm-up:", render(app, "10.9.0.3", "graphviz", "digraph { warm -> up }"))
    tag = str(time.time_ns())
    victim, attackers = victim_during(app, "plantuml", [plantuml_recursive(f"{tag}-{n}") for n in range(6)],
                                      "graphviz", f"digraph {{ victim{tag} -> ok }}")
    return {"victim": victim, "attackers": attackers}


def bench_png(app):
    email = f"bench-{time.time_ns()}@example.com"
    request(app, "10.9.1.1", "POST", "/users/register", json={"email": email, "password": PASSWORD,
                                                                  "full_name": "Bench"})
    token = request(app, "10.9.1.1", "POST", "/users/login",
                    json={"email": email, "password": PASSWORD}).get_json()["access_token"]
    project = request(app, "10.9.1.1", "POST", "/projects", token, json={"name": "Bench"}).get_json()
    diagram = request(app, "10.9.1.1", "POST", f"/projects/{project['id']}/diagrams", token,
                      json={"title": "Shadows", "diagram_type": "d2", "content": d2_shadows()}).get_json()
    link = request(app, "10.9.1.1", "POST", "/shared-links", token, json={"diagram_id": diagram["id"]}).get_json()
    svg = request(app, "10.9.1.2", "GET", f"/shared/{link['token']}/image.svg")
    before_self = resource.getrusage(resource.RUSAGE_SELF)
    before_children = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    answers = []
    for _ in range(12):
        began = time.monotonic()
        response = request(app, "10.9.1.3", "GET", f"/shared/{link['token']}/image.png")
        answers.append((response.status_code, round(time.monotonic() - began, 2)))
    after_self = resource.getrusage(resource.RUSAGE_SELF)
    after_children = resource.getrusage(resource.RUSAGE_CHILDREN)

    def cpu(after, before):
        return round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 2)

    return {"svg": svg.status_code, "source_bytes": len(d2_shadows()), "answers": answers,
            "wall_seconds": round(time.monotonic() - started, 1),
            "cpu_seconds_children": cpu(after_children, before_children),
            "cpu_seconds_self": cpu(after_self, before_self),
            "detail": json.loads(response.get_data(as_text=True) or "{}") if response.status_code >= 400 else None}


def main(names):
    app = build_app()
    benches = {"mermaid": bench_mermaid, "plantuml": bench_plantuml, "png": bench_png}
    for name in names or list(benches):
        print(name, json.dumps(benches[name](app)), flush=True)
    os._exit(0)  # the Mermaid engine's browser goes with this process


if __name__ == "__main__":
    main(sys.argv[1:])
