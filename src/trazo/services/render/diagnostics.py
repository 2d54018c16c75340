"""Turn a renderer's error output into a short message and the line it points at."""
import re

MAX_MESSAGE_CHARS = 500
MAX_TARGET_CHARS = 300  # of a file or URL named in an error message
SCAN_CHARS = 64 * 1024  # what a renderer says about an error comes first; the rest is not read
_STATUS_PREFIX = re.compile(r"^\s*Error(?: \d{3})?:\s*")
_STACK_LINE = re.compile(r"^\s*(at |Traceback |Caused by:|\.\.\. \d+ more)")
_STDIN_NAME = re.compile(r"<stdin>:?\s*")
_LINE_NUMBER = re.compile(r"\bline[:\s]+(\d+)", re.IGNORECASE)  # Graphviz, PlantUML via Kroki, DBML
_POSITION = re.compile(r"(?:^|[\s:])(\d+):\d+:")                 # D2 and most compilers: "12:5: ..."
_NUMBER = re.compile(r"\d+")


def shortened(target):
    """A file or URL a source names, as an error message quotes it: trimmed, at most MAX_TARGET_CHARS."""
    target = target.strip()
    return target if len(target) <= MAX_TARGET_CHARS else target[:MAX_TARGET_CHARS - 1] + "…"


def clean_message(text):
    """The useful part of an error text: no status prefix, no stack trace, one line, bounded."""
    kept = []
    for line in _STATUS_PREFIX.sub("", (text or "")[:SCAN_CHARS]).splitlines():
        if _STACK_LINE.match(line):
            break
        if line.strip():
            kept.append(_STDIN_NAME.sub("", line.strip()))
    message = " ".join(kept)
    if len(message) > MAX_MESSAGE_CHARS:
        message = message[:MAX_MESSAGE_CHARS - 1].rstrip() + "…"
    return message


def _number_after_error(text):
    """PlantUML -pipe: a line "ERROR", then (after blank lines) a line holding only the line number."""
    after_error = False
    for line in text.split("\n"):
        line = line.strip()
        if after_error and line:
            if _NUMBER.fullmatch(line):
                return line
            after_error = False
        if line == "ERROR":
            after_error = True
    return None


def _candidates(text):
    """The line number each renderer's convention points at, in order (None where it finds none)."""
    found = _LINE_NUMBER.search(text)
    yield found.group(1) if found else None
    yield _number_after_error(text)
    found = _POSITION.search(text)
    yield found.group(1) if found else None


def find_line(text):
    """The 1-based source line named by an error text, or None."""
    for number in _candidates((text or "")[:SCAN_CHARS]):
        if number and int(number) > 0:
            return int(number)
    return None
