"""Integrations with the outside world and shared building blocks used by several areas."""
