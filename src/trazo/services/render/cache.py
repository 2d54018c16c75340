"""Cache of finished renders, keyed by (backend, type, source): a bounded in-process LRU, and Redis
when REDIS_URL is configured so every worker shares what any of them rendered."""
import hashlib
import logging
import threading
from collections import OrderedDict

import redis

from ...metrics import render_cache_hit, render_cache_miss
from ..redis_clients import redis_client

log = logging.getLogger(__name__)

# v2: entries are sanitized SVG; older ones (raw renderer output) are never read. v3: the sanitizer keeps
# data: fonts, SVG pictures and http(s)/mailto links, which v2 entries lack.
REDIS_PREFIX = "trazo-render:v3:"
REDIS_TTL_SECONDS = 24 * 3600
MAX_MEMORY_BYTES = 32 * 1024 * 1024
MAX_ENTRY_BYTES = 2 * 1024 * 1024


class LruCache:
    """Least-recently-used entries go first once their total size passes `max_bytes`."""

    def __init__(self, max_bytes):
        self.max_bytes = max_bytes
        self.size = 0
        self.entries = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key):
        with self.lock:
            value = self.entries.get(key)
            if value is not None:
                self.entries.move_to_end(key)
            return value

    def put(self, key, value):
        with self.lock:
            self.size -= len(self.entries.pop(key, ""))
            self.entries[key] = value
            self.size += len(value)
            while self.size > self.max_bytes:
                _oldest, dropped = self.entries.popitem(last=False)
                self.size -= len(dropped)

    def clear(self):
        with self.lock:
            self.entries.clear()
            self.size = 0


_memory = LruCache(MAX_MEMORY_BYTES)
def cache_key(backend, diagram_type, source):
    digest = hashlib.sha256(f"{backend}\0{diagram_type}\0{source}".encode()).hexdigest()
    return REDIS_PREFIX + digest


def get(key, redis_url=None):
    """The cached SVG or None; each lookup is counted as a hit (by tier) or a miss."""
    found = _memory.get(key)
    if found is not None:
        render_cache_hit("memory")
        return found
    client = redis_client(redis_url)
    try:
        stored = client.get(key) if client is not None else None
    except redis.RedisError:
        log.warning("render cache: Redis unavailable for reads", exc_info=True)
        stored = None
    if stored is None:
        render_cache_miss()
        return None
    render_cache_hit("redis")
    svg = stored.decode("utf-8")
    _memory.put(key, svg)
    return svg


def put(key, svg, redis_url=None):
    """Keep a render unless it is larger than one entry may be (a huge SVG would evict everything)."""
    if len(svg) > MAX_ENTRY_BYTES:
        return
    _memory.put(key, svg)
    if client := redis_client(redis_url):
        try:
            client.set(key, svg.encode("utf-8"), ex=REDIS_TTL_SECONDS)
        except redis.RedisError:
            log.warning("render cache: Redis unavailable for writes", exc_info=True)


def clear(redis_url=None):
    """Forget every cached render (tests and operators after changing renderer versions)."""
    _memory.clear()
    if client := redis_client(redis_url):
        for key in client.scan_iter(match=REDIS_PREFIX + "*", count=500):
            client.delete(key)
