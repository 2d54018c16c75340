"""Limits read from settings, the limiter's 429 answer, and counters kept in the limiter's storage.

The counters (login lockout, code attempts) live where the limits live: in process memory for
a single worker, in Redis when several workers or hosts share the load. The per-user key of a
limit reads the access token: it is auth.user_or_address.
"""
import math
import time

from flask import current_app, request
from flask_limiter import RateLimitExceeded
from limits import parse
from limits.storage import storage_from_string

from .errors import TooManyRequests, error_response, too_many_requests_text
from .extensions import limiter

COUNTER_PREFIX = "trazo-counter"
# Retry-After when the limiter cannot say which limit was broken.
UNKNOWN_RESET_SECONDS = 60


def client_address():
    """The caller's address; ProxyFix has already applied TRUSTED_PROXY_COUNT."""
    return request.remote_addr or "unknown"


def init_limiter(app):
    """Bind the limiter to `app` and answer its refusals: 429, the localized detail and Retry-After."""
    limiter.init_app(app)
    app.register_error_handler(RateLimitExceeded, answer_limit_exceeded)


def answer_limit_exceeded(_error):
    seconds = seconds_until_reset()
    return error_response(429, too_many_requests_text(seconds), {"Retry-After": str(seconds)})


def seconds_until_reset():
    """Whole seconds until the limit this request broke lets a request through again."""
    current = limiter.current_limit
    if current is None:
        return UNKNOWN_RESET_SECONDS
    return max(1, math.ceil(current.reset_at - time.time()))


def limit(name):
    """A limit string from settings (e.g. RATE_LIMIT_LOGIN, declared in settings.py), read per request so tests
    can change it."""
    return lambda: current_app.config[f"RATE_LIMIT_{name}"]


def spend(name, key, cost=1):
    """Take `cost` from the limit RATE_LIMIT_<name> for `key`, inside a view (a budget only some requests
    spend, e.g. a render the cache cannot answer); TooManyRequests once it is spent."""
    if not (limiter.enabled and limiter.initialized):
        return
    item, keys = _budget(name, key)
    if not limiter.limiter.hit(item, *keys, cost=cost):
        raise TooManyRequests(limiter.limiter.get_window_stats(item, *keys).reset_time - time.time())


def budget_left(name, key):
    """(What is left of RATE_LIMIT_<name> for `key`, whole seconds until more is), inside a view; (inf, 0)
    when limits are off. A budget charged after the work it pays for is checked with this first."""
    if not (limiter.enabled and limiter.initialized):
        return math.inf, 0
    item, keys = _budget(name, key)
    stats = limiter.limiter.get_window_stats(item, *keys)
    return stats.remaining, max(1, math.ceil(stats.reset_time - time.time()))


def charge(name, key, cost):
    """Take `cost` from RATE_LIMIT_<name> for `key` once the work is done (e.g. the seconds a render held):
    what is left when that is less, never a refusal: the next request is refused instead. Nothing when limits
    are off."""
    if not (limiter.enabled and limiter.initialized):
        return
    left, _seconds = budget_left(name, key)
    cost = min(cost, left)
    if cost >= 1:
        item, keys = _budget(name, key)
        limiter.limiter.hit(item, *keys, cost=int(cost))


def _budget(name, key):
    """The parsed limit RATE_LIMIT_<name> and the storage keys of `key`'s budget under it."""
    config = current_app.config
    return parse(config[f"RATE_LIMIT_{name}"]), (config["RATELIMIT_KEY_PREFIX"], name.lower().replace("_", "-"), key)


class Counter:
    """A named counter with an expiry, stored in the limiter storage (memory or Redis)."""

    def __init__(self, name, key):
        self.key = f"{COUNTER_PREFIX}:{name}:{key}"

    @staticmethod
    def _storage():
        """The limiter's storage; when limits are switched off, one of the same kind kept for counters
        (a lockout is a security control, not a rate limit)."""
        if limiter.enabled and limiter.initialized:
            return limiter.storage
        extensions = current_app.extensions
        if "trazo-counters" not in extensions:
            extensions["trazo-counters"] = storage_from_string(current_app.config["RATELIMIT_STORAGE_URI"])
        return extensions["trazo-counters"]

    def hit(self, expiry_seconds):
        """Add one and return the new count; the expiry starts with the first hit."""
        return self._storage().incr(self.key, int(expiry_seconds))

    def value(self):
        return self._storage().get(self.key)

    def seconds_left(self):
        """Whole seconds until the counter expires (at least 1 while it exists)."""
        if not self.value():
            return 0
        return max(1, math.ceil(self._storage().get_expiry(self.key) - time.time()))

    def clear(self):
        self._storage().clear(self.key)


class Lockout:
    """Failures of one kind for one subject (an e-mail, an account); `limit` of them within `seconds`
    lock the subject for `seconds`, whatever it sends meanwhile."""

    def __init__(self, name, key, limit, seconds):
        self.failures = Counter(f"{name}-failures", key)
        self.lock = Counter(f"{name}-lock", key)
        self.limit, self.seconds = limit, seconds

    def seconds_left(self):
        """Whole seconds the lock still lasts; 0 when the subject is not locked."""
        return self.lock.seconds_left()

    def fail(self):
        """Count one failure; True only for the failure that locks (once per lock, even under concurrency)."""
        if self.failures.hit(self.seconds) < self.limit:
            return False
        self.failures.clear()
        return self.lock.hit(self.seconds) == 1

    def succeed(self):
        self.failures.clear()

    def clear(self):
        self.failures.clear()
        self.lock.clear()
