"""Where a hot request spends its time: cProfile over the four DB-backed reads of `make bench` and the autosave
(PUT /diagrams/{id}, a real edit each time), in process.

The service is built by `create_app` with the production settings bench/service.py gives (a fresh database
at the newest migration, seeded through the API by bench/seed.py under gunicorn), then each route's WSGI
environ is built once and the application called with it N times, the answer read in full, as gunicorn
would. Prints per route: the mean wall time per request without the profiler, the SQL statements per
request, and the profile's top entries by own time and by cumulative time; then bench/floor.py's wall time
on the same request (single-threaded, so the ratio is of CPU and round trips, not of throughput).

    .venv/bin/python -m bench.profile [--backend pg|sqlite] [--requests 2000] [--top 25]
                                      [--routes "GET /projects,..."] [--database trazo_profile] [--redis-db 9]

How to read it: docs/operations.md, "Benchmarks".
"""
import argparse
import cProfile
import io
import json
import os
import pstats
import time
from pathlib import Path

from sqlalchemy import event
from werkzeug.test import EnvironBuilder

from trazo import create_app
from trazo.extensions import db

from . import autosave, floor, seed
from .service import Gunicorn, free_port, production_env, reset_database

READS = ("GET /projects", "GET /projects/{id}", "GET /diagrams/{id}", "GET /shared/{token}/diagram")
AUTOSAVE = autosave.ENDPOINT  # every request a real edit (bench/autosave.py); the floor has no writes
ROUTES = (*READS, AUTOSAVE)


def routes(seeded):
    return {
        "GET /projects": Requests("/api/v1/projects", seeded.token),
        "GET /projects/{id}": Requests(f"/api/v1/projects/{seeded.project_ids[0]}", seeded.token),
        "GET /diagrams/{id}": Requests(f"/api/v1/diagrams/{seeded.diagram_ids[0]}", seeded.token),
        "GET /shared/{token}/diagram": Requests(f"/api/v1/shared/{seeded.share_token}/diagram", None),
        # its own diagram (the reads' answers stay as seeded), primed to the size the saves keep
        AUTOSAVE: Requests(f"/api/v1/diagrams/{seeded.diagram_ids[1]}", seeded.token, edits=True),
    }


def call(app, environ):
    """One request as gunicorn makes it: (status, body bytes)."""
    answer = {}

    def start_response(status, headers, exc_info=None):
        answer["status"] = status

    chunks = app(environ, start_response)
    try:
        body = b"".join(chunks)
    finally:
        if hasattr(chunks, "close"):
            chunks.close()
    return answer["status"], body


def environ_of(path, token, method="GET", json_body=None):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    headers["X-Forwarded-For"] = "203.0.113.7"
    return EnvironBuilder(path=path, method=method, headers=headers, json=json_body,
                          environ_base={"REMOTE_ADDR": "127.0.0.1"}).get_environ()


class Requests:
    """The environs of one route: the same read again and again, or (`edits`) an autosave whose content
    changes on every request, one line stamped with a counter as bench/lua/autosave.lua does. Each batch
    is built before it is timed (a body is read once)."""

    def __init__(self, path, token, edits=False):
        self.path, self.token, self.edits, self.saves = path, token, edits, 0
        self.revisions = [0] * autosave.LINES
        self.read = None if edits else environ_of(path, token)

    def one(self):
        if not self.edits:
            return dict(self.read)
        self.saves += 1
        self.revisions[(self.saves - 1) % autosave.LINES] = self.saves
        return environ_of(self.path, self.token, "PUT", {"content": autosave.content(self.revisions)})

    def batch(self, count):
        return [self.one() for _ in range(count)]


class StatementCounter:
    """Counts the statements sent; with `show`, prints them too (the floor copies them, bench/floor.py)."""

    def __init__(self, engine):
        self.count, self.show = 0, False
        event.listen(engine, "before_cursor_execute", self.seen)

    def seen(self, _connection, _cursor, statement, parameters, *_args):
        self.count += 1
        if self.show:
            print(f"  SQL {statement}\n      {parameters!r}")


