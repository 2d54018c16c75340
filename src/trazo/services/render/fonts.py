"""Which fonts resvg draws a PNG's text with (docs/rendering.md, "Fonts").

The engines' SVGs name fonts this host does not have, and resvg reads no fontconfig alias: Graphviz asks
for "Times,serif", DBML (Graphviz in WebAssembly) for "Helvetica,sans-Serif", PlantUML for "Verdana" with
no fallback, Mermaid for "trebuchet ms"/"arial"/"ArialMT", D2 for the fonts it embeds as CSS `@font-face`,
which resvg skips. Left alone, resvg finds none of them (its generic families default to Times New Roman,
Arial and Courier New) and draws the PNG without any text. So each rasterization gets:

- the generic families pointed at installed fonts: serif -> Liberation Serif, sans-serif (and cursive,
  fantasy) -> Liberation Sans, monospace -> Liberation Mono, and Liberation Serif for text naming no
  font (DejaVu when Liberation is missing);
- a folder, built once per process, of copies of those fonts renamed to the names the engines ask for
  (ALIASES: Times and Times New Roman are Liberation Serif, Helvetica, Arial and ArialMT Liberation Sans,
  Verdana and Trebuchet MS DejaVu Sans, Courier and Courier New Liberation Mono), the same metric
  matches fontconfig makes for the engines that measure their text with it (Graphviz, PlantUML's Java,
  Chromium); each in its regular, bold, italic and bold italic faces, so weights and styles resolve;
- the fonts the SVG embeds as `@font-face { font-family: X; src: url(data:...) }` (TrueType, OpenType,
  WOFF 1.0), renamed X, written beside the SVG in the rasterization's empty working directory: D2's
  own fonts draw D2's text, as in a browser.

The SVG itself is never changed. Nothing here reads the network; fonts come from FONT_DIRS and the SVG.
"""
import atexit
import base64
import binascii
import logging
import os
import re
import shutil
import tempfile
import threading

from .font_files import MAX_FONT_BYTES, BadFont, renamed

log = logging.getLogger(__name__)

FONT_DIRS = ("/usr/share/fonts", "/usr/local/share/fonts")
STYLES = ("Regular", "Bold", "Italic", "Bold Italic")
# An installed family and its four faces' files (Debian's fonts-liberation, fonts-dejavu-core).
LIBERATION_SERIF = ("Liberation Serif", ("LiberationSerif-Regular.ttf", "LiberationSerif-Bold.ttf",
                                         "LiberationSerif-Italic.ttf", "LiberationSerif-BoldItalic.ttf"))
LIBERATION_SANS = ("Liberation Sans", ("LiberationSans-Regular.ttf", "LiberationSans-Bold.ttf",
                                       "LiberationSans-Italic.ttf", "LiberationSans-BoldItalic.ttf"))
LIBERATION_MONO = ("Liberation Mono", ("LiberationMono-Regular.ttf", "LiberationMono-Bold.ttf",
                                       "LiberationMono-Italic.ttf", "LiberationMono-BoldItalic.ttf"))
DEJAVU_SERIF = ("DejaVu Serif", ("DejaVuSerif.ttf", "DejaVuSerif-Bold.ttf", "DejaVuSerif-Italic.ttf",
                                 "DejaVuSerif-BoldItalic.ttf"))
DEJAVU_SANS = ("DejaVu Sans", ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSans-Oblique.ttf",
                               "DejaVuSans-BoldOblique.ttf"))
DEJAVU_MONO = ("DejaVu Sans Mono", ("DejaVuSansMono.ttf", "DejaVuSansMono-Bold.ttf", "DejaVuSansMono-Oblique.ttf",
                                    "DejaVuSansMono-BoldOblique.ttf"))
# The first of each list that is installed is used.
SERIF = (LIBERATION_SERIF, DEJAVU_SERIF)
SANS = (LIBERATION_SANS, DEJAVU_SANS)
WIDE_SANS = (DEJAVU_SANS, LIBERATION_SANS)
MONO = (LIBERATION_MONO, DEJAVU_MONO)
# The font names the engines' SVGs use, and what draws each (fontconfig's choice on Debian 12: `fc-match`).
# resvg compares names as written, so the lower-case spellings some engines use are listed too.
ALIASES = (
    (SERIF, ("Times", "Times New Roman", "times", "times new roman")),
    (SANS, ("Helvetica", "Arial", "ArialMT", "helvetica", "arial")),
    (WIDE_SANS, ("Verdana", "Trebuchet MS", "verdana", "trebuchet ms")),
    (MONO, ("Courier", "Courier New", "courier", "courier new")),
)
MAX_EMBEDDED_FONTS = 16
MAX_EMBEDDED_BYTES = 16 * 1024 * 1024

_FONT_FACE = re.compile(r"@font-face\s*\{([^{}]*)\}", re.IGNORECASE)
_FAMILY = re.compile(r"font-family\s*:\s*(?:\"([^\"]*)\"|'([^']*)'|([^;]*))", re.IGNORECASE)
_DATA_FONT = re.compile(r"url\(\s*[\"']?data:([\w.+-]+/[\w.+-]+)?[^,\"')]*;base64,([A-Za-z0-9+/=\s]+)[\"']?\s*\)",
                        re.IGNORECASE)

