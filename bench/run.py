"""make bench: the service under its production gunicorn settings, on PostgreSQL + Redis and on SQLite,
loaded by wrk from a second process, against the bare-Flask ceiling.

    .venv/bin/python -m bench.run [--backends pg,sqlite] [--duration 10] [--connections 16] [--streams 500]

Prints a Markdown table (requests/s, p50/p99, errors, ratio to the ceiling, peak RSS per worker) and
writes bench-results/results.json.
"""
import argparse
import json
import os
from urllib.parse import urlsplit

import requests

from . import load, seed, streams
from .fake_openai import FakeOpenAI
from .service import ROOT, Gunicorn, free_port, production_env, reset_database

RESULTS = ROOT / "bench-results"


def scenarios(seeded):
    project, diagram = seeded.project_ids[0], seeded.diagram_ids[0]
    login = {"email": seeded.email, "password": seed.PASSWORD}
    update = {"title": "Renamed by the benchmark", "content": seed.MERMAID}
    render = {"source": seed.GRAPHVIZ, "diagram_type": "graphviz"}
    return [
        ("GET /health", dict(path="/health")),
        ("POST /users/login", dict(path="/api/v1/users/login", method="POST", body=login)),
        ("GET /projects", dict(path="/api/v1/projects", token=seeded.token)),
        ("GET /projects/{id}", dict(path=f"/api/v1/projects/{project}", token=seeded.token)),
        ("GET /diagrams/{id}", dict(path=f"/api/v1/diagrams/{diagram}", token=seeded.token)),
        ("PUT /diagrams/{id}", dict(path=f"/api/v1/diagrams/{diagram}", method="PUT", body=update,
                                    token=seeded.token)),
        ("GET /shared/{token}/diagram", dict(path=f"/api/v1/shared/{seeded.share_token}/diagram")),
        ("POST /diagrams/render (cached)", dict(path="/api/v1/diagrams/render", method="POST", body=render)),
        ("GET /projects/{400}/export", dict(path=f"/api/v1/projects/{seeded.big_project_id}/export",
                                            token=seeded.token, connections=4)),
    ]


def stream_count(backend, args):
    """With SQLite and in-memory limits there is one worker: it holds at most its threads' worth of streams."""
    if backend == "pg" or args.workers:
        return args.streams
    return min(args.streams, args.threads - 8)


def bench_backend(backend, args, fake):
    # The chat scenario's provider is a user's OpenAI-compatible server on this host: allow-list it.
    extra = {"RENDER_BACKEND": "local", "OPENAI_BASE_URL": fake.base_url,
             "AI_ALLOWED_PRIVATE_HOSTS": urlsplit(fake.base_url).netloc,
             "GUNICORN_THREADS": str(args.threads)}
    if args.workers:
        extra["WEB_CONCURRENCY"] = str(args.workers)
    # The ceiling first, on a quiet machine: the same gunicorn settings serving a bare Flask app.
    ceiling = Gunicorn(production_env(backend, free_port(), extra), target="bench.hello:app")
    try:
        load.wrk(ceiling.base_url, "/health", connections=args.connections, duration=3)  # every worker up and warm
        top = load.wrk(ceiling.base_url, "/health", connections=args.connections, duration=args.duration)
    finally:
        ceiling.stop()
    env = production_env(backend, free_port(), extra)
    reset_database(env)
    RESULTS.mkdir(exist_ok=True)
    service = Gunicorn(env, log_path=RESULTS / f"service-{backend}.log")
    rows = []
    try:
        seeded = seed.seed(service.base_url, chat_base_url=fake.base_url)
        requests.post(f"{service.base_url}/api/v1/diagrams/render", timeout=30,
                      json={"source": seed.GRAPHVIZ, "diagram_type": "graphviz"})  # warm the render cache
        for name, spec in scenarios(seeded):
            spec = {"connections": args.connections, "duration": args.duration, **spec}
            rows.append({"backend": backend, "endpoint": name, **load.wrk(service.base_url, **spec)})
            print(f"  {backend:6} {name:32} {rows[-1]['rps']:>9.1f} req/s  p99 {rows[-1]['p99_ms']} ms", flush=True)
        count = stream_count(backend, args)
        if count:
            held = streams.hold_streams(service.base_url, seeded.token, seeded.chat_session_id, count)
            rows.append({"backend": backend, "endpoint": f"{count} chat streams + GET /health",
                         "rps": None, "p50_ms": held["health_p50_ms"], "p99_ms": held["health_p99_ms"],
                         "errors": held["errors"], "held": held["held"]})
        memory = service.peak_worker_memory_mib()
        workers = len(service.worker_pids())
    finally:
        service.stop()
    for row in rows:
        row["ratio"] = round(row["rps"] / top["rps"], 2) if row.get("rps") and top["rps"] else None
    rows.insert(0, {"backend": backend, "endpoint": "ceiling: bare Flask /health", **top, "ratio": 1.0})
    return rows, {"backend": backend, "workers": workers, "threads": args.threads, "peak_rss_mib_per_worker": memory}


def table(rows, memory):
    lines = ["| backend | endpoint | req/s | p50 ms | p99 ms | errors | ratio to ceiling |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for row in rows:
        rps = f"{row['rps']:.0f}" if row.get("rps") else (f"{row.get('held')} held" if "held" in row else "-")
        lines.append(f"| {row['backend']} | {row['endpoint']} | {rps} | {row.get('p50_ms')} | {row.get('p99_ms')} "
                     f"| {row.get('errors')} | {row.get('ratio') if row.get('ratio') is not None else '-'} |")
    lines.append("")
    for entry in memory:
        lines.append(f"- {entry['backend']}: {entry['workers']} worker(s) x {entry['threads']} threads, "
                     f"peak RSS per worker {entry['peak_rss_mib_per_worker']} MiB")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backends", default="pg,sqlite")
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--streams", type=int, default=500)
    parser.add_argument("--threads", type=int, default=int(os.environ.get("GUNICORN_THREADS") or 128))
    parser.add_argument("--workers", type=int, default=int(os.environ.get("WEB_CONCURRENCY") or 0))
    args = parser.parse_args()
    all_rows, memory = [], []
    with FakeOpenAI(chunk_delay=1.0, chunks=30) as fake:
        for backend in args.backends.split(","):
            print(f"benchmarking {backend} ...", flush=True)
            rows, mem = bench_backend(backend, args, fake)
            all_rows += rows
            memory.append(mem)
    report = table(all_rows, memory)
    print(f"\nCPU cores: {os.cpu_count()}\n\n{report}")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "results.json").write_text(json.dumps({"cores": os.cpu_count(), "rows": all_rows,
                                                      "memory": memory}, indent=2))
    (RESULTS / "results.md").write_text(report + "\n")


if __name__ == "__main__":
    main()
