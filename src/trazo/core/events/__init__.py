"""The change feed (docs/events.md): events recorded by the writes that make them (publish.py), published
after their commit to the broker of services/feed, and followed by members over Server-Sent Events
(streams.py: who may follow what, tickets, the access check of open streams)."""
from dataclasses import dataclass

from ...services.feed.hub import Hub
from ...services.feed.memory import MemoryBroker
from ...services.feed.redis_store import RedisBroker
from ...services.redis_clients import redis_client
from . import publish
from .streams import auditor


@dataclass(frozen=True)
class Feed:
    broker: object
    hub: Hub


def init_app(app):
    """The application's feed: through Redis when REDIS_URL is set (every worker and machine), else in this
    process's memory (one worker); and the listeners that publish committed events."""
    window = app.config["EVENT_REPLAY_SECONDS"]
    url = app.config.get("REDIS_URL")
    broker = RedisBroker(redis_client(url), window) if url else MemoryBroker(window)
    hub = Hub(broker, auditor(app), lambda: app.config["SSE_ACCESS_CHECK_SECONDS"])
    if isinstance(broker, MemoryBroker):
        broker.hub = hub
    app.extensions[publish.EXTENSION] = Feed(broker, hub)
    publish.init_app(app)
