"""make soak: 60 s of mixed load on PostgreSQL + Redis while a worker is killed and PostgreSQL restarts;
then every write the service acknowledged (201) is read back: none may be lost. The resident memory
of each worker is sampled every 5 s; the report shows how it moved over the run.

    .venv/bin/python -m bench.soak [--seconds 60] [--writers 4] [--readers 4]
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
from .service import ROOT, Gunicorn, free_port, production_env, reset_database


def restart_postgres():
    version = sorted(os.listdir("/etc/postgresql"))[-1]
    subprocess.run(["pg_ctlcluster", "--skip-systemctl-redirect", version, "main", "restart"], check=True,
                   capture_output=True, timeout=120)


class Tally:
    def __init__(self):
        self.lock = threading.Lock()
        self.outcomes = collections.Counter()
        self.acknowledged = {}

    def count(self, label):
        with self.lock:
            self.outcomes[label] += 1

    def acknowledge(self, diagram_id, title):
        with self.lock:
            self.acknowledged[diagram_id] = title


def writer(base_url, token, project_id, tally, stop):
    api = Api(base_url, token)
    while not stop.is_set():
        title = f"soak {uuid.uuid4().hex[:12]}"
        try:
            response = api.post(f"/projects/{project_id}/diagrams",
                                json={"title": title, "content": MERMAID, "diagram_type": "mermaid"})
        except requests.RequestException as exc:
            tally.count(f"write {type(exc).__name__}")
            time.sleep(0.1)
            continue
        tally.count(f"write {response.status_code}")
        if response.status_code == 201:
            tally.acknowledge(response.json()["id"], title)


def reader(base_url, token, tally, stop):
    api = Api(base_url, token)
    while not stop.is_set():
        try:
            status = api.get("/projects").status_code
        except requests.RequestException as exc:
            status = type(exc).__name__
            time.sleep(0.1)
        tally.count(f"read {status}")


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
    args = parser.parse_args()

    env = production_env("pg", free_port(), {"WEB_CONCURRENCY": "2"})
    reset_database(env)
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
        restart_postgres()
        events.append(f"t={time.monotonic() - started:.0f}s restarted PostgreSQL")
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
    print("\n".join(events))
    for label, count in sorted(tally.outcomes.items()):
        print(f"{label:32} {count}")
    print(f"acknowledged writes: {len(tally.acknowledged)}; lost: {len(lost)}")
    Path(ROOT / "bench-results" / "soak.txt").write_text(
        "\n".join(events + [f"{k} {v}" for k, v in sorted(tally.outcomes.items())]
                  + [f"acknowledged {len(tally.acknowledged)} lost {len(lost)}"]) + "\n")
    raise SystemExit(1 if lost else 0)


if __name__ == "__main__":
    main()
