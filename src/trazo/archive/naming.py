"""Safe, unique names for the files and directories of an archive."""
import re

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
