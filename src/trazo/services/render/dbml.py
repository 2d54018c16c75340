"""DBML as a local engine: engines/dbml/render.js run by Node (docs/rendering.md, "DBML").

render.js draws with dbml-renderer (the converter Kroki uses: DBML to DOT, laid out by Graphviz compiled
to WebAssembly). A source dbml-renderer's own parser rejects (today's syntax: `records`, `TablePartial`,
`checks`, long-form `Ref name { ... }`, ...) is read again by the official DBML compiler (@dbml/parse, in
engines/dbml/convert.js) and drawn from what it read: tables, enums, groups and references; sample data
and checks are left out. A source both reject answers the compiler's first error with its line.

Both npm packages are pinned by engines/dbml/package-lock.json and installed by `make install`. Node runs
under its permission model, reading only engines/dbml and writing nothing; the compiler gets the source
as a one-file project held in memory, so a `use ... from '...'` line reads no file.
"""
import functools
import logging
import os
import re
import subprocess
from pathlib import Path

from .engines import ENGINES_DIR, PROBE_SECONDS, Engine, EngineMissing, executable, heap_mb, register, reserving_limits

log = logging.getLogger(__name__)

DBML_DIR = ENGINES_DIR / "dbml"
RENDERER_PACKAGE = DBML_DIR / "node_modules" / "@softwaretechnik" / "dbml-renderer" / "package.json"
PARSER_PACKAGE = DBML_DIR / "node_modules" / "@dbml" / "parse" / "package.json"


def _command(config):
    node = executable("node")
    if not node:
        raise EngineMissing("node is not on PATH (Debian package nodejs)")
    for package in (RENDERER_PACKAGE, PARSER_PACKAGE):
        if not package.is_file():
            raise EngineMissing(f"{package.parent.relative_to(DBML_DIR / 'node_modules')} is not installed in "
                                f"{DBML_DIR} (make install runs npm ci there)")
    return [node, f"--max-old-space-size={heap_mb(config)}", "--no-warnings", *_node_sandbox(node),
            str(DBML_DIR / "render.js")]


@functools.cache
def _node_sandbox(node):
    """Node's permission model, reading only the engine's folder and writing nothing: the flags this Node
    accepts (they changed between releases), tried once per process on a tiny schema; none on a Node
    without it."""
    for flags in (["--permission", f"--allow-fs-read={DBML_DIR}"],
                  ["--experimental-permission", f"--allow-fs-read={DBML_DIR}/*"]):
        try:
            done = subprocess.run([node, "--no-warnings", *flags, str(DBML_DIR / "render.js")],
                                  input=b"Table t {\n  id int\n}\n", capture_output=True, timeout=PROBE_SECONDS,
                                  env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")}, check=False)
        except (OSError, subprocess.SubprocessError):
            continue
        if done.returncode == 0 and b"<svg" in done.stdout:
            return tuple(flags)
    log.warning("render engine dbml-renderer: this Node has no permission model; it runs without it")
    return ()


def _version(_config):
    """dbml-renderer's version, the one listed and keyed on by the render cache (the listing shows one
    version number per engine); @dbml/parse is pinned beside it in the same lockfile."""
    return _package_version(str(RENDERER_PACKAGE))


@functools.cache
def _package_version(path):
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError:
        return None
    found = re.search(r'"version"\s*:\s*"([^"]+)"', text)
    return found.group(1) if found else None


DBML = register(Engine(
    "dbml-renderer", ("dbml",), _command, _version, reserving_limits,
    lambda code, _stderr: code == 1))  # render.js exits 1 when the source is rejected
