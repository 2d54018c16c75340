"""Mermaid drawn by the official renderer: mermaid.js in headless Chromium, as Kroki and mermaid-cli do
(docs/mermaid-engine.md says why, with the measurements of the browser-free alternatives).

Each worker process keeps one warm engine (`shared_engine`): a Node process (engines/mermaid/server.mjs)
driving one long-lived Chromium with a pool of pages that already hold Mermaid. It starts on the first
render, starts again on the next render after it died, and stops when the process exits. A render
holds one of MERMAID_PAGES slots (default 2), of which one client holds at most MERMAID_PAGES_PER_CLIENT
(default 1; services/render/fair.py), waits for a slot and draws within RENDER_TIMEOUT, and its SVG is
capped at RENDER_MAX_SVG_BYTES. The server stops a page whose renderer process uses more than
RENDER_CPU_SECONDS of CPU in one render or more than RENDER_MEMORY_MB of memory. The page may fetch
nothing (its requests are intercepted and refused, its CSP allows no source, the browser's proxy is a
closed port), Mermaid runs with `securityLevel: "strict"`, and labels are SVG text (no HTML in
foreignObject), so the SVG rasterizes as it is drawn.

A host without Node, Chromium or `npm ci --prefix engines/mermaid` has no engine: `available()` is
False, `missing()` says what lacks, and nothing is started.
"""
import atexit
import collections
import json
import logging
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from .base import MAX_SVG_BYTES
from .diagnostics import clean_message
from .engines import Engine, EngineMissing, native_limits, register
from .errors import (
    DiagramSyntaxError,
    RendererFailed,
    RendererLimitExceeded,
    RendererTimeout,
)
from .fair import FairSlots
from .process import Limits

log = logging.getLogger(__name__)

ENGINE_DIR = Path(__file__).resolve().parents[4] / "engines" / "mermaid"
THEMES = frozenset({"default", "dark", "neutral", "forest", "base"})
THEME_ALIASES = {"light": "default"}
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome-stable", "google-chrome")
START_TIMEOUT = 30  # seconds for Chromium and the first page; renders have RENDER_TIMEOUT of their own
RESTART_PAUSE = 5  # seconds after a failed start during which renders fail at once instead of retrying
ANSWER_GRACE = 3  # seconds the server has past a render's deadline to report the timeout itself
NODE_HEAP_MB = 256
# The long-lived engine is no one-shot tool: a CPU-time limit would add up over its whole life. The
# limits bound open files and file sizes (Chromium's profile lives in a fresh temporary folder); the
# page's JavaScript heap is bounded by the server (--max-old-space-size) and each render by its timeout.
ENGINE_LIMITS = Limits(cpu_seconds=365 * 24 * 3600, open_files=4096, file_bytes=1 << 30)


