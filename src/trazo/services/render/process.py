"""Run a rendering tool on a source text with a deadline, kernel limits on what it may use, and a cap
on what it may print."""
import os
import resource
import selectors
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass

from .errors import RendererFailed, RendererTimeout

MAX_STDERR_BYTES = 64 * 1024
_CHUNK = 64 * 1024


@dataclass(frozen=True)
class Limits:
    """What one tool process may use; the kernel enforces it (CPU: SIGXCPU, memory: failed allocations)."""

    cpu_seconds: int
    address_space: int | None = None  # bytes of virtual memory (Java reserves far more than it uses)
    data: int | None = None  # bytes of heap and private mappings: the memory bound for Java
    open_files: int = 256
    file_bytes: int = 1024 * 1024

    def wrap(self, command):
        """`command` run through util-linux's prlimit, which sets the limits on itself and then execs the
        tool. Setting them in a `preexec_fn` instead would run Python between fork and exec, which can
        deadlock in a worker that has other threads."""
        prlimit = shutil.which("prlimit")
        if prlimit is None:
            raise RendererFailed("cannot start the renderer under its limits: prlimit (util-linux) is missing")
        options = [_option("cpu", resource.RLIMIT_CPU, self.cpu_seconds, self.cpu_seconds + 1),  # SIGXCPU, then SIGKILL
                   _option("nofile", resource.RLIMIT_NOFILE, self.open_files),
                   _option("fsize", resource.RLIMIT_FSIZE, self.file_bytes),
                   _option("core", resource.RLIMIT_CORE, 0)]
        if self.address_space:
            options.append(_option("as", resource.RLIMIT_AS, self.address_space))
        if self.data:
            options.append(_option("data", resource.RLIMIT_DATA, self.data))
        return [prlimit, *options, "--", *command]


def _option(name, kind, soft, hard=None):
    """One prlimit option, never above the hard limit this process already has (only root may raise it)."""
    hard = soft if hard is None else hard
    ceiling = resource.getrlimit(kind)[1]
    if ceiling != resource.RLIM_INFINITY:
        soft, hard = min(soft, ceiling), min(hard, ceiling)
    return f"--{name}={soft}:{hard}"


@dataclass(frozen=True)
class Completed:
    returncode: int
    stdout: bytes
    stderr: str


def run_capped(command, stdin_bytes, timeout, max_output, env, cwd, limits):
    """Feed `stdin_bytes` to `command` under `limits`; kill it past `timeout` seconds or `max_output`
    bytes of output."""
    try:
        process = subprocess.Popen(limits.wrap(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
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
