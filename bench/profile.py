"""Where a hot read spends its time: cProfile over the four DB-backed reads of `make bench`, in process.

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

from . import floor, seed
from .service import Gunicorn, free_port, production_env, reset_database

ROUTES = ("GET /projects", "GET /projects/{id}", "GET /diagrams/{id}", "GET /shared/{token}/diagram")


def paths(seeded):
    return {
        "GET /projects": ("/api/v1/projects", seeded.token),
        "GET /projects/{id}": (f"/api/v1/projects/{seeded.project_ids[0]}", seeded.token),
        "GET /diagrams/{id}": (f"/api/v1/diagrams/{seeded.diagram_ids[0]}", seeded.token),
        "GET /shared/{token}/diagram": (f"/api/v1/shared/{seeded.share_token}/diagram", None),
    }


def call(app, environ):
    """One request as gunicorn makes it: (status, body bytes)."""
    answer = {}

    def start_response(status, headers, exc_info=None):
        answer["status"] = status

    chunks = app(dict(environ), start_response)
    try:
        body = b"".join(chunks)
    finally:
        if hasattr(chunks, "close"):
            chunks.close()
    return answer["status"], body


def environ_of(path, token):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    headers["X-Forwarded-For"] = "203.0.113.7"
    return EnvironBuilder(path=path, headers=headers, environ_base={"REMOTE_ADDR": "127.0.0.1"}).get_environ()


class StatementCounter:
    """Counts the statements sent; with `show`, prints them too (the floor copies them, bench/floor.py)."""

    def __init__(self, engine):
        self.count, self.show = 0, False
        event.listen(engine, "before_cursor_execute", self.seen)

    def seen(self, _connection, _cursor, statement, parameters, *_args):
        self.count += 1
        if self.show:
            print(f"  SQL {statement}\n      {parameters!r}")


def warm(app, environ):
    for _ in range(200):  # statement caches, pools, lazy imports
        call(app, environ)


def mean_us(app, environ, requests):
    started = time.perf_counter()
    for _ in range(requests):
        call(app, environ)
    return (time.perf_counter() - started) / requests * 1e6


def floor_of(name, environ, requests, service_body):
    """bench/floor.py's wall time on the same request, and whether its body parses to the service's."""
    status, body = call(floor.app, environ)
    if not status.startswith("200"):
        raise RuntimeError(f"the floor answered {name} with {status}: {body[:300]!r}")
    warm(floor.app, environ)
    return mean_us(floor.app, environ, requests), json.loads(body) == json.loads(service_body)


def measure(app, counter, name, environ, requests, top, save=None):
    counter.show = True
    print(f"\n## {name}: the statements of one request")
    status, body = call(app, environ)
    counter.show = False
    print(f"  body {body.decode()[:1500]}")
    if not status.startswith("200"):
        raise RuntimeError(f"{name} answered {status}: {body[:300]!r}")
    warm(app, environ)
    before = counter.count
    service_us = mean_us(app, environ, requests)
    statements = (counter.count - before) / requests
    floor_us, same_body = floor_of(name, environ, requests, body)
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(requests):
        call(app, environ)
    profiler.disable()
    if save:
        profiler.dump_stats(save / (name.replace("/", "_").replace(" ", "").strip("_") + ".prof"))
    report = io.StringIO()
    stats = pstats.Stats(profiler, stream=report)
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)
    print(f"\n## {name}: {service_us:.0f} us per request (wall, no profiler; the floor {floor_us:.0f} us), "
          f"{statements:g} statements, {len(body)} bytes\n", flush=True)
    print(report.getvalue().replace(" " * 8, " "))
    return {"route": name, "service_us": round(service_us), "floor_us": round(floor_us), "statements": statements,
            "same_body": same_body}


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
    finally:
        service.stop()
    os.environ.update(env)  # the floor reads its settings there
    app = create_app(env=env)
    with app.app_context():
        counter = StatementCounter(db.engine)
    summary = []
    for name in args.routes.split(","):
        path, token = paths(seeded)[name.strip()]
        summary.append(measure(app, counter, name.strip(), environ_of(path, token), args.requests, args.top,
                               args.save))
    print("\n| route | service us | floor us | floor/service | statements | the floor's body parses the same |\n"
          "|---|---:|---:|---:|---:|---|")
    for row in summary:
        print(f"| {row['route']} | {row['service_us']} | {row['floor_us']} | "
              f"{row['floor_us'] / row['service_us']:.2f} | {row['statements']:g} | {row['same_body']} |")


if __name__ == "__main__":
    main()