class MermaidEngine:
    """One Node + Chromium engine, started lazily. Thread-safe: renders from many threads share it."""

    def __init__(self, config):
        self.timeout = config.get("RENDER_TIMEOUT") or 30
        self.max_bytes = config.get("RENDER_MAX_SVG_BYTES") or MAX_SVG_BYTES
        self.max_source_bytes = config.get("RENDER_MAX_SOURCE_BYTES") or 100_000
        self.max_edges = config.get("RENDER_MAX_GRAPH_EDGES") or 2000
        self.pages = max(1, int(config.get("MERMAID_PAGES") or 2))
        self.pages_per_client = max(1, int(config.get("MERMAID_PAGES_PER_CLIENT") or 1))
        # What one page's renderer process may use: CPU seconds in one render, resident memory.
        self.cpu_seconds = config.get("RENDER_CPU_SECONDS") or 10
        self.memory_mb = config.get("RENDER_MEMORY_MB") or 512
        self.directory = Path(config.get("MERMAID_ENGINE_DIR") or ENGINE_DIR)
        self.node = shutil.which("node")
        self.chromium = config.get("MERMAID_CHROMIUM") or _find_chromium()
        self._slots = FairSlots(self.pages, self.pages_per_client)
        self._start_lock = threading.Lock()
        self._server = None
        self._failed_at = None
        self._failure = None
        self._in_flight = 0
        self.peak_in_flight = 0  # the most renders the server had at once (tests check the bound)
        self._count_lock = threading.Lock()

    # -- what is installed ---------------------------------------------------------------------------

    def missing(self):
        """What this host lacks for the engine, in words (empty when it has everything)."""
        lacks = []
        if not self.node:
            lacks.append("node (Node.js)")
        if not shutil.which("prlimit"):
            lacks.append("prlimit (util-linux)")
        if not self.chromium or not os.access(self.chromium, os.X_OK):
            lacks.append("chromium (apt-get install chromium)")
        if not (self.directory / "server.mjs").is_file():
            lacks.append(f"{self.directory / 'server.mjs'}")
        for package in ("mermaid/dist/mermaid.min.js", "puppeteer-core/package.json"):
            if not (self.directory / "node_modules" / package).is_file():
                lacks.append(f"node_modules/{package.split('/')[0]} (npm ci --prefix {self.directory})")
        return lacks

    def available(self):
        return not self.missing()

    def version(self):
        """The Mermaid version the engine draws with, or None when it is not installed."""
        try:
            return json.loads((self.directory / "node_modules" / "mermaid" / "package.json").read_text())["version"]
        except (OSError, ValueError, KeyError):
            return None

    # -- rendering -----------------------------------------------------------------------------------

    def render_svg(self, source, theme="default", *, timeout=None):
        """The SVG of the Mermaid `source` in `theme`; raises a RenderError subclass when it cannot."""
        theme = THEME_ALIASES.get(theme, theme)
        if theme not in THEMES:
            raise ValueError(f"unknown Mermaid theme {theme!r}")
        if len(source.encode("utf-8")) > self.max_source_bytes:
            raise RendererLimitExceeded()
        timeout = self.timeout if timeout is None else timeout
        ends = time.monotonic() + timeout  # waiting for a slot and drawing share the timeout
        with self._slots.hold(timeout):
            server = self._running(ends - time.monotonic())
            remaining = ends - time.monotonic()
            if remaining <= 0:
                raise RendererTimeout()
            with self._count_lock:
                self._in_flight += 1
                self.peak_in_flight = max(self.peak_in_flight, self._in_flight)
            try:
                answer = server.ask({"source": source, "theme": theme, "timeout_ms": int(remaining * 1000)},
                                    remaining + ANSWER_GRACE)
            finally:
                with self._count_lock:
                    self._in_flight -= 1
        return self._result(source, answer)

    def stats(self):
        """The server's counters (pages, renders, refused requests), starting it if needed."""
        return self._running(START_TIMEOUT).ask({"op": "stats"}, START_TIMEOUT)

    def stop(self):
        with self._start_lock:
            server, self._server = self._server, None
        if server is not None:
            server.stop()

    def _running(self, wait):
        """The started server; starts it when it is not running. A render waits at most `wait` seconds
        for another thread's start (the start itself has START_TIMEOUT)."""
        if not self._start_lock.acquire(timeout=max(0.01, wait)):
            raise RendererTimeout()
        try:
            if self._server is not None and self._server.alive():
                return self._server
            if self._server is not None:
                log.warning("the Mermaid engine stopped (%s); starting it again", self._server.why_dead())
                self._server.stop()
                self._server = None
            if self._failed_at is not None and time.monotonic() - self._failed_at < RESTART_PAUSE:
                raise RendererFailed(self._failure)
            lacks = self.missing()
            if lacks:
                raise RendererFailed("the Mermaid engine is not installed: missing " + ", ".join(lacks))
            try:
                self._server = _Server.start(self)
            except RendererFailed as exc:
                self._failed_at, self._failure = time.monotonic(), str(exc)
                log.error("the Mermaid engine did not start: %s", exc)
                raise
            self._failed_at = None
            return self._server
        finally:
            self._start_lock.release()

    def _result(self, source, answer):
        if answer.get("ok"):
            svg = answer.get("svg") or ""
            if len(svg.encode("utf-8")) > self.max_bytes:
                raise RendererLimitExceeded()
            if "<svg" not in svg:
                raise RendererFailed("the Mermaid engine answered without an SVG")
            return svg
        kind, message = answer.get("kind"), answer.get("message") or ""
        if kind == "syntax":
            raise _syntax_error(source, message, answer.get("line"))
        if kind == "timeout":
            raise RendererTimeout()
        if kind == "limit":
            raise RendererLimitExceeded()
        raise RendererFailed(f"the Mermaid engine failed: {clean_message(message) or 'no reason given'}")


