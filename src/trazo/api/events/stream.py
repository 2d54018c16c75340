"""One feed stream as Server-Sent Events (docs/events.md): the events missed since `Last-Event-ID` first (or
a `reset` when they are gone), then live events as the worker's hub hands them over, a keep-alive comment
after each silent SSE_KEEPALIVE_SECONDS, and an `error` event as the last when the caller loses access.

The stream holds its request's thread and no database connection. It ends when the client leaves (the WSGI
server closes the iterator at the next write), after `diagram.deleted` on a diagram's feed, after the
caller's own `member.left` on a workspace's, or with an `error` event.
"""
import json
import time

from ...core.events.publish import DIAGRAM_DELETED, MEMBER_LEFT
from ...metrics import event_stream_closed, event_stream_opened
from ...services.feed.errors import FeedUnavailable
from ...services.feed.hub import GAP, Delivery, Ended, parse_id
from ..sse import KEEP_ALIVE, sse_event

MAX_REPLAY = 500  # events one reconnect catches up with; more missed than that is a `reset`
RESET = "reset"


def reset(broker, topic):
    """(the newest id, a `reset` event naming it): the client reloads what it shows and goes on from there."""
    newest = broker.latest(topic)
    return newest, sse_event({"reason": "events_gone"}, RESET, newest)


def catch_up(broker, subscription, last_event_id):
    """(the id to go on from, the SSE text of the events after `last_event_id`, or of a `reset` naming the
    newest id when some are gone; whether the stream ends with that text: a replayed event that would end it
    live, its diagram's deletion or its caller's departure, ends it too, as the last event sent)."""
    missed = broker.since(subscription.topic, last_event_id, MAX_REPLAY)
    if missed is None:
        return (*reset(broker, subscription.topic), False)
    if not missed:
        return last_event_id, "", False
    ending = next((index for index, event in enumerate(missed) if _is_last(subscription, Delivery(*event))), None)
    if ending is not None:
        missed = missed[:ending + 1]
    text = "".join(sse_event(data, name, event_id) for event_id, name, data in missed)
    return missed[-1][0], text, ending is not None


def _is_last(subscription, delivery):
    if delivery.name == DIAGRAM_DELETED:
        return subscription.topic.startswith("d:")
    if delivery.name == MEMBER_LEFT:
        return json.loads(delivery.data)["user"]["id"] == subscription.user_id
    return False


class FeedStream:
    """The answer's body for a subscription already registered with `feed.hub`: removed when the stream ends
    or the server closes the body, even one never read (the client left before the first byte)."""

    def __init__(self, feed, subscription, start, keepalive, unavailable):
        self.feed = feed
        self.subscription = subscription
        self._events = _follow(feed, subscription, start, keepalive, unavailable)

    def __iter__(self):
        return self._events

    def close(self):
        self._events.close()
        self.feed.hub.remove(self.subscription)


def _follow(feed, subscription, start, keepalive, unavailable):
    """The stream's text from the id `start` on (the client's Last-Event-ID, or the newest when it opened);
    `unavailable` is the error event sent when the feed's store fails."""
    event_stream_opened()
    try:
        try:
            last, missed, ended = catch_up(feed.broker, subscription, start)
        except FeedUnavailable:
            yield sse_event(unavailable, "error")
            return
        yield missed  # even empty: the answer's headers go out now, so the client knows the stream is open
        if ended:
            return
        spoken = time.monotonic()
        while True:
            item = subscription.next(keepalive - (time.monotonic() - spoken))
            text, ended = "", False
            try:
                if subscription.overflowed:  # too slow to read: start again from now
                    subscription.overflowed = False
                    subscription.drain()
                    last, text = reset(feed.broker, subscription.topic)
                elif item is GAP:
                    last, text, ended = catch_up(feed.broker, subscription, last)
            except FeedUnavailable:
                yield sse_event(unavailable, "error")
                return
            if ended:
                yield text
                return
            if isinstance(item, Ended):
                yield sse_event(item.payload, "error")
                return
            if isinstance(item, Delivery) and parse_id(item.event_id) > parse_id(last):
                last = item.event_id
                text += sse_event(item.data, item.name, item.event_id)
                if _is_last(subscription, item):
                    yield text
                    return
            if text:
                yield text
                spoken = time.monotonic()
            elif time.monotonic() - spoken >= keepalive:
                yield KEEP_ALIVE
                spoken = time.monotonic()
    finally:
        feed.hub.remove(subscription)
        event_stream_closed()
