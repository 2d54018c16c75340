"""Run a rendering tool on a source text with a deadline and a cap on what it may print."""
import os
import selectors
import subprocess
import threading
import time
from dataclasses import dataclass

from .errors import RendererFailed, RendererTimeout

MAX_STDERR_BYTES = 64 * 1024
_CHUNK = 64 * 1024


@dataclass(frozen=True)
class Completed:
    returncode: int
    stdout: bytes
    stderr: str


def run_capped(command, stdin_bytes, timeout, max_output, env, cwd):
    """Feed `stdin_bytes` to `command`; kill it past `timeout` seconds or `max_output` bytes of output."""
    try:
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, env=env, cwd=cwd)
    except OSError as exc:
        raise RendererFailed(f"cannot start {os.path.basename(command[0])}: {exc.strerror}") from exc
    feeder = threading.Thread(target=_feed, args=(process.stdin, stdin_bytes), daemon=True)
    feeder.start()
    deadline = time.monotonic() + timeout
    try:
        stdout, stderr = _collect(process, deadline, max_output)
        _wait(process, deadline)
    except BaseException:
        process.kill()
        process.wait()
        raise
    finally:
        process.stdout.close()
        process.stderr.close()
    return Completed(process.returncode, bytes(stdout), stderr.decode("utf-8", "replace"))


def _wait(process, deadline):
    try:
        process.wait(timeout=max(0.01, deadline - time.monotonic()))
    except subprocess.TimeoutExpired as exc:
        raise RendererTimeout() from exc


def _feed(pipe, data):
    try:
        pipe.write(data)
    except (BrokenPipeError, ValueError, OSError):
        pass  # the tool stopped reading (it failed or was killed); its exit status tells why
    finally:
        try:
            pipe.close()
        except OSError:
            pass


def _collect(process, deadline, max_output):
    stdout, stderr = bytearray(), bytearray()
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ, stdout)
        selector.register(process.stderr, selectors.EVENT_READ, stderr)
        while selector.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise RendererTimeout()
            for key, _events in selector.select(remaining):
                chunk = os.read(key.fd, _CHUNK)
                if not chunk:
                    selector.unregister(key.fileobj)
                    continue
                key.data.extend(chunk)
                if len(stdout) > max_output:
                    raise RendererFailed(f"output larger than {max_output} bytes")
                if len(stderr) > MAX_STDERR_BYTES:
                    del stderr[:len(stderr) - MAX_STDERR_BYTES]
    return stdout, stderr
