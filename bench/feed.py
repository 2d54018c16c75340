"""The change feed under load (docs/events.md, "Capacity"): N subscribers hold diagram and workspace feeds
while editors autosave, on the service as deployed (PostgreSQL + Redis, its default workers and threads).

Measured while SAVES_PER_SECOND autosaves go to DIAGRAMS diagrams for `seconds`: how long each save's
`diagram.updated` takes to reach every subscriber of its diagram or workspace (from the moment the save was
sent), the share of those events delivered within DRAIN_SECONDS after the last save, /health's latency
(requests.Session, one at a time), the saves' latency, and the workers' memory and threads after.

The subscribers live in a process of their own (`python -m bench.feed subscribe BASE_URL`: one asyncio loop
over raw sockets, no thread per stream). It reads its plan as one JSON line on stdin, prints one JSON line
when every stream answered (the status of each), and on a "stop" line prints what each stream received, with
the time of arrival on CLOCK_MONOTONIC, which every process of the host shares with the saves' send times.
"""
import asyncio
import json
import os
import resource
import subprocess
import sys
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from urllib.parse import urlsplit

import aiohttp

from . import autosave, editor, seed, streams
from .service import ROOT, python

ACCOUNTS = 4  # subscribers and editors share a few accounts (each sign-in costs argon2 time)
DIAGRAMS = 20  # spread over the accounts, one project each
WORKSPACE_EVERY = 5  # one subscriber in 5 follows its account's workspace feed, the others a diagram's
SAVES_PER_SECOND = 30.0
SECONDS = 20
DRAIN_SECONDS = 5  # after the last save, for the events still on their way
OPEN_AT_ONCE = 50  # streams the subscriber process opens concurrently
OPEN_TIMEOUT_SECONDS = 30
OPEN_ATTEMPTS = 3  # a stream refused with 503 (its worker is full) is asked again after Retry-After, as clients do
UPDATED = b"diagram.updated"
# The feed's own settings for the run: the subscribers share the few accounts (10 per user per worker).
SETTINGS = {"EVENT_STREAMS_PER_USER": "100000"}


@dataclass(frozen=True)
class Diagram:
    id: str
    workspace_id: str
    token: str


@dataclass(frozen=True)
class Save:
    diagram: Diagram
    version: int | None  # None: the save failed
    sent: float
    answered: float


# -- the subscriber process ------------------------------------------------------------------

class Subscriber:
    """One stream: its request, its answer's statuses (the first and the last attempt's), the diagram.updated
    events it got and any other event (reset, error) or early end of the stream."""

    def __init__(self, spec):
        self.spec = spec
        self.first_status = self.status = None
        self.received = []  # [diagram id, version, arrival on CLOCK_MONOTONIC]
        self.other = Counter()
        self._reader = self._writer = None
        self._chunked = False

    async def open(self, host, port, gate):
        for attempt in range(1, OPEN_ATTEMPTS + 1):
            async with gate:
                try:
                    headers = await asyncio.wait_for(self._request(host, port), OPEN_TIMEOUT_SECONDS)
                except (OSError, TimeoutError, ValueError, IndexError) as error:
                    self.status = type(error).__name__
                    headers = {}
            self.first_status = self.first_status or self.status
            if self.status == 200:
                self._chunked = headers.get(b"transfer-encoding") == b"chunked"
                return
            self.close()
            if self.status != 503 or attempt == OPEN_ATTEMPTS:
                return
            await asyncio.sleep(int(headers.get(b"retry-after", 5)))

    async def _request(self, host, port):
        """Send the request and read the answer's status and headers ({lower-case name: value})."""
        self._reader, self._writer = await asyncio.open_connection(host, port)
        self._writer.write(f"GET {self.spec['path']} HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: text/event-stream\r\n"
                           f"Authorization: Bearer {self.spec['token']}\r\n\r\n".encode())
        self.status = int((await self._reader.readline()).split()[1])
        headers = {}
        while (line := await self._reader.readline()) not in (b"\r\n", b""):
            name, _colon, value = line.partition(b":")
            headers[name.strip().lower()] = value.strip()
        return headers

    async def follow(self):
        """Read events until the server ends the stream (counted) or the task is cancelled."""
        pending = b""
        try:
            while data := await self._next_bytes():
                arrival = time.monotonic()
                *blocks, pending = (pending + data).split(b"\n\n")
                for block in blocks:
                    self._event(block, arrival)
        except (OSError, asyncio.IncompleteReadError, ValueError):
            pass
        self.other["ended"] += 1

    async def _next_bytes(self):
        if not self._chunked:
            return await self._reader.read(65536)
        size = int((await self._reader.readline()).split(b";")[0], 16)
        return (await self._reader.readexactly(size + 2))[:-2] if size else b""

    def _event(self, block, arrival):
        fields = dict(line.split(b": ", 1) for line in block.split(b"\n") if b": " in line and line[:1] != b":")
        if fields.get(b"event") == UPDATED:
            data = json.loads(fields[b"data"])
            self.received.append([data["diagram_id"], data["version"], arrival])
        elif b"event" in fields:
            self.other[fields[b"event"].decode()] += 1

    def close(self):
        if self._writer is not None:
            self._writer.close()


