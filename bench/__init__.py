"""Benchmarks, soak and fault tests (make bench, make soak)."""
