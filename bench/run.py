"""make bench: the service under its production gunicorn settings, on PostgreSQL + Redis and on SQLite,
loaded by wrk from a second process, between the bare-Flask ceiling and the hand-written floor (and the same
reads through the bare stack, bench/stack_floor.py); then the
editor workload's capacity (how many concurrent editors hold p99 < 250 ms); then, on PostgreSQL + Redis with
the production defaults, the change feed: N subscribers held while editors autosave (bench/feed.py).

With --compare-ref, instead: the autosave scenario (--only service), the editor capacity (--only editor) and
the DB-backed reads against each side's floor (--only floor) on REF's code and on the working tree,
alternating, in one run (bench/compare.py); writes bench-results/compare.md and compare.json.

    .venv/bin/python -m bench.run [--backends pg,sqlite] [--duration 10] [--connections 16] [--streams 500]
                                  [--only ceiling,floor,stack,service,editor,search,feed] [--editor-max-users 3200]
                                  [--search-diagrams 50000] [--search-requests 60]
                                  [--subscribers 1000[,2000]] [--feed-env NAME=VALUE ...]
                                  [--database trazo_bench] [--redis-db 7]
    .venv/bin/python -m bench.run --compare-ref REF [--compare-new-ref REF2] [--rounds 3] [--editor-rounds 1]
                                  [--only service,editor,floor] [--backends ...] [--duration 10] ...

Prints a Markdown table (requests/s, p50/p99, errors, ratio to the ceiling and to the floor, peak RSS per
worker, the editor capacity and its search, the feed's delivery) and writes bench-results/results.json. How to
read it: docs/operations.md, "Benchmarks".
"""
import argparse
import json
import os
import time
from urllib.parse import urlsplit

import requests

from . import compare, editor, feed, images, load, search, seed, streams
from .fake_openai import FakeOpenAI
from .scenarios import FLOOR, STACK_FLOOR, ready_floor, scenarios
from .service import DATABASE, REDIS_DB, ROOT, Gunicorn, free_port, production_env, reset_database

RESULTS = ROOT / "bench-results"
# each backend's parts; the feed runs on PostgreSQL + Redis
SERVICE_PARTS = ("ceiling", "floor", "stack", "service", "editor", "search")
PARTS = (*SERVICE_PARTS, "feed")


def stream_count(backend, args):
    """With SQLite and in-memory limits there is one worker: it holds at most its threads' worth of streams."""
    if backend == "pg" or args.workers:
        return args.streams
    return min(args.streams, args.threads - 8)


def run_ceiling(env, args):
    """The same gunicorn settings serving a bare Flask app, on a quiet machine."""
    ceiling = Gunicorn(env, target="bench.hello:app")
    try:
        load.wrk(ceiling.base_url, "/health", connections=args.connections, duration=3)  # every worker up and warm
        return load.wrk(ceiling.base_url, "/health", connections=args.connections, duration=args.duration)
    finally:
        ceiling.stop()


def run_floor(env, seeded, args, target=FLOOR, label="floor"):
    """bench/floor.py (or `target`) on the service's database and secrets, on each DB-backed read:
    {route: wrk result}."""
    results = {}
    with ready_floor(env, seeded, args.connections, target) as (floor, routes):
        for name, spec in routes:
            results[name] = load.wrk(floor.base_url, **{"connections": args.connections,
                                                        "duration": args.duration, **spec})
            print(f"  {label:6} {name:32} {results[name]['rps']:>9.1f} req/s  p99 {results[name]['p99_ms']} ms",
                  flush=True)
    return results


