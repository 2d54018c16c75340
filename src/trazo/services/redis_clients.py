"""One Redis client per URL and process, shared by the render and icon caches and the change feed: each
keeps its own pool of connections, with short socket deadlines so a stalled Redis never holds a request."""
import threading

import redis

SOCKET_TIMEOUT = 0.5

_clients = {}
_lock = threading.Lock()


def redis_client(url):
    """The Redis client for `url` (one per process), or None without a URL."""
    if not url:
        return None
    with _lock:
        if url not in _clients:
            _clients[url] = redis.Redis.from_url(url, socket_timeout=SOCKET_TIMEOUT,
                                                 socket_connect_timeout=SOCKET_TIMEOUT)
        return _clients[url]
