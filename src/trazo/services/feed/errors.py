"""The feed's one failure: its store (Redis) could not be reached in time."""


class FeedUnavailable(Exception):
    pass
