"""AI chat sessions and their messages."""
