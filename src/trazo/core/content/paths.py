"""Paths of the files API (docs/files-api.md): `docs/diagrams/api.mmd` is the diagram titled `api`, of the
type its extension names, in the folder named `docs/diagrams` (the whole directory part: folders are
flat, and a name may hold slashes). Paths are compared like folder names, without regard to case.

Only the extensions the export writes are accepted, so that every diagram has one path and every path
one place: listing a project and writing its files back changes nothing. The files API (api/files) parses
paths with these rules; search (core/search) names each hit by its path.
"""
import unicodedata
from dataclasses import dataclass

from flask_babel import gettext as _

from .diagram_types import PLAIN_TEXT_EXTENSION, SOURCE_EXTENSIONS
from .limits import NAME_MAX

PATH_MAX = 1024
EXTENSIONS = tuple(sorted({*SOURCE_EXTENSIONS.values(), PLAIN_TEXT_EXTENSION}, key=len, reverse=True))


class BadPath(ValueError):
    """A path or a content the files API refuses; the message is localized, `kind` the 422 type."""

    def __init__(self, message, kind="value_error.path"):
        super().__init__(message)
        self.message, self.kind = message, kind


@dataclass(frozen=True)
class Target:
    """A parsed path: where the diagram lives and what it is called."""

    path: str  # NFC-normalized
    folder: str | None  # the folder's name, None at the project's root
    title: str
    extension: str

    @property
    def key(self):
        return path_key(self.folder, self.title, self.extension)


def path_key(folder, title, extension):
    """What two paths that address the same diagram share (folders and titles match without regard to
    case or Unicode normalization)."""
    return (_fold(folder) if folder is not None else None, _fold(title), extension)


def _fold(text):
    return unicodedata.normalize("NFC", text).lower()


def extension_of(diagram_type):
    return SOURCE_EXTENSIONS.get(diagram_type, PLAIN_TEXT_EXTENSION)


def _bad_character(text):
    return any(char == "\\" or unicodedata.category(char) == "Cc" for char in text)


def _format_character(text):
    """The first invisible format character (Unicode category Cf: zero-width, bidi overrides, a BOM) in
    `text`, or None: such a path shows as another one in a review or a file manager."""
    return next((char for char in text if unicodedata.category(char) == "Cf"), None)


def _git_segment(segment):
    """Whether a checkout would take `segment` for the repository's own directory: `.git` in any case, with
    trailing dots (Windows drops them), or its NTFS short name."""
    return segment.lower().rstrip(".") in (".git", "git~1")


def _drive_segment(segment):
    """Whether `segment` names a Windows drive (`c:`, `C:flow.mmd`)."""
    return len(segment) >= 2 and segment[1] == ":" and segment[0].isascii() and segment[0].isalpha()


def parse_path(raw):
    """The Target of a path a client sent, or BadPath saying what is wrong with it."""
    if not isinstance(raw, str) or not raw:
        raise BadPath(_("The path must not be empty."))
    if len(raw) > PATH_MAX:  # before normalizing: the normalization of a huge text is not done at all
        raise BadPath(_("The path is longer than %(limit)s characters.", limit=PATH_MAX))
    path = unicodedata.normalize("NFC", raw)
    if len(path) > PATH_MAX:
        raise BadPath(_("The path is longer than %(limit)s characters.", limit=PATH_MAX))
    if _bad_character(path):
        raise BadPath(_("The path must not contain control characters or backslashes."))
    if (hidden := _format_character(path)) is not None:
        raise BadPath(_("The path must not contain invisible formatting characters (%(character)s).",
                        character=f"U+{ord(hidden):04X}"))
    if path.startswith("/"):
        raise BadPath(_("The path must be relative: it must not start with a slash."))
    segments = path.split("/")
    if any(segment in ("", ".", "..") for segment in segments):
        raise BadPath(_("The path must not contain empty segments, \".\" or \"..\"."))
    if any(segment != segment.strip() for segment in segments):
        raise BadPath(_("A path segment must not start or end with a space."))
    if (reserved := next((segment for segment in segments if _git_segment(segment)), None)) is not None:
        raise BadPath(_("The path must not have a \"%(segment)s\" segment: git reserves it.", segment=reserved))
    if (drive := next((segment for segment in segments if _drive_segment(segment)), None)) is not None:
        raise BadPath(_("A path segment must not look like a drive (\"%(segment)s\").", segment=drive))
    name = segments[-1]
    extension = next((ext for ext in EXTENSIONS if name.endswith(ext)), None)
    if extension is None:
        raise BadPath(_("Unknown file extension. Supported extensions: %(extensions)s.",
                        extensions=", ".join(sorted(EXTENSIONS))), "value_error.extension")
    title = name[:-len(extension)]
    if not title.strip() or title != title.strip():
        raise BadPath(_("The file name before the extension must not be empty or end with a space."))
    folder = "/".join(segments[:-1]) or None
    if len(title) > NAME_MAX or (folder is not None and len(folder) > NAME_MAX):
        raise BadPath(_("A folder name (the directory part) and a file name (without its extension) hold at "
                        "most %(limit)s characters.", limit=NAME_MAX))
    return Target(path, folder, title, extension)


def path_of(folder, title, diagram_type):
    """The path of a diagram, or None when its folder name or title cannot be written as one (a title
    with a slash, a control character, surrounding spaces...): it is then listed as unaddressable."""
    extension = extension_of(diagram_type)
    path = f"{folder}/{title}{extension}" if folder is not None else f"{title}{extension}"
    try:
        target = parse_path(path)
    except BadPath:
        return None
    expected = path_key(folder, title, extension)
    return target.path if target.key == expected else None
