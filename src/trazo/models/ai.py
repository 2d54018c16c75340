"""Per-user AI settings, chat sessions and messages."""
