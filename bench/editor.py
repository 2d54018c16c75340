"""The editor workload: how many people editing diagrams at once the service holds with p99 < 250 ms.

Each simulated editor opens its project tree (GET /projects, then GET /projects/{id}), then every 5 s
autosaves its own diagram (PUT /diagrams/{id} with changed content) and reads it back (GET
/diagrams/{id}). Editors start staggered over the first 5 s; the requests that start after that warm-up,
during the steady window, are measured. The capacity search steps the number of editors up (doubling)
until p99 >= 250 ms or more than 0.1% of the requests fail, then bisects to within ~10%
(docs/operations.md, "Benchmarks").

The load generator is one asyncio loop (aiohttp) with pooled keep-alive connections, so it stays cheap on
the cores the server needs; each step reports the generator's own CPU use.

Editors share a few accounts (each sign-in costs argon2 time); an autosave keeps the content's size, so
it never takes the account's quota lock, which editors of one account each would not contend for.
"""
import asyncio
import resource
import time
from concurrent.futures import ThreadPoolExecutor

import aiohttp

from . import seed

PERIOD_SECONDS = 5.0  # between two autosaves of one editor
STAGGER_SECONDS = 5.0  # editors start spread over this warm-up, which is not measured
P99_TARGET_MS = 250.0
MAX_ERROR_RATE = 0.001
REQUEST_TIMEOUT_SECONDS = 10
KEEPALIVE_SECONDS = 3  # under gunicorn's keepalive (5 s): the pool never reuses a connection the server closed
ACCOUNTS = 4
MIN_STEP_USERS = 5  # the bisection's finest step, when even the first step fails
DIAGRAMS_PER_PROJECT = 25


class Workspace:
    """A few accounts, each with projects of DIAGRAMS_PER_PROJECT diagrams; one diagram per editor,
    created on demand as the search needs more editors."""

    def __init__(self, base_url, accounts=ACCOUNTS):
        self.base_url = base_url
        self.apis = []
        for _ in range(accounts):
            _email, token = seed.register_and_login(base_url)
            self.apis.append(seed.Api(base_url, token))
        self.slots = []  # (token, project id, diagram id), the accounts taking turns

    def _project(self, api):
        index = len(self.slots)
        project = seed.expect(api.post("/projects", json={"name": f"Editors {index}"}), 201)
        ids = seed.create_diagrams(api, project["id"], DIAGRAMS_PER_PROJECT, f"Editor {index}")
        token = api.session.headers["Authorization"].removeprefix("Bearer ")
        return [(token, project["id"], diagram_id) for diagram_id in ids]

    def ensure(self, editors):
        while len(self.slots) < editors:
            with ThreadPoolExecutor(max_workers=len(self.apis)) as pool:
                batches = list(pool.map(self._project, self.apis))
            for row in zip(*batches, strict=True):
                self.slots += row


def percentile(sorted_values, fraction):
    if not sorted_values:
        return None
    return round(sorted_values[min(len(sorted_values) - 1, int(fraction * len(sorted_values)))], 2)


def _content(editor, revision):
    """Changed content of a constant size (the revision is zero-padded)."""
    return f"{seed.MERMAID}\n    E --> F[editor {editor:06d} revision {revision:08d}]"


class Step:
    """One population of editors for STAGGER_SECONDS + `steady` seconds."""

    def __init__(self, base_url, slots, steady):
        self.api = f"{base_url}/api/v1"
        self.slots = slots
        self.steady = steady
        self.latencies = []
        self.errors = 0

    async def _request(self, session, method, path, token, body=None):
        started = time.monotonic()
        try:
            async with session.request(method, self.api + path, json=body,
                                       headers={"Authorization": f"Bearer {token}"}) as response:
                await response.read()
                failed = response.status >= 400
        except (TimeoutError, aiohttp.ClientError):
            failed = True
        if self.window_start <= started < self.window_end:
            self.latencies.append((time.monotonic() - started) * 1000)
            self.errors += failed

    async def _editor(self, session, index, slot):
        token, project_id, diagram_id = slot
        begin = self.t0 + STAGGER_SECONDS * index / len(self.slots)
        await asyncio.sleep(max(0.0, begin - time.monotonic()))
        await self._request(session, "GET", "/projects", token)
        await self._request(session, "GET", f"/projects/{project_id}", token)
        revision, due = 0, begin + PERIOD_SECONDS
        while due < self.window_end:
            await asyncio.sleep(max(0.0, due - time.monotonic()))
            revision += 1
            await self._request(session, "PUT", f"/diagrams/{diagram_id}", token,
                                {"content": _content(index, revision)})
            await self._request(session, "GET", f"/diagrams/{diagram_id}", token)
            due += PERIOD_SECONDS

    async def run(self):
        connector = aiohttp.TCPConnector(limit=0, keepalive_timeout=KEEPALIVE_SECONDS)
        timeout = aiohttp.ClientTimeout(total=REQUEST_TIMEOUT_SECONDS)
        async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
            self.t0 = time.monotonic() + 0.2
            self.window_start = self.t0 + STAGGER_SECONDS
            self.window_end = self.window_start + self.steady
            cpu_before = _cpu_seconds()
            await asyncio.gather(*(self._editor(session, index, slot) for index, slot in enumerate(self.slots)))
            cpu = _cpu_seconds() - cpu_before
        elapsed = time.monotonic() - self.t0
        latencies = sorted(self.latencies)
        requests = len(latencies)
        error_rate = self.errors / requests if requests else 1.0
        p99 = percentile(latencies, 0.99)
        return {"users": len(self.slots), "rps": round(requests / self.steady, 1),
                "p50_ms": percentile(latencies, 0.50), "p99_ms": p99, "errors": self.errors, "requests": requests,
                "client_cpu_pct": round(100 * cpu / elapsed, 1),
                "held": bool(requests) and p99 < P99_TARGET_MS and error_rate <= MAX_ERROR_RATE}


def _cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _nice(number):
    """Round a user count to two significant digits (450, 1200), so steps read easily."""
    digits = max(0, len(str(int(number))) - 2)
    return max(1, int(round(number, -digits)))


def capacity(base_url, start=200, max_users=3200, steady=15, log=print):
    """The largest number of editors (within ~10%) whose requests keep p99 < 250 ms and errors <= 0.1%."""
    workspace = Workspace(base_url)
    steps = []

    def holds(users):
        workspace.ensure(users)
        step = asyncio.run(Step(base_url, workspace.slots[:users], steady).run())
        steps.append(step)
        log(f"    editors {users:5}: {step['rps']:7.1f} req/s  p50 {step['p50_ms']} ms  p99 {step['p99_ms']} ms  "
            f"errors {step['errors']}/{step['requests']}  client CPU {step['client_cpu_pct']}%  "
            f"{'held' if step['held'] else 'NOT held'}")
        return step["held"]

    held, failed, users = 0, None, min(start, max_users)
    while failed is None:
        if holds(users):
            held = users
            if users >= max_users:
                break
            users = min(users * 2, max_users)
        else:
            failed = users
    while failed is not None and failed > held * 1.125 and failed - held > MIN_STEP_USERS:
        users = _nice((held + failed) / 2)
        if not held < users < failed:
            users = (held + failed) // 2
        if holds(users):
            held = users
        else:
            failed = users
    best = next((step for step in steps if step["users"] == held), None) or {}
    return {"users_held": held, "capped": failed is None, "rps": best.get("rps"), "p50_ms": best.get("p50_ms"),
            "p99_ms": best.get("p99_ms"), "errors": best.get("errors"), "steps": steps}
