"""Safe, unique file and folder names for archives, and download file names."""
import re
import unicodedata
from urllib.parse import quote

FORBIDDEN = re.compile(r'[<>:"/\\|?*\x00-\x1f\x7f]')
RESERVED = {"CON", "PRN", "AUX", "NUL", *(f"COM{n}" for n in range(1, 10)), *(f"LPT{n}" for n in range(1, 10))}
MAX_NAME = 100


def sanitize(name, fallback):
    """A name that is safe as one path segment on every common file system."""
    text = FORBIDDEN.sub("", name or "")
    text = re.sub(r"\.{2,}", ".", text)
    text = re.sub(r"\s+", " ", text).strip(" .")[:MAX_NAME].strip(" .")
    if not text:
        return fallback
    if text.split(".")[0].upper() in RESERVED:
        text += "_"
    return text


def unique(name, taken, max_length=MAX_NAME):
    """`name`, or `name (2)`, `name (3)`… not in `taken` (compared case-insensitively); records the choice."""
    candidate, number = name[:max_length], 1
    while candidate.lower() in taken:
        number += 1
        suffix = f" ({number})"
        candidate = name[:max_length - len(suffix)].rstrip() + suffix
    taken.add(candidate.lower())
    return candidate


def content_disposition(filename):
    """An attachment header with an ASCII fallback and the UTF-8 name (RFC 6266 / RFC 5987)."""
    ascii_name = unicodedata.normalize("NFKD", filename).encode("ascii", "ignore").decode()
    ascii_name = re.sub(r'["\\]', "", ascii_name).strip() or "export"
    if ascii_name.startswith("."):
        ascii_name = "export" + ascii_name
    return f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(filename, safe='')}"