def warm(app, route):
    for environ in route.batch(200):  # statement caches, pools, lazy imports
        call(app, environ)


def mean_us(app, route, requests):
    environs = route.batch(requests)
    started = time.perf_counter()
    for environ in environs:
        call(app, environ)
    return (time.perf_counter() - started) / requests * 1e6


def floor_of(name, route, requests, service_body):
    """bench/floor.py's wall time on the same request, and whether its body parses to the service's
    (None, None for a write: the floor only reads)."""
    if route.edits:
        return None, None
    status, body = call(floor.app, route.one())
    if not status.startswith("200"):
        raise RuntimeError(f"the floor answered {name} with {status}: {body[:300]!r}")
    warm(floor.app, route)
    return mean_us(floor.app, route, requests), json.loads(body) == json.loads(service_body)


def measure(app, counter, name, route, requests, top, save=None):
    counter.show = True
    print(f"\n## {name}: the statements of one request")
    status, body = call(app, route.one())
    counter.show = False
    print(f"  body {body.decode()[:1500]}")
    if not status.startswith("200"):
        raise RuntimeError(f"{name} answered {status}: {body[:300]!r}")
    warm(app, route)
    before = counter.count
    service_us = mean_us(app, route, requests)
    statements = (counter.count - before) / requests
    floor_us, same_body = floor_of(name, route, requests, body)
    environs = route.batch(requests)
    profiler = cProfile.Profile()
    profiler.enable()
    for environ in environs:
        call(app, environ)
    profiler.disable()
    if save:
        profiler.dump_stats(save / (name.replace("/", "_").replace(" ", "").strip("_") + ".prof"))
    report = io.StringIO()
    stats = pstats.Stats(profiler, stream=report)
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)
    floor_text = "no floor" if floor_us is None else f"the floor {floor_us:.0f} us"
    print(f"\n## {name}: {service_us:.0f} us per request (wall, no profiler; {floor_text}), "
          f"{statements:g} statements, {len(body)} bytes\n", flush=True)
    print(report.getvalue().replace(" " * 8, " "))
    return {"route": name, "service_us": round(service_us), "floor_us": floor_us and round(floor_us),
            "statements": statements, "same_body": same_body}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", default="pg", choices=("pg", "sqlite"))
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--routes", default=",".join(ROUTES))
    parser.add_argument("--database", default="trazo_profile")
    parser.add_argument("--redis-db", type=int, default=9)
    parser.add_argument("--save", type=Path, help="a directory to write each route's profile to (<route>.prof)")
    args = parser.parse_args()
    if args.save:
        args.save.mkdir(parents=True, exist_ok=True)
    env = production_env(args.backend, free_port(), database=args.database, redis_db=args.redis_db)
    reset_database(env)
    service = Gunicorn(env)
    try:
        seeded = seed.seed(service.base_url, projects=20, diagrams_per_project=20, big_project=0)
        autosave.prime(service.base_url, seeded.token, seeded.diagram_ids[1:2])
    finally:
        service.stop()
    os.environ.update(env)  # the floor reads its settings there
    app = create_app(env=env)
    with app.app_context():
        counter = StatementCounter(db.engine)
    summary, requests_of = [], routes(seeded)
    for name in args.routes.split(","):
        summary.append(measure(app, counter, name.strip(), requests_of[name.strip()], args.requests, args.top,
                               args.save))
    print("\n| route | service us | floor us | floor/service | statements | the floor's body parses the same |\n"
          "|---|---:|---:|---:|---:|---|")
    for row in summary:
        ratio = "-" if row["floor_us"] is None else f"{row['floor_us'] / row['service_us']:.2f}"
        print(f"| {row['route']} | {row['service_us']} | {row['floor_us'] or '-'} | {ratio} | "
              f"{row['statements']:g} | {'-' if row['same_body'] is None else row['same_body']} |")


if __name__ == "__main__":
    main()
