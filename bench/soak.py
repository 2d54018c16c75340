"""make soak: 60 s of mixed load on PostgreSQL + Redis while a worker is killed and PostgreSQL restarts;
then every write the service acknowledged (201) is read back: none may be lost. The resident memory
of each worker is sampled every 5 s; the report shows how it moved over the run.

Every request is counted in the phase it started in: before the restart, during it (the restart
command running), or after it (PostgreSQL is back). A request that started after PostgreSQL came back
must not fail (the service retries a statement that meets a connection the restart broke,
docs/operations.md); the run fails when one does, or when a write is lost.

    .venv/bin/python -m bench.soak [--seconds 60] [--writers 4] [--readers 4]
        [--pg-cluster main --pg-port 5432 --database trazo_bench --redis-db 7]

To leave the shared cluster alone, restart a private one:
    pg_createcluster 15 soak -p 5433 && pg_ctlcluster --skip-systemctl-redirect 15 soak start
    .venv/bin/python -m bench.soak --seconds 40 --pg-cluster soak --pg-port 5433 --database trazo_soak
"""
import argparse
import collections
import os
import signal
import subprocess
import threading
import time
import uuid
from pathlib import Path

import requests

from .seed import MERMAID, Api, register_and_login
from .service import BIN, ROOT, Gunicorn, free_port, production_env

PHASES = ("before restart", "restart window", "after restart")


def restart_postgres(cluster):
    version = sorted(os.listdir("/etc/postgresql"))[-1]
    subprocess.run(["pg_ctlcluster", "--skip-systemctl-redirect", version, cluster, "restart"], check=True,
                   capture_output=True, timeout=120)


def soak_env(args, port):
    """Production settings on the chosen cluster, database and Redis db."""
    env = production_env("pg", port, {"WEB_CONCURRENCY": "2"})
    env["DATABASE_URL"] = f"postgresql+psycopg://postgres@127.0.0.1:{args.pg_port}/{args.database}"
    env["RATELIMIT_STORAGE_URI"] = f"redis://127.0.0.1:6379/{args.redis_db}"
    return env


def reset_database(env, args):
    """An empty database at the newest migration, and an empty Redis db."""
    admin = f"postgresql://postgres@127.0.0.1:{args.pg_port}/postgres"
    for statement in (f'DROP DATABASE IF EXISTS "{args.database}" WITH (FORCE)', f'CREATE DATABASE "{args.database}"'):
        subprocess.run(["psql", "-q", admin, "-c", statement], check=True, capture_output=True)
    subprocess.run(["redis-cli", "-n", str(args.redis_db), "FLUSHDB"], check=True, capture_output=True)
    subprocess.run([str(BIN / "flask"), "--app", "wsgi", "db", "upgrade"], cwd=ROOT, env=env, check=True,
                   capture_output=True)


class Tally:
    """Outcomes by label, and by the phase of the restart each request started in."""

    def __init__(self):
        self.lock = threading.Lock()
        self.outcomes = collections.Counter()
        self.phases = {phase: collections.Counter() for phase in PHASES}
        self.acknowledged = {}
        self.restart_started = self.restart_done = None

    def phase(self, started):
        if self.restart_started is None or started < self.restart_started:
            return PHASES[0]
        if self.restart_done is None or started < self.restart_done:
            return PHASES[1]
        return PHASES[2]

    def count(self, label, started=None, ok=True):
        with self.lock:
            self.outcomes[label] += 1
            if started is not None:
                phase = self.phases[self.phase(started)]
                phase["requests"] += 1
                phase["failed"] += 0 if ok else 1

    def acknowledge(self, diagram_id, title):
        with self.lock:
            self.acknowledged[diagram_id] = title


def writer(base_url, token, project_id, tally, stop):
    api = Api(base_url, token)
    while not stop.is_set():
        title = f"soak {uuid.uuid4().hex[:12]}"
        started = time.monotonic()
        try:
            response = api.post(f"/projects/{project_id}/diagrams",
                                json={"title": title, "content": MERMAID, "diagram_type": "mermaid"})
        except requests.RequestException as exc:
            tally.count(f"write {type(exc).__name__}", started, ok=False)
            time.sleep(0.1)
            continue
        tally.count(f"write {response.status_code}", started, ok=response.status_code == 201)
        if response.status_code == 201:
            tally.acknowledge(response.json()["id"], title)


