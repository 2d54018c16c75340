"""Render on this host with installed tools: Graphviz always when `dot` exists, PlantUML when Java
and a PlantUML jar are present. Tools run without file or network access to the host's data, and
under CPU and memory limits so that one source cannot take the host's resources. Languages whose
engines could read files or reach the network are refused here by name: only Kroki draws them."""
import functools
import os
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from .base import MAX_SVG_BYTES, NO_ENGINE, READS_FILES_OR_NETWORK
from .diagnostics import clean_message, find_line
from .errors import DiagramSyntaxError, RendererBusy, RendererFailed, RendererLimitExceeded
from .process import Limits, run_capped

# Each render is a process; bound how many run at once so a burst cannot exhaust the host. Small
# sources have two slots of their own: a flood of costly renders (each held to its CPU limit) cannot
# make an ordinary diagram wait for all of them.
_SLOTS = threading.BoundedSemaphore(4)
_SMALL_SLOTS = threading.BoundedSemaphore(2)
SMALL_SOURCE_BYTES = 4096


# A tool killed at its CPU limit (SIGKILL once past the hard one), or one that reports a failed allocation.
_LIMIT_SIGNALS = (-signal.SIGXCPU, -signal.SIGKILL)
_OUT_OF_MEMORY = ("out of memory", "memory allocation failure", "outofmemoryerror", "cannot allocate memory")


@dataclass(frozen=True)
class Tool:
    command: Callable  # config -> argv, or None when the tool is not installed
    rejects_source: Callable  # (returncode, stderr) -> True when the failure is the source's fault
    limits: Callable  # config -> Limits


def _native_limits(config):
    return Limits(cpu_seconds=config["RENDER_CPU_SECONDS"], address_space=config["RENDER_MEMORY_MB"] << 20)


def _java_limits(config):
    # The JVM reserves gigabytes of address space it never touches, so its memory is bounded by the data
    # limit (what it commits) and by -Xmx below it.
    return Limits(cpu_seconds=config["RENDER_CPU_SECONDS"], data=config["RENDER_MEMORY_MB"] << 20)


@functools.cache
def _executable(name):
    """Where `name` is on PATH, looked up once per process (a lookup stats every PATH entry, and each
    render request builds its renderer): a tool installed later needs a restart."""
    return shutil.which(name)


def _graphviz_command(_config):
    dot = _executable("dot")
    return [dot, "-Tsvg"] if dot else None


def _plantuml_command(config):
    java, jar = _executable("java"), config.get("PLANTUML_JAR") or ""
    if not java or not jar or not os.path.isfile(jar):
        return None
    heap_mb = max(64, config["RENDER_MEMORY_MB"] // 2)
    return [java, f"-Xmx{heap_mb}m", "-XX:+UseSerialGC", "-XX:-UsePerfData", "-Djava.awt.headless=true",
            "-DPLANTUML_SECURITY_PROFILE=SANDBOX", "-jar", jar, "-tsvg", "-pipe", "-charset", "UTF-8",
            "-nometadata"]


# dot reports problems with the input as "Error: ..." and exit status 1; PlantUML exits with 200 when
# a diagram has errors. Anything else (a broken install, a crash) is the renderer's failure.
GRAPHVIZ = Tool(_graphviz_command, lambda code, stderr: code == 1 and "Error:" in stderr, _native_limits)
PLANTUML = Tool(_plantuml_command, lambda code, _stderr: code == 200, _java_limits)
TOOLS = {"graphviz": GRAPHVIZ, "plantuml": PLANTUML, "c4plantuml": PLANTUML}

# Languages Kroki draws that this host never runs, and why (docs/rendering.md has the detail): their
# sources can name files, URLs or code the engine would load while drawing, which neither the process
# limits nor the empty working directory contain; symbolator has no engine packaged to run here.
REFUSED = {
    "vega": READS_FILES_OR_NETWORK, "vegalite": READS_FILES_OR_NETWORK, "excalidraw": READS_FILES_OR_NETWORK,
    "structurizr": READS_FILES_OR_NETWORK, "umlet": READS_FILES_OR_NETWORK, "wireviz": READS_FILES_OR_NETWORK,
    "symbolator": NO_ENGINE,
}


class LocalRenderer:
    name = "local"

    def __init__(self, config, timeout, max_bytes=MAX_SVG_BYTES):
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.tools = {kind: (tool, command, tool.limits(config))
                      for kind, tool in TOOLS.items() if (command := tool.command(config))}

    def supported_types(self):
        return frozenset(self.tools)

    def refused_types(self):
        return dict(REFUSED)

    def render_svg(self, diagram_type, source):
        tool, command, limits = self.tools[diagram_type]
        data = source.encode("utf-8")
        ends = time.monotonic() + self.timeout  # waiting for a slot and running share RENDER_TIMEOUT
        slots = self._take_slot(len(data))
        try:
            with tempfile.TemporaryDirectory(prefix="trazo-render-") as workdir:
                result = run_capped(command, data, ends - time.monotonic(), self.max_bytes,
                                    _tool_environment(workdir), workdir, limits)
        finally:
            slots.release()
        if result.returncode != 0:
            raise _failure(tool, result)
        svg = result.stdout.decode("utf-8", "replace")
        if "<svg" not in svg:
            raise RendererFailed("the tool printed no SVG")
        return svg

    def _take_slot(self, size):
        """The semaphore this render holds: a shared slot or, for a small source while every shared one
        is taken, a small one."""
        slots = _SLOTS
        if size <= SMALL_SOURCE_BYTES:
            if _SLOTS.acquire(blocking=False):
                return _SLOTS
            slots = _SMALL_SLOTS
        if not slots.acquire(timeout=self.timeout):
            raise RendererBusy()
        return slots


def _tool_environment(workdir):
    """A bare environment; SERVER_NAME puts Graphviz in its web-server mode, where it may only read
    images from GV_FILE_PATH (an empty directory), so a source cannot pull in local files."""
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": workdir, "LANG": "C.UTF-8",
            "SERVER_NAME": "trazo-render", "GV_FILE_PATH": workdir + os.sep}


def _failure(tool, result):
    if result.returncode in _LIMIT_SIGNALS or any(sign in result.stderr.lower() for sign in _OUT_OF_MEMORY):
        return RendererLimitExceeded()
    errors = "\n".join(line for line in result.stderr.splitlines() if not line.startswith("Warning:"))
    message = clean_message(errors)
    if message and tool.rejects_source(result.returncode, result.stderr):
        return DiagramSyntaxError(message, find_line(errors))
    return RendererFailed(f"the tool exited with status {result.returncode}")