def _say(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def _cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def _hold(base_url, plan):
    address = urlsplit(base_url)
    subscribers = [Subscriber(spec) for spec in plan]
    gate, started = asyncio.Semaphore(OPEN_AT_ONCE), time.monotonic()
    await asyncio.gather(*(subscriber.open(address.hostname, address.port, gate) for subscriber in subscribers))
    _say({"statuses": [subscriber.status for subscriber in subscribers],
          "first_statuses": [subscriber.first_status for subscriber in subscribers],
          "open_seconds": round(time.monotonic() - started, 1)})
    cpu, held = _cpu_seconds(), time.monotonic()
    tasks = [asyncio.create_task(subscriber.follow()) for subscriber in subscribers if subscriber.status == 200]
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)  # "stop"
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for subscriber in subscribers:
        subscriber.close()
    _say({"received": [subscriber.received for subscriber in subscribers],
          "other": sum((subscriber.other for subscriber in subscribers), Counter()),
          "cpu_pct": round(100 * (_cpu_seconds() - cpu) / (time.monotonic() - held), 1)})


class SubscriberProcess:
    """`python -m bench.feed subscribe` holding the streams of `plan` ({"path", "token"} each)."""

    def __init__(self, base_url, plan):
        self.process = subprocess.Popen([python(), "-m", "bench.feed", "subscribe", base_url], cwd=ROOT,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.process.stdin.write(json.dumps([{"path": spec["path"], "token": spec["token"]} for spec in plan]) + "\n")
        self.process.stdin.flush()

    def opened(self):
        """Once every stream answered: {"statuses": [200 or what refused it, ...] after the retries,
        "first_statuses" (the first attempts'), "open_seconds"}."""
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the subscriber process exited with {self.process.wait()}")
        return json.loads(line)

    def stop(self):
        """What the streams received: {"received": [[[diagram id, version, arrival], ...] per stream], "other",
        "cpu_pct"}."""
        self.process.stdin.write("stop\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())

    def close(self):
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()


# -- the measuring process -------------------------------------------------------------------

def prepare(base_url, accounts=ACCOUNTS, diagrams=DIAGRAMS):
    """ACCOUNTS users with one project of DIAGRAMS / ACCOUNTS diagrams each, their text at the size the
    autosaves keep (no save grows the account's storage, so none takes its quota lock)."""
    made = []
    for _ in range(accounts):
        _email, token = seed.register_and_login(base_url)
        api = seed.Api(base_url, token)
        project = seed.expect(api.post("/projects", json={"name": "Followed"}), 201)
        ids = seed.create_diagrams(api, project["id"], diagrams // accounts, "Followed")
        autosave.prime(base_url, token, ids)
        made += [Diagram(diagram_id, project["workspace_id"], token) for diagram_id in ids]
    return made


def subscription_plan(diagrams, count):
    """`count` streams spread evenly over the accounts and their diagrams, one in WORKSPACE_EVERY following
    its account's workspace: {"path", "token", "topic"} each (topic as the service names it)."""
    by_workspace = defaultdict(list)
    for diagram in diagrams:
        by_workspace[diagram.workspace_id].append(diagram)
    accounts = list(by_workspace.values())
    plan = []
    for index in range(count):
        own = accounts[index % len(accounts)]
        if index % WORKSPACE_EVERY == WORKSPACE_EVERY - 1:
            path, topic = f"/api/v1/workspaces/{own[0].workspace_id}/events", f"w:{own[0].workspace_id}"
        else:
            diagram = own[(index // len(accounts)) % len(own)]
            path, topic = f"/api/v1/diagrams/{diagram.id}/events", f"d:{diagram.id}"
        plan.append({"path": path, "token": own[0].token, "topic": topic})
    return plan


async def _edits(session, api, diagram, due, period, end):
    """One editor autosaving `diagram` every `period` seconds from `due` until `end`, one save at a time."""
    saves, revision = [], 0
    while due < end:
        await asyncio.sleep(max(0.0, due - time.monotonic()))
        revision += 1
        sent, version = time.monotonic(), None
        try:
            async with session.put(f"{api}/diagrams/{diagram.id}", headers={"Authorization": f"Bearer {diagram.token}"},
                                   json={"content": autosave.content([revision] * autosave.LINES)}) as response:
                if response.status == 200:
                    version = (await response.json())["version"]
        except (TimeoutError, aiohttp.ClientError):
            pass
        saves.append(Save(diagram, version, sent, time.monotonic()))
        due = max(due + period, time.monotonic())  # a late save delays the next: one in flight per diagram
    return saves


async def autosaves(base_url, diagrams, per_second, seconds):
    """`per_second` saves a second spread evenly over the diagrams, for `seconds`."""
    period = len(diagrams) / per_second
    start = time.monotonic() + 0.1
    connector = aiohttp.TCPConnector(limit=0, keepalive_timeout=editor.KEEPALIVE_SECONDS)
    timeout = aiohttp.ClientTimeout(total=editor.REQUEST_TIMEOUT_SECONDS)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        done = await asyncio.gather(*(_edits(session, f"{base_url}/api/v1", diagram,
                                             start + period * index / len(diagrams), period, start + seconds)
                                      for index, diagram in enumerate(diagrams)))
    return [save for saves in done for save in saves]


def deliveries(plan, statuses, saves, received):
    """(delivery latencies in ms from each save's send, events expected): every open stream of a saved
    diagram or of its workspace expects the save's event with its version."""
    followers = defaultdict(list)
    for index, spec in enumerate(plan):
        if statuses[index] == 200:
            followers[spec["topic"]].append(index)
    arrivals = {(index, diagram_id, version): arrival for index, events in enumerate(received)
                for diagram_id, version, arrival in events}
    latencies, expected = [], 0
    for save in saves:
        if save.version is None:
            continue
        for index in followers[f"d:{save.diagram.id}"] + followers[f"w:{save.diagram.workspace_id}"]:
            expected += 1
            if (arrival := arrivals.get((index, save.diagram.id, save.version))) is not None:
                latencies.append((arrival - save.sent) * 1000)
    return sorted(latencies), expected


def _refusals(statuses):
    return dict(Counter(str(status) for status in statuses if status != 200))


def _workers(service):
    """{pid: (resident MiB now, threads)} of the service's workers."""
    memory = service.worker_memory_mib()
    return {pid: (mib, len(os.listdir(f"/proc/{pid}/task"))) for pid, mib in memory.items()}


def run(service, subscribers, per_second=SAVES_PER_SECOND, seconds=SECONDS):
    """Hold `subscribers` streams on `service` (a bench.service.Gunicorn) while autosaving; the figures."""
    diagrams = prepare(service.base_url)
    plan = subscription_plan(diagrams, subscribers)
    holder = SubscriberProcess(service.base_url, plan)
    try:
        opened = holder.opened()
        with ThreadPoolExecutor(max_workers=1) as pool:
            health = pool.submit(streams.health_latencies, service.base_url, seconds)
            saves = asyncio.run(autosaves(service.base_url, diagrams, per_second, seconds))
            health = sorted(health.result())
        time.sleep(DRAIN_SECONDS)
        workers = _workers(service)  # while the streams are still open
        got = holder.stop()
    finally:
        holder.close()
    latencies, expected = deliveries(plan, opened["statuses"], saves, got["received"])
    done = sorted((save.answered - save.sent) * 1000 for save in saves if save.version is not None)
    return {
        "subscribers": subscribers, "opened": opened["statuses"].count(200), "open_seconds": opened["open_seconds"],
        "refused": _refusals(opened["statuses"]), "refused_at_first": _refusals(opened["first_statuses"]),
        "expected": expected, "delivered": len(latencies), "other_events": got["other"],
        "delivery_p50_ms": editor.percentile(latencies, 0.5), "delivery_p99_ms": editor.percentile(latencies, 0.99),
        "delivery_max_ms": round(latencies[-1], 1) if latencies else None,
        "health_p50_ms": editor.percentile(health, 0.5), "health_p99_ms": editor.percentile(health, 0.99),
        "saves_per_second": round(len(done) / seconds, 1), "save_errors": len(saves) - len(done),
        "save_p50_ms": editor.percentile(done, 0.5), "save_p99_ms": editor.percentile(done, 0.99),
        "workers": [{"rss_mib": mib, "threads": threads} for mib, threads in workers.values()],
        "subscriber_cpu_pct": got["cpu_pct"],
    }


def rows(result, backend="pg"):
    """bench.run's table rows: delivery, /health and the saves."""
    count = result["subscribers"]
    common = {"backend": backend, "ratio": None, "floor_ratio": None}
    return [
        {**common, "endpoint": f"feed: {count} subscribers, event delivery", "rps": None, "held": result["opened"],
         "p50_ms": result["delivery_p50_ms"], "p99_ms": result["delivery_p99_ms"],
         "errors": result["expected"] - result["delivered"]},
        {**common, "endpoint": f"feed: GET /health beside {count} subscribers", "rps": None,
         "p50_ms": result["health_p50_ms"], "p99_ms": result["health_p99_ms"], "errors": "-"},
        {**common, "endpoint": f"feed: PUT /diagrams/{{id}} beside {count} subscribers",
         "rps": result["saves_per_second"], "p50_ms": result["save_p50_ms"], "p99_ms": result["save_p99_ms"],
         "errors": result["save_errors"]},
    ]


def note(result):
    """The line under the table: the settings changed, refusals, the share delivered, the workers after."""
    refused, at_first = (", ".join(f"{count} x {status}" for status, count in sorted(refusals.items())) or "none"
                         for refusals in (result["refused"], result["refused_at_first"]))
    share = 100 * result["delivered"] / result["expected"] if result["expected"] else 0.0
    workers = ", ".join(f"{worker['rss_mib']} MiB/{worker['threads']} threads" for worker in result["workers"])
    return (f"feed, {result['subscribers']} subscribers ({result.get('settings') or 'default settings'}): "
            f"{result['opened']} opened in {result['open_seconds']} s, refused {at_first} at first, {refused} after "
            f"{OPEN_ATTEMPTS - 1} retries; "
            f"{result['delivered']}/{result['expected']} events delivered ({share:.2f} %), "
            f"delivery max {result['delivery_max_ms']} ms, other events {result['other_events'] or 'none'}; "
            f"{len(result['workers'])} workers after: {workers}; "
            f"subscriber process CPU {result['subscriber_cpu_pct']}%")


if __name__ == "__main__" and sys.argv[1:2] == ["subscribe"]:
    asyncio.run(_hold(sys.argv[2], json.loads(sys.stdin.readline())))
