"""Start and stop the service (or the bare ceiling app) under gunicorn, as `make run` does, on 127.0.0.1."""
import base64
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

import requests

ROOT = Path(__file__).resolve().parents[1]
BIN = ROOT / ".venv" / "bin"
PG_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
# The PostgreSQL database and Redis db the benchmarks own (dropped and flushed on every run).
DATABASE = os.environ.get("BENCH_DATABASE") or "trazo_bench"
REDIS_DB = int(os.environ.get("BENCH_REDIS_DB") or 7)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def production_env(backend, port, extra=None, database=None, redis_db=None):
    """Settings of a production instance: PostgreSQL + Redis, or SQLite + in-memory limits. `database` and
    `redis_db` default to BENCH_DATABASE (trazo_bench) and BENCH_REDIS_DB (7)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("GUNICORN_", "WEB_"))}
    env.update({
        "APP_ENV": "production", "HOST": "127.0.0.1", "PORT": str(port),
        "SECRET_KEY": secrets.token_hex(32), "JWT_SECRET_KEY": secrets.token_hex(32),
        "ENCRYPTION_KEYS": base64.urlsafe_b64encode(os.urandom(32)).decode(),
        "RATELIMIT_ENABLED": "false", "GUNICORN_ACCESSLOG": "", "GUNICORN_LOGLEVEL": "warning",
        "INSTANCE_PATH": tempfile.mkdtemp(prefix="trazo-bench-instance-"),
        "MALLOC_ARENA_MAX": "2",  # as deployed (README): threads share malloc arenas instead of one each
    })
    # As deployed (README): the blocks a worker mmaps (gunicorn.conf.py, post_fork) may be transparent huge pages.
    env.setdefault("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1")
    if backend == "pg":
        env["DATABASE_URL"] = f"postgresql+psycopg://postgres@127.0.0.1:5432/{database or DATABASE}"
        env["RATELIMIT_STORAGE_URI"] = f"redis://127.0.0.1:6379/{REDIS_DB if redis_db is None else redis_db}"
    else:
        env["DATABASE_URL"] = f"sqlite:///{tempfile.mkdtemp(prefix='trazo-bench-db-')}/bench.db"
        env["RATELIMIT_STORAGE_URI"] = "memory://"
    env.update(extra or {})
    return env


def reset_database(env, cwd=ROOT):
    """An empty schema at the newest migration (the database of DATABASE_URL is dropped and created again,
    the Redis db of RATELIMIT_STORAGE_URI flushed). `cwd`: the source tree whose wsgi.py and migrations run
    (another checkout with its src/ first on PYTHONPATH, bench/compare.py)."""
    if env["DATABASE_URL"].startswith("postgresql"):
        database = urlsplit(env["DATABASE_URL"]).path.lstrip("/")
        subprocess.run(["psql", "-q", PG_ADMIN_URL, "-c", f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)'],
                       check=True, capture_output=True)
        subprocess.run(["psql", "-q", PG_ADMIN_URL, "-c", f'CREATE DATABASE "{database}"'], check=True,
                       capture_output=True)
        redis_db = urlsplit(env["RATELIMIT_STORAGE_URI"]).path.lstrip("/")
        if not redis_db:
            raise ValueError("RATELIMIT_STORAGE_URI must name the Redis db the benchmark may flush")
        subprocess.run(["redis-cli", "-n", redis_db, "FLUSHDB"], check=True, capture_output=True)
    upgrade = subprocess.run([str(BIN / "flask"), "--app", "wsgi", "db", "upgrade"], cwd=cwd, env=env,
                             capture_output=True, text=True)
    if upgrade.returncode:
        raise RuntimeError(f"flask db upgrade in {cwd} failed:\n{upgrade.stdout}{upgrade.stderr}")


class Gunicorn:
    """gunicorn with the project's gunicorn.conf.py, serving `target` (default: the service). `cwd`: the
    source tree whose gunicorn.conf.py and wsgi.py are used (default: this checkout)."""

    def __init__(self, env, target=None, log_path=None, cwd=ROOT):
        self.env = env
        self.port = int(env["PORT"])
        self.base_url = f"http://127.0.0.1:{self.port}"
        command = [str(BIN / "gunicorn"), "-c", "gunicorn.conf.py"] + ([target] if target else [])
        self.log = open(log_path or os.devnull, "ab")  # a restart appends
        self.process = subprocess.Popen(command, cwd=cwd, env=env, stdout=self.log, stderr=subprocess.STDOUT,
                                        start_new_session=True)
        try:
            self.wait_ready()
        except BaseException:  # never leave a half-started server behind
            self.stop()
            raise

    def wait_ready(self, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {self.process.returncode}"
                                   + (f" (its log: {self.log.name})" if self.log.name != os.devnull else ""))
            try:
                if requests.get(f"{self.base_url}/health", timeout=1).status_code == 200:
                    return
            except requests.RequestException:
                pass
            time.sleep(0.2)
        raise RuntimeError("gunicorn did not answer /health")

    def worker_pids(self):
        pids = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == self.process.pid:
                pids.append(int(stat.parent.name))
        return sorted(pids)

    @staticmethod
    def rss_kib(pid, field="VmHWM"):
        """Peak (VmHWM) or current (VmRSS) resident memory of a process, in KiB."""
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith(f"{field}:"):
                    return int(line.split()[1])
        except OSError:
            return 0
        return 0

    def peak_worker_memory_mib(self):
        peaks = [self.rss_kib(pid) for pid in self.worker_pids()]
        return round(max(peaks) / 1024, 1) if peaks else 0.0

    def worker_memory_mib(self):
        """Current resident memory of each worker."""
        return {pid: round(self.rss_kib(pid, "VmRSS") / 1024, 1) for pid in self.worker_pids()}

    def stop(self):
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
        self.log.close()


def python():
    return str(BIN / "python") if (BIN / "python").exists() else sys.executable
