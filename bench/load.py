"""Drive load with wrk (a second process on 127.0.0.1) and read its numbers."""
import json
import os
import re
import subprocess
from pathlib import Path

LUA = Path(__file__).resolve().parent / "lua" / "request.lua"
UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}


def _millis(text):
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text).groups()
    return float(number) * UNITS[unit]


def parse_wrk(output):
    result = {"rps": 0.0, "p50_ms": None, "p99_ms": None, "errors": 0, "requests": 0}
    if found := re.search(r"Requests/sec:\s+([\d.]+)", output):
        result["rps"] = float(found.group(1))
    if found := re.search(r"(\d+) requests in", output):
        result["requests"] = int(found.group(1))
    for label, key in (("50%", "p50_ms"), ("99%", "p99_ms")):
        if found := re.search(rf"^\s+{label}\s+(\S+)", output, re.M):
            result[key] = round(_millis(found.group(1)), 2)
    socket_errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output)
    if socket_errors:
        result["errors"] += sum(int(n) for n in socket_errors.groups())
    if found := re.search(r"BAD_STATUS (\d+)", output):
        result["errors"] += int(found.group(1))
    return result


def wrk(base_url, path, method="GET", body=None, token=None, connections=16, duration=10, threads=2,
        content_type="application/json", script=None, env=None, thread_per_connection=False):
    """Run wrk against one endpoint; returns requests/s, p50/p99 latency (ms), errors (non-2xx + socket).
    `script` replaces bench/lua/request.lua (it reads `env` too); `thread_per_connection` runs one wrk
    thread per connection, for a script that gives each thread its own state (bench/lua/autosave.lua)."""
    env = {**os.environ, "BENCH_METHOD": method, "BENCH_PATH": path,
           "BENCH_BODY": json.dumps(body) if isinstance(body, (dict, list)) else (body or ""),
           "BENCH_TOKEN": token or "", "BENCH_CONTENT_TYPE": content_type, **(env or {})}
    threads = connections if thread_per_connection else min(threads, connections)
    command = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{duration}s", "--latency", "--timeout", "10s",
               "-s", str(script or LUA), base_url]
    completed = subprocess.run(command, env=env, capture_output=True, text=True, timeout=duration + 60)
    return parse_wrk(completed.stdout + completed.stderr)
