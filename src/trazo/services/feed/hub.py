"""A worker's subscribers (docs/events.md, "Capacity"): each open stream is a Subscription with its own
queue, held by the request's thread; the hub hands it the events of its topic, caps how many streams the
worker and each user hold, and runs one thread per worker while any stream is open. That thread waits on
the broker (`poll`: the Redis listener, or a pause in memory) and, every `audit_seconds`, asks `audit`
(given by core/) which streams must end because their caller lost access.
"""
import logging
import queue
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass

log = logging.getLogger(__name__)

GAP = "gap"  # the worker may have missed live events (its listener reconnected): replay from the last id
MAX_BACKLOG = 1000  # events waiting for one slow stream before it is told to reset


def parse_id(event_id):
    """(milliseconds, sequence) of an event id, or None for anything else."""
    if not isinstance(event_id, str) or len(event_id) > 41:
        return None
    milliseconds, dash, sequence = event_id.partition("-")
    if not dash or not (milliseconds.isdigit() and sequence.isdigit() and milliseconds.isascii()
                        and sequence.isascii()):
        return None
    return int(milliseconds), int(sequence)


def within_window(after, now_ms, window_seconds):
    """Whether the events after the parsed id `after` are all still kept: it is at most `window_seconds` old
    (and not from the future); (0, 0) names the start of a topic that had no event when a stream opened."""
    if after is None:
        return False
    return after == (0, 0) or now_ms - window_seconds * 1000 <= after[0] <= now_ms + 60_000


@dataclass(frozen=True)
class Delivery:
    """One event for one topic: its id in that topic, its name and its JSON text."""

    event_id: str
    name: str
    data: str


@dataclass(frozen=True)
class Ended:
    """The last event of a stream whose caller lost access (`payload` becomes an `error` event)."""

    payload: dict


class Full(Exception):
    """No room for another stream: `scope` is "worker" or "user"."""

    def __init__(self, scope):
        super().__init__(scope)
        self.scope = scope


class Subscription:
    """One open stream: its topic, who follows it, and the queue its thread reads."""

    def __init__(self, topic, user_id, workspace_id, context=None):
        self.topic = topic
        self.user_id = user_id
        self.workspace_id = workspace_id
        self.context = context  # what the audit needs (core/events): the token's password-change stamp…
        self.overflowed = False
        self._queue = queue.SimpleQueue()

    def put(self, item):
        if self._queue.qsize() >= MAX_BACKLOG:
            self.overflowed = True  # the stream says `reset` and goes on from live events
            return
        self._queue.put(item)

    def next(self, timeout):
        """The next item (a Delivery, GAP or Ended), or None after `timeout` seconds."""
        try:
            return self._queue.get(timeout=max(timeout, 0))
        except queue.Empty:
            return None

    def drain(self):
        """Forget the waiting items (after a reset)."""
        while True:
            try:
                self._queue.get_nowait()
            except queue.Empty:
                return


class Hub:
    """The subscriptions of this process, by topic."""

    def __init__(self, broker, audit=None, audit_seconds=lambda: 10.0):
        self.broker = broker
        self.audit = audit
        self.audit_seconds = audit_seconds  # read at each pass: the setting may change (tests)
        self._lock = threading.Lock()
        self._topics = defaultdict(set)
        self._per_user = Counter()
        self._count = 0
        self._thread = None

    def add(self, subscription, per_worker, per_user):
        """Register a stream (Full when this worker holds `per_worker` streams, or its user `per_user`) and
        make sure this process's delivery thread runs."""
        with self._lock:
            if self._count >= per_worker:
                raise Full("worker")
            if self._per_user[subscription.user_id] >= per_user:
                raise Full("user")
            self._topics[subscription.topic].add(subscription)
            self._per_user[subscription.user_id] += 1
            self._count += 1
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="event-feed", daemon=True)
                self._thread.start()

    def remove(self, subscription):
        with self._lock:
            followers = self._topics.get(subscription.topic)
            if followers is None or subscription not in followers:
                return
            followers.discard(subscription)
            if not followers:
                del self._topics[subscription.topic]
            self._per_user[subscription.user_id] -= 1
            if not self._per_user[subscription.user_id]:
                del self._per_user[subscription.user_id]
            self._count -= 1

    def subscriptions(self):
        with self._lock:
            return [subscription for followers in self._topics.values() for subscription in followers]

    def open_count(self):
        with self._lock:
            return self._count

    def deliver(self, topics, name, data):
        """Hand an event to this process's followers of each topic (`topics`: topic -> the event's id there)."""
        with self._lock:
            targets = [(subscription, event_id) for topic, event_id in topics.items()
                       for subscription in self._topics.get(topic, ())]
        for subscription, event_id in targets:
            subscription.put(Delivery(event_id, name, data))

    def gap(self):
        """Tell every stream it may have missed events (each replays from its last id)."""
        for subscription in self.subscriptions():
            subscription.put(GAP)

    def end(self, ended):
        """End streams: `ended` is a list of (subscription, payload of the last event)."""
        for subscription, payload in ended:
            subscription.put(Ended(payload))

    def _run(self):
        audited = time.monotonic()
        listener = self.broker.listener()  # this thread's own: a thread starting after it ends has another
        try:
            while True:
                with self._lock:
                    if not self._count:
                        self._thread = None
                        return
                try:
                    listener.poll(self, timeout=1.0)
                except Exception:  # the broker logs its own outages; the thread must outlive any of them
                    log.exception("event feed: delivery failed")
                    time.sleep(1.0)
                # the poll waits up to a second: checking a second early keeps the promised interval
                if self.audit is not None and time.monotonic() - audited >= self.audit_seconds() - 1.0:
                    audited = time.monotonic()
                    try:
                        self.end(self.audit(self.subscriptions()))
                    except Exception:
                        log.exception("event feed: the access check failed; the streams stay open until the next")
        finally:
            listener.close()
