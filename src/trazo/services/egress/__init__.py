"""The machinery under services.outbound: a watchdog thread, per-thread deadlines, the address policy."""
