"""Turn a renderer's error output into a short message and the line it points at."""
import re

MAX_MESSAGE_CHARS = 500
_STATUS_PREFIX = re.compile(r"^\s*Error(?: \d{3})?:\s*")
_STACK_LINE = re.compile(r"^\s*(at |Traceback |Caused by:|\.\.\. \d+ more)")
_STDIN_NAME = re.compile(r"<stdin>:?\s*")
_LINE_PATTERNS = (
    re.compile(r"\bline[:\s]+(\d+)", re.IGNORECASE),          # Graphviz, PlantUML via Kroki, DBML
    re.compile(r"^\s*ERROR\s*\n\s*(\d+)\s*$", re.MULTILINE),  # PlantUML -pipe: "ERROR", then the line
    re.compile(r"(?:^|[\s:])(\d+):\d+:"),                      # D2 and most compilers: "12:5: ..."
)


def clean_message(text):
    """The useful part of an error text: no status prefix, no stack trace, one line, bounded."""
    kept = []
    for line in _STATUS_PREFIX.sub("", text or "").splitlines():
        if _STACK_LINE.match(line):
            break
        if line.strip():
            kept.append(_STDIN_NAME.sub("", line.strip()))
    message = " ".join(kept)
    if len(message) > MAX_MESSAGE_CHARS:
        message = message[:MAX_MESSAGE_CHARS - 1].rstrip() + "…"
    return message


def find_line(text):
    """The 1-based source line named by an error text, or None."""
    for pattern in _LINE_PATTERNS:
        match = pattern.search(text or "")
        if match and int(match.group(1)) > 0:
            return int(match.group(1))
    return None
