"""The feed through Redis (several workers or machines): one script call per event adds it to the stream of
each of its topics (trimmed to the window, the key expiring with it) and publishes it, with its ids, on the
feed's channel; every worker's listener subscribes to the channel and hands the event to its own streams. A
reconnect resumes from the streams (Hub.gap): nothing published while a listener was away is lost.
"""
import json
import logging
import time
from contextlib import contextmanager

import redis

from .errors import FeedUnavailable
from .hub import parse_id, within_window

log = logging.getLogger(__name__)

KEY_PREFIX = "trazo-feed:"
TICKET_PREFIX = "trazo-feed-ticket:"
# KEYS: the topics' streams. ARGV: channel, oldest id kept, key lifetime (ms), name, data, then the topics.
PUBLISH = """
local ids, topics = {}, {}
for i, key in ipairs(KEYS) do
  ids[i] = redis.call('XADD', key, 'MINID', '~', ARGV[2], '*', 'e', ARGV[4], 'd', ARGV[5])
  redis.call('PEXPIRE', key, ARGV[3])
  topics[i] = ARGV[5 + i]
end
redis.call('PUBLISH', ARGV[1], cjson.encode({t = topics, i = ids, e = ARGV[4], d = ARGV[5]}))
return ids
"""


@contextmanager
def _store():
    try:
        yield
    except redis.RedisError as error:
        raise FeedUnavailable(str(error)) from error


class RedisBroker:
    def __init__(self, client, window_seconds):
        self.client = client
        self.window_seconds = window_seconds
        # Channels are not per database: two deployments sharing one Redis on different databases stay apart.
        self.channel = f"trazo-feed:{client.connection_pool.connection_kwargs.get('db', 0)}"
        self._publish = client.register_script(PUBLISH)

    def publish(self, events):
        """Keep and publish `events` ((topics, name, data) each) in one round trip (two the first time a
        Redis sees the script)."""
        with _store():
            try:
                self._send(events)
            except redis.exceptions.NoScriptError:  # nothing ran: every call of the batch names the script
                self.client.script_load(PUBLISH)
                self._send(events)

    def _send(self, events):
        oldest = f"{int(time.time() * 1000) - self.window_seconds * 1000}-0"
        pipe = self.client.pipeline(transaction=False)
        for topics, name, data in events:
            keys = [KEY_PREFIX + topic for topic in topics]
            pipe.evalsha(self._publish.sha, len(keys), *keys, self.channel, oldest, self.window_seconds * 1000, name,
                         data, *topics)
        pipe.execute()

    def latest(self, topic):
        with _store():
            newest = self.client.xrevrange(KEY_PREFIX + topic, count=1)
        return newest[0][0].decode() if newest else "0-0"

    def since(self, topic, last_id, limit):
        """The events of `topic` after `last_id` (at most `limit`), or None when some may be gone."""
        if not within_window(parse_id(last_id), int(time.time() * 1000), self.window_seconds):
            return None
        with _store():
            entries = self.client.xrange(KEY_PREFIX + topic, min=f"({last_id}", count=limit + 1)
        if len(entries) > limit:
            return None
        return [(event_id.decode(), fields[b"e"].decode(), fields[b"d"].decode()) for event_id, fields in entries]

    def put_ticket(self, key, value, seconds):
        with _store():
            self.client.set(TICKET_PREFIX + key, value, ex=seconds)

    def take_ticket(self, key):
        with _store():
            value = self.client.getdel(TICKET_PREFIX + key)
        return None if value is None else value.decode()

    def listener(self):
        return _Listener(self)


class _Listener:
    """One worker's subscription to the channel, on a connection of its own that waits without a deadline."""

    def __init__(self, broker):
        self.broker = broker
        self._pubsub = None

    def poll(self, hub, timeout):
        if self._pubsub is None:
            self._subscribe(hub, timeout)
            return
        try:
            message = self._pubsub.get_message(ignore_subscribe_messages=True, timeout=timeout)
        except redis.RedisError:
            log.warning("event feed: lost the Redis channel; reconnecting", exc_info=True)
            self.close()
            return
        if message is not None and message["type"] == "message":
            event = json.loads(message["data"])
            hub.deliver(dict(zip(event["t"], event["i"], strict=True)), event["e"], event["d"])

    def _subscribe(self, hub, timeout):
        pubsub = self.broker.client.pubsub(ignore_subscribe_messages=True)
        try:
            pubsub.subscribe(self.broker.channel)
            pubsub.get_message(timeout=timeout)  # the subscription's confirmation
        except redis.RedisError:
            log.warning("event feed: Redis unavailable; the streams get the events when it is back", exc_info=True)
            pubsub.close()
            time.sleep(timeout)
            return
        self._pubsub = pubsub
        hub.gap()  # what was published before the subscription took effect is read from the streams

    def close(self):
        if self._pubsub is not None:
            try:
                self._pubsub.close()
            except redis.RedisError:
                pass
            self._pubsub = None