def run_scenarios(service, backend, seeded, args):
    rows = []
    for name, spec in scenarios(seeded, args.connections):
        spec = {"connections": args.connections, "duration": args.duration, **spec}
        if prepare := spec.pop("prepare", None):
            spec.update(prepare(service.base_url) or {})
        rows.append({"backend": backend, "endpoint": name, **load.wrk(service.base_url, **spec)})
        print(f"  {backend:6} {name:32} {rows[-1]['rps']:>9.1f} req/s  p99 {rows[-1]['p99_ms']} ms", flush=True)
    for kind, measured in images.uncached_renders(service.base_url).items():
        rows.append({"backend": backend, "endpoint": f"POST /diagrams/render (uncached, {kind})", "rps": None,
                     **measured})
        print(f"  {backend:6} uncached {kind:22} p50 {measured['p50_ms']} ms  p99 {measured['p99_ms']} ms", flush=True)
    count = stream_count(backend, args)
    if count:
        held = streams.hold_streams(service.base_url, seeded.token, seeded.chat_session_id, count)
        rows.append({"backend": backend, "endpoint": f"{count} chat streams + GET /health",
                     "rps": None, "p50_ms": held["health_p50_ms"], "p99_ms": held["health_p99_ms"],
                     "errors": held["errors"], "held": held["held"]})
    return rows


def service_settings(args, fake):
    """The settings every service instance gets on top of production_env's."""
    # The chat scenario's provider is a user's OpenAI-compatible server on this host: allow-list it.
    extra = {"RENDER_BACKEND": "local", "OPENAI_BASE_URL": fake.base_url,
             "AI_ALLOWED_PRIVATE_HOSTS": urlsplit(fake.base_url).netloc,
             "GUNICORN_THREADS": str(args.threads)}
    if args.workers:
        extra["WEB_CONCURRENCY"] = str(args.workers)
    return extra


def bench_backend(backend, args, fake):
    extra = service_settings(args, fake)
    parts = args.only

    def environment():
        return production_env(backend, free_port(), extra, database=args.database, redis_db=args.redis_db)

    top = run_ceiling(environment(), args) if "ceiling" in parts else None
    env = environment()
    reset_database(env)
    RESULTS.mkdir(exist_ok=True)
    log_path = RESULTS / f"service-{backend}.log"
    log_path.unlink(missing_ok=True)
    service = Gunicorn(env, log_path=log_path)
    rows, floors, stacks, capacity, memory = [], {}, {}, None, None
    try:
        if {"floor", "stack", "service"} & set(parts):
            seeded = seed.seed(service.base_url, big_project=400 if "service" in parts else 0,
                               chat_base_url=fake.base_url if "service" in parts else None)
        if {"floor", "stack"} & set(parts):
            service.stop()  # each floor has the machine and the database to itself
            floors = run_floor(env, seeded, args) if "floor" in parts else {}
            stacks = run_floor(env, seeded, args, STACK_FLOOR, "stack") if "stack" in parts else {}
            service = Gunicorn(env, log_path=log_path)
        if "service" in parts:
            requests.post(f"{service.base_url}/api/v1/diagrams/render", timeout=30,
                          json={"source": seed.GRAPHVIZ, "diagram_type": "graphviz"})  # warm the render cache
            rows = run_scenarios(service, backend, seeded, args)
            memory = service.peak_worker_memory_mib()
        if "editor" in parts:
            print(f"  {backend:6} editor capacity search (p99 < {editor.P99_TARGET_MS:.0f} ms)", flush=True)
            capacity = editor.capacity(service.base_url, start=args.editor_start, max_users=args.editor_max_users,
                                       steady=args.editor_seconds)
        if "search" in parts:
            rows += search.run(service.base_url, env, backend, args.search_diagrams, args.search_requests)
        if memory is None:
            memory = service.peak_worker_memory_mib()
        workers = len(service.worker_pids())
    finally:
        service.stop()
    return assemble(backend, top, floors, stacks, rows, capacity), capacity, {
        "backend": backend, "workers": workers, "threads": args.threads, "peak_rss_mib_per_worker": memory}


def bench_feed(args):
    """The change feed's rows for each --subscribers count, each on a service of its own as deployed
    (PostgreSQL + Redis, the default workers and threads), changed only by feed.SETTINGS and --feed-env:
    (rows, feed.run's results)."""
    rows, results = [], []
    settings = dict(setting.split("=", 1) for setting in args.feed_env)
    for count in args.subscribers:
        env = production_env("pg", free_port(), {**feed.SETTINGS, **settings}, database=args.database,
                             redis_db=args.redis_db)
        reset_database(env)
        RESULTS.mkdir(exist_ok=True)
        service = Gunicorn(env, log_path=RESULTS / "service-feed.log")
        try:
            print(f"  {'pg':6} feed: {count} subscribers, {args.feed_saves:g} saves/s for {args.feed_seconds} s",
                  flush=True)
            result = feed.run(service, count, args.feed_saves, args.feed_seconds)
        finally:
            service.stop()
        rows += feed.rows(result)
        results.append({**result, "settings": ", ".join(args.feed_env)})
    return rows, results