class _Server:
    """The Node process and the threads that read its answers."""

    def __init__(self, process, workdir):
        self.process = process
        self.workdir = workdir
        self.hello = None
        self._answers = {}  # id -> [threading.Event, answer]
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._next_id = 0
        self._dead = None
        self._started = threading.Event()
        self._stderr = collections.deque(maxlen=40)

    @classmethod
    def start(cls, engine):
        workdir = tempfile.mkdtemp(prefix="trazo-mermaid-")
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": workdir, "TMPDIR": workdir,
               "LANG": "C.UTF-8", "PUPPETEER_SKIP_DOWNLOAD": "1", "MERMAID_CHROMIUM": engine.chromium,
               "MERMAID_PAGES": str(engine.pages), "MERMAID_MAX_SVG_BYTES": str(engine.max_bytes),
               "MERMAID_MAX_TEXT_SIZE": str(engine.max_source_bytes), "MERMAID_MAX_EDGES": str(engine.max_edges),
               "MERMAID_CPU_SECONDS": str(engine.cpu_seconds), "MERMAID_MEMORY_MB": str(engine.memory_mb)}
        command = ENGINE_LIMITS.wrap([engine.node, f"--max-old-space-size={NODE_HEAP_MB}",
                                      str(engine.directory / "server.mjs")])
        try:
            # A session of its own: stopping the engine kills Chromium's processes with it.
            process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       env=env, cwd=workdir, start_new_session=True)
        except OSError as exc:
            shutil.rmtree(workdir, ignore_errors=True)
            raise RendererFailed(f"cannot start node: {exc.strerror}") from exc
        server = cls(process, workdir)
        threading.Thread(target=server._read_answers, name="mermaid-engine-out", daemon=True).start()
        threading.Thread(target=server._read_errors, name="mermaid-engine-err", daemon=True).start()
        if not server._started.wait(START_TIMEOUT) or not (server.hello or {}).get("ready"):
            reason = (server.hello or {}).get("message") or server.why_dead() or "it did not answer in time"
            server.stop()
            raise RendererFailed(f"the Mermaid engine did not start: {clean_message(reason)}")
        externals = ", ".join(f"{name} {version}" for name, version in (server.hello.get("externals") or {}).items())
        log.info("Mermaid engine started: mermaid %s (externals: %s), %s, %d pages", server.hello.get("mermaid"),
                 externals or "none", server.hello.get("browser"), engine.pages)
        atexit.register(server.stop)  # whoever made the engine: its browser stops with this process
        return server

    def alive(self):
        return self._dead is None and self.process.poll() is None

    def why_dead(self):
        last = " ".join(self._stderr)[-300:]
        code = self.process.poll()
        return f"exit status {code}{': ' + last if last else ''}" if code is not None else (self._dead or last)

    def ask(self, request, timeout):
        """Send `request` and wait up to `timeout` seconds for its answer. A server that does not answer
        by then is wedged: it is stopped (the next render starts another) and the render timed out."""
        waiter = [threading.Event(), None]
        with self._lock:
            if self._dead is not None:
                raise RendererFailed(f"the Mermaid engine stopped: {self._dead}")
            self._next_id += 1
            request_id = self._next_id
            self._answers[request_id] = waiter
        line = json.dumps({"id": request_id, **request}) + "\n"
        try:
            with self._write_lock:
                self.process.stdin.write(line.encode("utf-8"))
                self.process.stdin.flush()
        except (BrokenPipeError, OSError, ValueError) as exc:
            with self._lock:
                self._answers.pop(request_id, None)
            raise RendererFailed("the Mermaid engine stopped") from exc
        if not waiter[0].wait(timeout):
            with self._lock:
                self._answers.pop(request_id, None)
            log.warning("the Mermaid engine did not answer within %.1f s; stopping it", timeout)
            self.stop()
            raise RendererTimeout()
        if waiter[1] is None:
            raise RendererFailed(f"the Mermaid engine stopped: {self.why_dead()}")
        return waiter[1]

    def _read_answers(self):
        try:
            for raw in self.process.stdout:
                try:
                    answer = json.loads(raw)
                except ValueError:
                    continue
                if self.hello is None:
                    self.hello = answer
                    self._started.set()
                    continue
                with self._lock:
                    waiter = self._answers.pop(answer.get("id"), None)
                if waiter is not None:
                    waiter[1] = answer
                    waiter[0].set()
        except (OSError, ValueError):
            pass
        finally:
            self._finish("its output closed")

    def _read_errors(self):
        try:
            for raw in self.process.stderr:
                line = raw.decode("utf-8", "replace").rstrip()
                if line:
                    self._stderr.append(line)
                    if line.startswith("mermaid-engine:"):
                        log.warning("%s", line)
        except (OSError, ValueError):
            pass

    def _finish(self, why):
        with self._lock:
            if self._dead is None:
                self._dead = why
            waiting, self._answers = list(self._answers.values()), {}
        self._started.set()
        for waiter in waiting:  # their answers stay None: the engine stopped
            waiter[0].set()

    def stop(self):
        """Close stdin (the server closes its browser and exits), then kill what is left of its session."""
        atexit.unregister(self.stop)
        self._finish("stopped")
        try:
            self.process.stdin.close()
        except OSError:
            pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(self.process.pid, signal.SIGKILL)  # Chromium's helpers, whatever became of node
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            log.error("the Mermaid engine (pid %d) did not stop", self.process.pid)
        ends = time.monotonic() + 5  # until the last of the session is gone: it writes its profile on its way out
        while time.monotonic() < ends:
            try:
                os.killpg(self.process.pid, 0)
            except (ProcessLookupError, PermissionError):
                break
            time.sleep(0.05)
        shutil.rmtree(self.workdir, ignore_errors=True)


