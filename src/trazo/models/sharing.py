"""Shared links with their access log, and prompt history."""