def _ratio(rps, reference):
    return round(rps / reference, 2) if rps and reference else None


def assemble(backend, top, floors, stacks, rows, capacity):
    """The backend's rows: the ceiling, the floor's, the stack's floor's and the service's (with both ratios), the
    editor capacity."""
    ceiling_rps = top["rps"] if top else None
    head = []
    if top:
        head.append({"backend": backend, "endpoint": "ceiling: bare Flask /health", **top, "ratio": 1.0,
                     "floor_ratio": None})
    for name, result in floors.items():
        head.append({"backend": backend, "endpoint": f"floor: {name}", **result,
                     "ratio": _ratio(result["rps"], ceiling_rps), "floor_ratio": 1.0})
    for name, result in stacks.items():
        head.append({"backend": backend, "endpoint": f"stack: {name}", **result,
                     "ratio": _ratio(result["rps"], ceiling_rps),
                     "floor_ratio": _ratio(result["rps"], floors.get(name, {}).get("rps"))})
    for row in rows:
        row["ratio"] = _ratio(row.get("rps"), ceiling_rps)
        row["floor_ratio"] = _ratio(row.get("rps"), floors.get(row["endpoint"], {}).get("rps"))
    tail = []
    if capacity:
        held = f">= {capacity['users_held']}" if capacity["capped"] else str(capacity["users_held"])
        tail.append({"backend": backend, "endpoint": f"editor: {held} users, p99 < {editor.P99_TARGET_MS:.0f} ms",
                     "rps": capacity["rps"], "p50_ms": capacity["p50_ms"], "p99_ms": capacity["p99_ms"],
                     "errors": capacity["errors"], "editor_users": capacity["users_held"], "ratio": None,
                     "floor_ratio": None})
    return head + rows + tail


def _cell(value):
    return "-" if value is None else value