def _find_chromium():
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


# -- error messages --------------------------------------------------------------------------------

_FRONTMATTER_END = re.compile(r"^---\s*$")
_DIRECTIVE = re.compile(r"%%\{.*?\}%%")
_COMMENT = re.compile(r"^\s*%%(?!\{).")
_LINE_WORD = re.compile(r"\bline (\d+)")
_JISON_CONTEXT = re.compile(r"^(\.\.\.|-*\^$)")


def _kept_lines(source):
    """The 1-based numbers of the source lines Mermaid parses, in order: it drops the front matter,
    %%{directives}%% (a directive over several lines leaves one line), %% comment lines and the blank
    lines before the diagram, and numbers what remains from 1."""
    lines = source.replace("\r\n", "\n").split("\n")
    index = 0
    if lines[0].strip() == "---":
        index = next((number + 1 for number in range(1, len(lines)) if _FRONTMATTER_END.match(lines[number])), 0)
    kept = []
    while index < len(lines):
        line = _DIRECTIVE.sub("", lines[index])
        if "%%{" in line:  # a directive that ends on a later line: those lines become one
            while index + 1 < len(lines) and "}%%" not in lines[index]:
                index += 1
            line = lines[index].split("}%%", 1)[-1]
        if not _COMMENT.match(line) and (kept or line.strip()):
            kept.append((index + 1, bool(line.strip())))
        index += 1
    return kept


def _source_line(kept, reported):
    """The source line of Mermaid's line `reported`, counted in the text as written (a parser that
    reached the end of the text names the line after the last one: that is the last line with text)."""
    if not reported or reported < 1 or not kept:
        return None
    with_text = [number for number, has_text in kept if has_text]
    return min(kept[min(reported, len(kept)) - 1][0], with_text[-1] if with_text else kept[-1][0])


def _syntax_error(source, message, reported):
    """A DiagramSyntaxError from Mermaid's message: one line, without the parser's excerpt and caret,
    every line number as the author counts them. Mermaid's parsers name the line in the error's
    position (`reported`), and in its text (Jison's counts one too many there)."""
    kept = _kept_lines(source)
    text = " ".join(part.strip() for part in message.splitlines()
                    if part.strip() and not _JISON_CONTEXT.match(part.strip()))
    if reported:
        line = _source_line(kept, reported)
        text = _LINE_WORD.sub(f"line {line}", text, count=1)
    else:
        found = _LINE_WORD.search(text)
        line = _source_line(kept, int(found.group(1))) if found else None
        text = _LINE_WORD.sub(lambda match: f"line {_source_line(kept, int(match.group(1)))}", text)
    return DiagramSyntaxError(clean_message(text) or "invalid Mermaid source", line)


# -- one engine per process ----------------------------------------------------------------------------

_shared = None
_shared_lock = threading.Lock()


def shared_engine(config):
    """This process's engine, made on first use from `config` (later configs are not read again). A
    worker forked from a process that had one gets its own: pipes and threads do not cross a fork."""
    global _shared
    with _shared_lock:
        if _shared is None or _shared[0] != os.getpid():
            _shared = (os.getpid(), MermaidEngine(config))
        return _shared[1]


def stop_shared_engine():
    with _shared_lock:
        shared = _shared
    if shared is not None and shared[0] == os.getpid():
        shared[1].stop()


atexit.register(stop_shared_engine)


# -- the local backend's Mermaid engine (services/render/engines.py) -----------------------------------

def _installed(config):
    """No command per render (the engine is a warm server); raises EngineMissing with what this host lacks
    (asked of a throwaway engine: nothing starts, and the shared one keeps the app's settings)."""
    lacks = MermaidEngine(config).missing()
    if lacks:
        raise EngineMissing("missing " + ", ".join(lacks))
    return []


MERMAID = register(Engine(
    "mermaid", ("mermaid",), _installed, lambda config: MermaidEngine(config).version(),
    native_limits, lambda _code, _stderr: False,
    # The theme comes in the source, as an init directive (core/content/images.py), like a user's own.
    render=lambda config, source, seconds: shared_engine(config).render_svg(source, timeout=seconds)))