def reader(base_url, token, tally, stop):
    api = Api(base_url, token)
    while not stop.is_set():
        started = time.monotonic()
        try:
            status = api.get("/projects").status_code
        except requests.RequestException as exc:
            status = type(exc).__name__
            time.sleep(0.1)
        tally.count(f"read {status}", started, ok=status == 200)


def sample_memory(service, samples, stop, every=5.0):
    started = time.monotonic()
    while not stop.wait(every):
        samples.append((time.monotonic() - started, service.worker_memory_mib()))


def memory_report(samples):
    """First and last resident memory of every worker seen in two or more samples."""
    seen = collections.defaultdict(list)
    for moment, memory in samples:
        for pid, mib in memory.items():
            if mib:  # 0 once the process is gone
                seen[pid].append((moment, mib))
    return [f"worker {pid} RSS {points[0][1]} MiB at t={points[0][0]:.0f}s -> {points[-1][1]} MiB at "
            f"t={points[-1][0]:.0f}s" for pid, points in sorted(seen.items()) if len(points) > 1]


def verify(base_url, token, tally):
    api = Api(base_url, token)
    lost = []
    for diagram_id, title in tally.acknowledged.items():
        response = api.get(f"/diagrams/{diagram_id}")
        if response.status_code != 200 or response.json().get("title") != title:
            lost.append((diagram_id, response.status_code))
    return lost


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--readers", type=int, default=4)
    parser.add_argument("--pg-cluster", default="main", help="the PostgreSQL cluster restarted mid-run")
    parser.add_argument("--pg-port", type=int, default=5432, help="that cluster's port")
    parser.add_argument("--database", default="trazo_bench", help="dropped and created again")
    parser.add_argument("--redis-db", type=int, default=7, help="flushed")
    args = parser.parse_args()

    env = soak_env(args, free_port())
    reset_database(env, args)
    (ROOT / "bench-results").mkdir(exist_ok=True)
    service = Gunicorn(env, log_path=ROOT / "bench-results" / "soak-service.log")
    tally, stop, events, samples = Tally(), threading.Event(), [], []
    try:
        _email, token = register_and_login(service.base_url)
        project_id = Api(service.base_url, token).post("/projects", json={"name": "Soak"}).json()["id"]
        threads = [threading.Thread(target=writer, args=(service.base_url, token, project_id, tally, stop))
                   for _ in range(args.writers)]
        threads += [threading.Thread(target=reader, args=(service.base_url, token, tally, stop))
                    for _ in range(args.readers)]
        threads.append(threading.Thread(target=sample_memory, args=(service, samples, stop)))
        for thread in threads:
            thread.start()
        started = time.monotonic()
        time.sleep(args.seconds / 4)
        victim = service.worker_pids()[0]
        os.kill(victim, signal.SIGKILL)
        events.append(f"t={time.monotonic() - started:.0f}s killed worker {victim}")
        time.sleep(args.seconds / 4)
        tally.restart_started = time.monotonic()
        restart_postgres(args.pg_cluster)
        tally.restart_done = time.monotonic()
        events.append(f"t={tally.restart_started - started:.0f}s restarted PostgreSQL (cluster {args.pg_cluster}, "
                      f"{tally.restart_done - tally.restart_started:.1f} s)")
        time.sleep(max(0.0, args.seconds - (time.monotonic() - started)))
        stop.set()
        for thread in threads:
            thread.join(timeout=60)
        service.wait_ready()
        lost = verify(service.base_url, token, tally)
    finally:
        stop.set()
        service.stop()

    events += memory_report(samples)
    failed_after = tally.phases[PHASES[2]]["failed"]
    lines = events + [f"{label:32} {count}" for label, count in sorted(tally.outcomes.items())]
    lines += [f"{phase:32} {counts['requests']} requests, {counts['failed']} failed"
              for phase, counts in tally.phases.items()]
    lines += [f"failed after PostgreSQL was back: {failed_after} (target 0)",
              f"acknowledged writes: {len(tally.acknowledged)}; lost: {len(lost)}"]
    print("\n".join(lines))
    Path(ROOT / "bench-results" / "soak.txt").write_text("\n".join(lines) + "\n")
    raise SystemExit(1 if lost or failed_after else 0)


if __name__ == "__main__":
    main()