# D2's families: "d2-<hash>-font-regular", "-font-bold", "-font-italic", "-font-semibold", "-font-mono", ...
_D2_FAMILY = re.compile(r"\bd2-\d+-font-[a-z]+(?:-[a-z]+)*")

_lock = threading.Lock()
_built = {}


def _installed():
    """{file name: path} of the font files under FONT_DIRS."""
    found = {}
    for root in FONT_DIRS:
        for folder, _dirs, files in os.walk(root):
            for name in files:
                found.setdefault(name, os.path.join(folder, name))
    return found


def _pick(candidates, installed):
    """(family, [path of each style or None]) of the first installed candidate, or None."""
    for family, files in candidates:
        if files[0] in installed:
            return family, [installed.get(name) for name in files]
    return None


def _setup():
    """{"generic": {role: family}, "folder": the aliases' folder or None, "installed": {file: path}},
    built once per process."""
    with _lock:
        if not _built:
            installed = _installed()
            generic = {role: (_pick(candidates, installed) or (None,))[0]
                       for role, candidates in (("serif", SERIF), ("sans", SANS), ("mono", MONO))}
            _built.update(generic=generic, folder=_alias_folder(installed), installed=installed)
            if not all(generic.values()):
                log.warning("PNG fonts: no Liberation or DejaVu fonts under %s (Debian packages fonts-liberation, "
                            "fonts-dejavu-core): some PNG text will be missing", ", ".join(FONT_DIRS))
        return _built


def _alias_folder(installed):
    folder = tempfile.mkdtemp(prefix="trazo-fonts-")
    atexit.register(shutil.rmtree, folder, True)
    written = 0
    for candidates, names in ALIASES:
        picked = _pick(candidates, installed)
        if picked is None:
            continue
        for style, path in zip(STYLES, picked[1], strict=True):
            if path is None:
                continue
            try:
                with open(path, "rb") as source:
                    data = renamed(source.read(MAX_FONT_BYTES + 1), names, style)
            except (OSError, BadFont) as exc:
                log.warning("PNG fonts: cannot alias %s: %s", path, exc)
                continue
            target = os.path.join(folder, f"{names[0].replace(' ', '')}-{style.replace(' ', '')}.ttf")
            with open(target, "wb") as out:
                out.write(data)
            written += 1
    return folder if written else None


def resvg_options():
    """resvg's font flags: the generic families and the aliases' folder."""
    setup = _setup()
    generic, options = setup["generic"], []
    for flag, family in (("--serif-family", generic["serif"]), ("--sans-serif-family", generic["sans"]),
                         ("--cursive-family", generic["sans"]), ("--fantasy-family", generic["sans"]),
                         ("--monospace-family", generic["mono"]), ("--font-family", generic["serif"])):
        if family:
            options += [flag, family]
    if setup["folder"]:
        options += ["--use-fonts-dir", setup["folder"]]
    return options


def embedded_options(svg, workdir):
    """resvg's flags for the fonts `svg` embeds as `@font-face` data, each written to `workdir` renamed to
    its CSS family; a font that cannot be read is left out. D2's own families (`d2-<n>-font-bold`, ...)
    that arrive without their font get a stand-in: the sans-serif (or monospace) face of that style."""
    options, written = [], set()
    embedded = list(_embedded(svg))
    for name, data in [*embedded, *_stand_ins(svg, {name for name, _data in embedded})]:
        if name in written or len(written) >= MAX_EMBEDDED_FONTS:
            continue
        path = os.path.join(workdir, f"embedded-{len(written)}.ttf")
        with open(path, "wb") as out:
            out.write(data)
        written.add(name)
        options += ["--use-font-file", path]
    return options


def _embedded(svg):
    """(family, SFNT bytes renamed to it) of each `@font-face` data font `svg` holds, within the caps."""
    total = 0
    for rule in _FONT_FACE.finditer(svg):
        family, source = _FAMILY.search(rule.group(1)), _DATA_FONT.search(rule.group(1))
        if family is None or source is None:
            continue
        name = next(group for group in family.groups() if group is not None).strip().strip("\"'")
        encoded = re.sub(r"\s+", "", source.group(2))
        if not name or len(encoded) * 3 // 4 > MAX_FONT_BYTES or total + len(encoded) * 3 // 4 > MAX_EMBEDDED_BYTES:
            continue
        try:
            data = renamed(base64.b64decode(encoded), [name])
        except (BadFont, binascii.Error, ValueError):
            continue
        total += len(data)
        yield name, data


def _stand_ins(svg, embedded):
    """(family, a renamed installed face) for each of D2's font families `svg` names but does not embed."""
    for name in sorted(set(_D2_FAMILY.findall(svg)) - embedded)[:MAX_EMBEDDED_FONTS]:
        picked = _pick(MONO if "-mono" in name else SANS, _setup()["installed"])
        style = ("Bold " if "bold" in name else "") + ("Italic" if "italic" in name else "")
        path = picked[1][STYLES.index(style.strip() or "Regular")] if picked else None
        if path is None:
            continue
        try:
            with open(path, "rb") as source:
                yield name, renamed(source.read(MAX_FONT_BYTES + 1), [name], style.strip() or "Regular")
        except (OSError, BadFont):
            continue
