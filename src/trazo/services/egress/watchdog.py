"""One daemon thread per process that runs callbacks at their monotonic time (a timer without a thread each)."""
import heapq
import itertools
import os
import threading
import time

_condition = threading.Condition()
_due = []  # (when, sequence, callback)
_sequence = itertools.count()
_thread = None
_pid = None


def schedule(when, callback):
    """Call `callback()` (on the watchdog thread) once `time.monotonic()` reaches `when`."""
    global _thread, _pid
    with _condition:
        heapq.heappush(_due, (when, next(_sequence), callback))
        # Started on first use, and again in a forked worker (threads do not survive a fork).
        if _thread is None or _pid != os.getpid() or not _thread.is_alive():
            _pid = os.getpid()
            _thread = threading.Thread(target=_run, name="outbound-watchdog", daemon=True)
            _thread.start()
        _condition.notify()


def _take_due():
    with _condition:
        while True:
            now = time.monotonic()
            if _due and _due[0][0] <= now:
                ready = []
                while _due and _due[0][0] <= now:
                    ready.append(heapq.heappop(_due)[2])
                return ready
            _condition.wait(_due[0][0] - now if _due else None)


def _run():
    while True:
        for callback in _take_due():
            try:
                callback()
            except Exception:  # noqa: BLE001 - one bad callback must not stop the others' deadlines
                pass
