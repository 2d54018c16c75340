"""Fair shares of a worker's rendering capacity (docs/rendering.md, "Fair shares"; docs/security.md,
"Render fairness").

A render runs on behalf of a client: the keys that name it (its address and, when signed in, its user),
set by the caller around the render with `for_client(keys)` (core/content/rendering.py computes them from the
request; this layer knows nothing of Flask). A pool of slots (`FairSlots`: the local engines' processes,
the Mermaid pages, the PNG rasterizer) lets no key hold or wait for more than `share` of them: beyond it
the request is refused at once (RendererBusy, a 503 with Retry-After), so one address, or one user on many
addresses, can never take a whole pool. While every slot is taken, waiting requests are served first to
the client that holds the fewest slots, then in order of arrival. Work done outside a request (no keys)
is bounded by the pool's size only.

`metered()` measures how long a render held its slots (its wall time less the time it waited for them):
what the render budget is charged (core/content/rendering.py).
"""
import contextvars
import itertools
import threading
import time
from collections import Counter
from contextlib import contextmanager

from .errors import RendererBusy

# Retry-After of a refusal: a client's own renders end within RENDER_TIMEOUT, most within a few seconds.
RETRY_SECONDS = 5

_client = contextvars.ContextVar("trazo_render_client", default=())
_meter = contextvars.ContextVar("trazo_render_meter", default=None)
_tickets = itertools.count()


@contextmanager
def for_client(keys):
    """Renders inside this block run on behalf of the client named by `keys` (e.g. ("ip:1.2.3.4",
    "user:42")): each key is held to its share of every pool."""
    token = _client.set(tuple(keys))
    try:
        yield
    finally:
        _client.reset(token)


def current_client():
    return _client.get()


class Meter:
    """Seconds a block took and, of those, seconds spent waiting for a slot."""

    def __init__(self):
        self.started = time.monotonic()
        self.waited = 0.0

    def held(self):
        return max(0.0, time.monotonic() - self.started - self.waited)


@contextmanager
def metered():
    meter = Meter()
    token = _meter.set(meter)
    try:
        yield meter
    finally:
        _meter.reset(token)


class FairSlots:
    """`total` slots; each client key may hold or wait for at most `share` of them."""

    def __init__(self, total, share):
        self.total, self.share = max(1, total), max(1, share)
        self.condition = threading.Condition()
        self.busy = 0
        self.held = Counter()  # key -> slots held
        self.claims = Counter()  # key -> slots held or waited for
        self.waiting = []  # [ticket number, keys] in order of arrival

    def resize(self, total, share):
        """Apply changed settings (the local backend reads them per render); slots held stay held."""
        with self.condition:
            self.total, self.share = max(1, total), max(1, share)
            self.condition.notify_all()

    @contextmanager
    def hold(self, timeout):
        """One slot for the current client, for the block: RendererBusy at once past the client's share,
        or when no slot frees within `timeout` seconds."""
        keys = current_client()
        self._take(keys, timeout)
        try:
            yield
        finally:
            self._give_back(keys)

    def in_use(self, key=None):
        """Slots held: in all, or by one client key."""
        with self.condition:
            return self.busy if key is None else self.held[key]

    def _take(self, keys, timeout):
        began = time.monotonic()
        with self.condition:
            if any(self.claims[key] >= self.share for key in keys):
                raise RendererBusy(RETRY_SECONDS, own_share=True)
            ticket = [next(_tickets), keys]
            self.waiting.append(ticket)
            self.claims.update(keys)
            try:
                if not self.condition.wait_for(lambda: self._turn(ticket), timeout):
                    self._drop_claims(keys)
                    raise RendererBusy(RETRY_SECONDS)
                self.busy += 1
                self.held.update(keys)
            finally:
                self.waiting.remove(ticket)
                self.condition.notify_all()
        if (meter := _meter.get()) is not None:
            meter.waited += time.monotonic() - began

    def _turn(self, ticket):
        """A free slot, and no waiting request of a client holding fewer slots (or as few, arrived earlier)."""
        if self.busy >= self.total:
            return False
        return ticket is min(self.waiting, key=lambda other: (max((self.held[key] for key in other[1]), default=0),
                                                              other[0]))

    def _give_back(self, keys):
        with self.condition:
            self.busy -= 1
            self.held.subtract(keys)
            self._drop_claims(keys)
            self.condition.notify_all()

    def _drop_claims(self, keys):
        """One claim less for each key; a key with none left is forgotten (the counters stay small)."""
        self.claims.subtract(keys)
        for key in keys:
            if self.claims[key] <= 0:
                del self.claims[key]
                self.held.pop(key, None)
