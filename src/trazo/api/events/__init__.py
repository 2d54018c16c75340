"""The change feed over Server-Sent Events (docs/events.md)."""
