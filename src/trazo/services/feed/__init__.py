"""The change feed's transport (docs/events.md): where events are kept for ten minutes and how an event one
worker publishes reaches the subscribers of every worker.

- `memory.py`: one process (the development default, a single worker): events kept and delivered in memory.
- `redis_store.py`: several workers and machines: each event is added to a Redis stream per topic (a diagram,
  a workspace) and published on one channel, in one script call; each worker's listener hands it to its own
  subscribers.
- `hub.py`: a worker's subscribers, the caps on them, and the thread that delivers to them.

A topic is `d:<diagram id>` or `w:<workspace id>`; an event id is `<milliseconds>-<sequence>` (Redis stream ids,
and the same form in memory), increasing within a topic.
"""
