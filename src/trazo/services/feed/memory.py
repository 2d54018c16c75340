"""The feed in one process's memory (the single-worker development default): each topic keeps its events of
the last `window_seconds`, and a publication reaches the process's own hub at once."""
import threading
import time
from collections import defaultdict, deque

from .hub import parse_id, within_window


class MemoryBroker:
    def __init__(self, window_seconds):
        self.window_seconds = window_seconds
        self.hub = None  # set by the hub's owner: publications are delivered to it directly
        self._lock = threading.Lock()
        self._topics = defaultdict(deque)  # topic -> deque of (id, (ms, seq), name, data)
        self._tickets = {}
        self._last = (0, 0)

    def _next_id(self):
        milliseconds = max(int(time.time() * 1000), self._last[0])
        sequence = self._last[1] + 1 if milliseconds == self._last[0] else 0
        self._last = (milliseconds, sequence)
        return f"{milliseconds}-{sequence}", self._last

    def _trim(self, kept, now_ms):
        oldest = now_ms - self.window_seconds * 1000
        while kept and kept[0][1][0] < oldest:
            kept.popleft()

    def publish(self, events):
        """Keep and deliver `events`: (topics, name, data) each, data a JSON text."""
        delivered = []
        with self._lock:
            now_ms = int(time.time() * 1000)
            for topics, name, data in events:
                ids = {}
                for topic in topics:
                    event_id, key = self._next_id()
                    kept = self._topics[topic]
                    kept.append((event_id, key, name, data))
                    self._trim(kept, now_ms)
                    ids[topic] = event_id
                delivered.append((ids, name, data))
            for topic in [topic for topic, kept in self._topics.items() if not kept]:
                del self._topics[topic]
        if self.hub is not None:
            for ids, name, data in delivered:
                self.hub.deliver(ids, name, data)

    def latest(self, topic):
        with self._lock:
            kept = self._topics.get(topic)
            return kept[-1][0] if kept else "0-0"

    def since(self, topic, last_id, limit):
        """The events of `topic` after `last_id` (at most `limit`), or None when some may be gone: the id is
        older than the window or unknown, or more than `limit` followed it."""
        after = parse_id(last_id)
        now_ms = int(time.time() * 1000)
        if not within_window(after, now_ms, self.window_seconds):
            return None
        with self._lock:
            kept = self._topics.get(topic, ())
            newer = [(event_id, name, data) for event_id, key, name, data in kept if key > after]
        return None if len(newer) > limit else newer

    def put_ticket(self, key, value, seconds):
        with self._lock:
            now = time.monotonic()
            for stale in [name for name, (_value, until) in self._tickets.items() if until <= now]:
                del self._tickets[stale]
            self._tickets[key] = (value, now + seconds)

    def take_ticket(self, key):
        with self._lock:
            value, until = self._tickets.pop(key, (None, 0))
        return value if until > time.monotonic() else None

    def listener(self):
        return _Pause()


class _Pause:
    """In memory, publications are delivered when made: the hub's thread only waits between access checks."""

    def __init__(self):
        self._closed = threading.Event()

    def poll(self, _hub, timeout):
        self._closed.wait(timeout)

    def close(self):
        self._closed.set()
