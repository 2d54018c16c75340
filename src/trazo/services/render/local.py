"""Render on this host with installed tools: Graphviz always when `dot` exists, PlantUML when Java
and a PlantUML jar are present. Tools run without file or network access to the host's data."""
import os
import shutil
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass

from .base import MAX_SVG_BYTES
from .diagnostics import clean_message, find_line
from .errors import DiagramSyntaxError, RendererBusy, RendererFailed
from .process import run_capped

# Each render is a process; bound how many run at once so a burst cannot exhaust the host.
_SLOTS = threading.BoundedSemaphore(4)


@dataclass(frozen=True)
class Tool:
    command: Callable  # config -> argv, or None when the tool is not installed
    rejects_source: Callable  # (returncode, stderr) -> True when the failure is the source's fault


def _graphviz_command(_config):
    dot = shutil.which("dot")
    return [dot, "-Tsvg"] if dot else None


def _plantuml_command(config):
    java, jar = shutil.which("java"), config.get("PLANTUML_JAR") or ""
    if not java or not jar or not os.path.isfile(jar):
        return None
    return [java, "-Djava.awt.headless=true", "-DPLANTUML_SECURITY_PROFILE=SANDBOX", "-jar", jar,
            "-tsvg", "-pipe", "-charset", "UTF-8", "-nometadata"]


# dot reports problems with the input as "Error: ..." and exit status 1; PlantUML exits with 200 when
# a diagram has errors. Anything else (a broken install, a crash) is the renderer's failure.
GRAPHVIZ = Tool(_graphviz_command, lambda code, stderr: code == 1 and "Error:" in stderr)
PLANTUML = Tool(_plantuml_command, lambda code, _stderr: code == 200)
TOOLS = {"graphviz": GRAPHVIZ, "plantuml": PLANTUML, "c4plantuml": PLANTUML}


class LocalRenderer:
    name = "local"

    def __init__(self, config, timeout, max_bytes=MAX_SVG_BYTES):
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.tools = {kind: (tool, command) for kind, tool in TOOLS.items() if (command := tool.command(config))}

    def supported_types(self):
        return frozenset(self.tools)

    def render_svg(self, diagram_type, source):
        tool, command = self.tools[diagram_type]
        if not _SLOTS.acquire(timeout=self.timeout):
            raise RendererBusy()
        try:
            with tempfile.TemporaryDirectory(prefix="trazo-render-") as workdir:
                result = run_capped(command, source.encode("utf-8"), self.timeout, self.max_bytes,
                                    _tool_environment(workdir), workdir)
        finally:
            _SLOTS.release()
        if result.returncode != 0:
            raise _failure(tool, result)
        svg = result.stdout.decode("utf-8", "replace")
        if "<svg" not in svg:
            raise RendererFailed("the tool printed no SVG")
        return svg


def _tool_environment(workdir):
    """A bare environment; SERVER_NAME puts Graphviz in its web-server mode, where it may only read
    images from GV_FILE_PATH (an empty directory), so a source cannot pull in local files."""
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": workdir, "LANG": "C.UTF-8",
            "SERVER_NAME": "trazo-render", "GV_FILE_PATH": workdir + os.sep}


def _failure(tool, result):
    errors = "\n".join(line for line in result.stderr.splitlines() if not line.startswith("Warning:"))
    message = clean_message(errors)
    if message and tool.rejects_source(result.returncode, result.stderr):
        return DiagramSyntaxError(message, find_line(errors))
    return RendererFailed(f"the tool exited with status {result.returncode}")