def table(rows, memory, capacities, feeds=()):
    lines = ["| backend | endpoint | req/s | p50 ms | p99 ms | errors | ratio to ceiling | ratio to floor |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for row in rows:
        rps = f"{row['rps']:.0f}" if row.get("rps") else (f"{row.get('held')} held" if "held" in row else "-")
        lines.append(f"| {row['backend']} | {row['endpoint']} | {rps} | {row.get('p50_ms')} | {row.get('p99_ms')} "
                     f"| {row.get('errors')} | {_cell(row.get('ratio'))} | {_cell(row.get('floor_ratio'))} |")
    lines.append("")
    for entry in memory:
        lines.append(f"- {entry['backend']}: {entry['workers']} worker(s) x {entry['threads']} threads, "
                     f"peak RSS per worker {entry['peak_rss_mib_per_worker']} MiB")
    for capacity in capacities:
        steps = ", ".join(f"{step['users']} {'held' if step['held'] else 'not held'} (p99 {step['p99_ms']} ms, "
                          f"{step['errors']}/{step['requests']} errors, client CPU {step['client_cpu_pct']}%)"
                          for step in capacity["steps"])
        lines.append(f"- {capacity['backend']}: editor search: {steps}")
    lines += [f"- pg {feed.note(result)}" for result in feeds]
    return "\n".join(lines)


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backends", default="pg,sqlite")
    parser.add_argument("--only", default=",".join(PARTS),
                        help=f"the parts to run, comma-separated among {','.join(PARTS)} (default: all)")
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--streams", type=int, default=500)
    parser.add_argument("--threads", type=int, default=int(os.environ.get("GUNICORN_THREADS") or 128))
    parser.add_argument("--workers", type=int, default=int(os.environ.get("WEB_CONCURRENCY") or 0))
    parser.add_argument("--editor-start", type=int, default=200, help="editors in the search's first step")
    parser.add_argument("--editor-max-users", type=int, default=3200, help="the search stops there")
    parser.add_argument("--editor-seconds", type=int, default=15, help="steady seconds measured per step")
    parser.add_argument("--subscribers", default="1000",
                        help="feed streams held, comma-separated for several runs (default: 1000)")
    parser.add_argument("--feed-saves", type=float, default=feed.SAVES_PER_SECOND, help="autosaves per second")
    parser.add_argument("--feed-seconds", type=int, default=feed.SECONDS, help="seconds of autosaves measured")
    parser.add_argument("--feed-env", action="append", default=[], metavar="NAME=VALUE",
                        help="a setting of the feed's service (repeat), e.g. EVENT_STREAMS_PER_WORKER=512")
    parser.add_argument("--search-diagrams", type=int, default=50_000, help="diagrams the search row writes")
    parser.add_argument("--search-requests", type=int, default=60, help="requests per search of the search row")
    parser.add_argument("--database", default=DATABASE, help="PostgreSQL database to drop and fill")
    parser.add_argument("--redis-db", type=int, default=REDIS_DB, help="Redis db to flush and use")
    compared = parser.add_argument_group("old against new (bench/compare.py)")
    compared.add_argument("--compare-ref", metavar="REF",
                          help="compare the autosave, the editor capacity and the reads' ratio to the floor on "
                               "REF's code (a git worktree) with the working tree's; the old side uses "
                               "DATABASE_old and Redis db REDIS_DB+1")
    compared.add_argument("--compare-new-ref", metavar="REF",
                          help="the new side from this ref's worktree instead of the working tree")
    compared.add_argument("--rounds", type=int, default=3,
                          help="autosave runs and read rounds (floor) per side, alternating")
    compared.add_argument("--editor-rounds", type=int, default=1, help="editor capacity searches per side")
    args = parser.parse_args()
    args.only = [part.strip() for part in args.only.split(",") if part.strip()]
    args.subscribers = [int(count) for count in args.subscribers.split(",")]
    if any("=" not in setting for setting in args.feed_env):
        parser.error("--feed-env takes NAME=VALUE")
    unknown = set(args.only) - set(PARTS)
    if unknown:
        parser.error(f"unknown part(s) {', '.join(sorted(unknown))}; choose among {', '.join(PARTS)}")
    if args.compare_new_ref and not args.compare_ref:
        parser.error("--compare-new-ref needs --compare-ref")
    if args.compare_ref and not {"service", "editor", "floor"} & set(args.only):
        parser.error("--compare-ref measures the autosave (--only service), the editor capacity (--only editor) "
                     "and the reads against the floor (--only floor)")
    if args.rounds < 1 or args.editor_rounds < 1:
        parser.error("--rounds and --editor-rounds are at least 1")
    return args


def main():
    args = parse_args()
    started = time.monotonic()
    if args.compare_ref:
        with FakeOpenAI(chunk_delay=1.0, chunks=30) as fake:
            compare.run(args, service_settings(args, fake))
        print(f"(wall time {time.monotonic() - started:.0f} s)")
        return
    all_rows, memory, capacities, feeds = [], [], [], []
    with FakeOpenAI(chunk_delay=1.0, chunks=30) as fake:
        for backend in args.backends.split(","):
            print(f"benchmarking {backend} ...", flush=True)
            if set(SERVICE_PARTS) & set(args.only):
                rows, capacity, mem = bench_backend(backend, args, fake)
                all_rows += rows
                if {"service", "editor"} & set(args.only):  # otherwise the service only seeded
                    memory.append(mem)
                if capacity:
                    capacities.append({"backend": backend, **capacity})
            if "feed" in args.only and backend == "pg":
                rows, results = bench_feed(args)
                all_rows += rows
                feeds += results
    report = table(all_rows, memory, capacities, feeds)
    print(f"\nCPU cores: {os.cpu_count()}\n\n{report}\n\n(wall time {time.monotonic() - started:.0f} s)")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "results.json").write_text(json.dumps({"cores": os.cpu_count(), "rows": all_rows, "memory": memory,
                                                      "editor": capacities, "feed": feeds}, indent=2))
    (RESULTS / "results.md").write_text(report + "\n")


if __name__ == "__main__":
    main()
