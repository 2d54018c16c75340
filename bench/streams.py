"""N concurrent chat streams held open while /health is timed."""
import statistics
import threading
import time

import requests

from .seed import MERMAID


def _open_stream(base_url, token, session_id, opened, finished, errors, stop):
    url = f"{base_url}/api/v1/chat-sessions/{session_id}/messages/stream"
    body = {"content": "Explain this diagram", "diagram_code": MERMAID, "diagram_type": "mermaid",
            "language": "en", "preset_action": "explain"}
    try:
        with requests.post(url, json=body, headers={"Authorization": f"Bearer {token}"}, stream=True,
                           timeout=(10, 120)) as response:
            if response.status_code != 200:
                errors.append(response.status_code)
                return
            counted = False
            for line in response.iter_lines():
                if line.startswith(b"data:") and not counted:
                    opened.append(1)
                    counted = True
                if b'"type": "error"' in line or b'"type":"error"' in line:
                    errors.append("error-event")
                if stop.is_set():
                    break
            finished.append(1)
    except requests.RequestException as exc:
        errors.append(type(exc).__name__)


def health_latencies(base_url, seconds):
    session = requests.Session()
    samples = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        started = time.perf_counter()
        try:
            session.get(f"{base_url}/health", timeout=5)
        except requests.RequestException:
            pass  # counted as the time it took: a stuck /health is the failure being measured
        samples.append((time.perf_counter() - started) * 1000)
        time.sleep(0.02)
    return samples


def hold_streams(base_url, token, session_id, count, measure_seconds=8, ramp_timeout=60):
    """Open `count` streams, wait until they all sent a first event, then time /health while they stay open."""
    opened, finished, errors, stop = [], [], [], threading.Event()
    threads = [threading.Thread(target=_open_stream, daemon=True,
                                args=(base_url, token, session_id, opened, finished, errors, stop))
               for _ in range(count)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + ramp_timeout
    while len(opened) + len(errors) < count and time.monotonic() < deadline:
        time.sleep(0.1)
    held = len(opened)
    samples = sorted(health_latencies(base_url, measure_seconds))
    stop.set()
    for thread in threads:
        thread.join(timeout=30)
    p99 = samples[max(0, int(len(samples) * 0.99) - 1)] if samples else None
    return {"streams": count, "held": held, "errors": len(errors),
            "health_p50_ms": round(statistics.median(samples), 1),
            "health_p99_ms": round(p99, 1) if p99 is not None else None}
