"""Render on this host with the installed engines (services/render/engines.py): Graphviz, PlantUML and
C4-PlantUML, D2, DBML, each when installed. Engines run without file or network access to the host's
data, and under CPU, memory, time and output limits so that one source cannot take the host's resources.
Languages whose engines could read files or reach the network are refused here by name: only Kroki
draws them."""
import signal
import tempfile
import time

from .base import MAX_SVG_BYTES, NO_ENGINE, READS_FILES_OR_NETWORK
from .engines import EngineMissing, registered
from .errors import DiagramSyntaxError, RendererFailed, RendererLimitExceeded
from .fair import FairSlots
from .process import run_capped

# Each render is a process; at most RENDER_SLOTS run at once in a worker so a burst cannot exhaust the
# host, and one client (an address, a user) holds at most RENDER_SLOTS_PER_CLIENT of them: however costly
# its sources, another client's render finds a slot (services/render/fair.py).
SLOTS = FairSlots(6, 2)


# A tool killed at its CPU limit (SIGKILL once past the hard one), or one that reports a failed allocation.
_LIMIT_SIGNALS = (-signal.SIGXCPU, -signal.SIGKILL)
_OUT_OF_MEMORY = ("out of memory", "memory allocation failure", "outofmemoryerror", "cannot allocate memory",
                  "insufficient memory", "bad_alloc")

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
        self.config = config
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.tools = {}
        for engine in registered():
            try:
                command = engine.command(config)
            except EngineMissing:
                continue
            for kind in engine.types:
                self.tools.setdefault(kind, (engine, command, engine.limits(config)))

    def supported_types(self):
        return frozenset(self.tools)

    def refused_types(self):
        return {kind: reason for kind, reason in REFUSED.items() if kind not in self.tools}

    def engine_version(self, diagram_type):
        """The version of the engine drawing `diagram_type` (read once per process), or None (also for a
        type no engine here draws)."""
        tool = self.tools.get(diagram_type)
        return tool[0].version(self.config) if tool else None

    def drawer(self, diagram_type):
        """Who draws `diagram_type`, for the render cache: another engine version draws differently."""
        tool = self.tools.get(diagram_type)
        return f"local:{tool[0].name}:{self.engine_version(diagram_type) or ''}" if tool else "local"

    def engines(self):
        """[{type, engine, version, backend}] of every type this backend draws."""
        return [{"type": kind, "engine": engine.name, "version": engine.version(self.config), "backend": self.name}
                for kind, (engine, _command, _limits) in sorted(self.tools.items())]

    def render_svg(self, diagram_type, source):
        engine, command, limits = self.tools[diagram_type]
        engine.check_source(source)
        if engine.render is not None:
            return engine.render(self.config, engine.prepare(source), self.timeout)
        data = engine.prepare(source).encode("utf-8")
        ends = time.monotonic() + self.timeout  # waiting for a slot and running share RENDER_TIMEOUT
        SLOTS.resize(self.config.get("RENDER_SLOTS") or 6, self.config.get("RENDER_SLOTS_PER_CLIENT") or 2)
        with SLOTS.hold(self.timeout), tempfile.TemporaryDirectory(prefix="trazo-render-") as workdir:
            result = run_capped(command, data, ends - time.monotonic(), self.max_bytes,
                                engine.environment(workdir), workdir, limits)
        if result.returncode != 0:
            raise _failure(engine, result, source)
        svg = result.stdout.decode("utf-8", "replace")
        if "<svg" not in svg:
            raise RendererFailed("the tool printed no SVG")
        if engine.finish is not None:  # after the slot is given back: D2's icons are fetched here
            svg = engine.finish(self.config, svg, ends, self.max_bytes)
        return svg


def _failure(engine, result, source):
    if result.returncode in _LIMIT_SIGNALS or any(sign in result.stderr.lower() for sign in _OUT_OF_MEMORY):
        return RendererLimitExceeded()
    errors = "\n".join(line for line in result.stderr.splitlines() if not line.startswith("Warning:"))
    if engine.rejects_source(result.returncode, result.stderr):
        message, line = engine.describe(errors, source)
        if message:
            return DiagramSyntaxError(message, line)
    return RendererFailed(f"the tool exited with status {result.returncode}")
