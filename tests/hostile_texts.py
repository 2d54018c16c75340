"""Texts built to make a parser backtrack, at a chosen size: blank lines, runs of spaces after the start
of a marker, fences or brackets that never close, quotes escaped forever. Shared by the AI and chat tests."""
import json

AI_MAX_RESPONSE_BYTES = 4 * 1024 * 1024  # the default: the largest reply a provider call accepts

SHAPES = {
    "newlines": ("a", "\n"),
    "blank lines": ("a", " \n"),
    "spaces after a marker": ("<<", " "),
    "spaces after a slash": ("<< /", " "),
    "spaces after END": ("<<END ", " "),
    "marker fragments": ("", "<< \n"),
    "start markers": ("", "<<<DIAGRAM>>>```\n"),
    "unclosed fences": ("", "```"),
    "a fence header of spaces": ("```", " "),
    "open brackets": ("", "[ref"),
    "escaped quotes": ("", "'\\"),
    "a table of spaces": ("Table a", " "),
    "think tags": ("", "<think></think>"),
    "sections": ("", "<<<"),
    "an ERROR line": ("ERROR", "\n"),
    "blank lines after a keyword": ("Table", "\n"),
}


def hostile(shape, size):
    """`size` characters of the shape, ending in a character that makes every pattern fail."""
    head, unit = SHAPES[shape]
    return head + unit * ((size - len(head) - 1) // len(unit)) + "!"


def largest_reply(shape):
    """The shape at the largest size a provider's JSON answer may carry (escapes counted)."""
    head, unit = SHAPES[shape]
    escaped = len(json.dumps(unit)) - 2
    return hostile(shape, (AI_MAX_RESPONSE_BYTES - 64 * 1024) // escaped)
