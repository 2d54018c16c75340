"""What a caller asks for (docs/search.md, "Query syntax"): the terms of the search text and the bounds of a
page. Every refusal is a 422 in the usual list shape, on the query parameter at fault.

    payment flow          two terms: both must match (each word anywhere)
    "retry payment"       a phrase: its words one after the other
    pay*  "order serv"*   a prefix: the term's last word starts with it
    OrderService  order_service.create   a word with punctuation or camelCase is a phrase of its parts

The text is read in one pass (no pattern at all): double quotes open and close a phrase (an unclosed one runs
to the end), white space separates words, trailing asterisks make a prefix. A term without a letter or digit
is dropped (`->`, `*`, `--`); control and format characters count as white space.
"""
import unicodedata
from dataclasses import dataclass

from flask_babel import gettext as _

from ...errors import ValidationFailed
from ..content.diagram_types import DIAGRAM_TYPES
from .tokens import has_letter_or_digit

QUERY_MAX = 200  # characters
LIMIT_MIN, LIMIT_MAX, LIMIT_DEFAULT = 1, 50, 20
QUOTE, STAR = '"', "*"


@dataclass(frozen=True)
class Term:
    """One term of a search: its text as written (quotes and trailing stars off) and whether it is a prefix."""

    text: str
    prefix: bool = False


def refused(field, message, kind="value_error"):
    return ValidationFailed(field, message, kind, location="query")


def _cleaned(text):
    """`text` in NFC with every white-space, control or format character made a plain space."""
    text = unicodedata.normalize("NFC", text)
    return "".join(" " if char.isspace() or unicodedata.category(char)[0] == "C" else char for char in text)


def _words(text):
    """Each word and quoted phrase of `text`, trailing stars still on (a phrase's after its closing quote)."""
    index, size = 0, len(text)
    while index < size:
        if text[index] == " ":
            index += 1
        elif text[index] == QUOTE:
            close = text.find(QUOTE, index + 1)
            end = size if close < 0 else close
            body, index = text[index + 1:end], end + 1
            stars = index
            while stars < size and text[stars] == STAR:
                stars += 1
            yield body + STAR * (stars > index)
            index = stars
        else:
            end = index
            while end < size and text[end] not in (" ", QUOTE):
                end += 1
            yield text[index:end]
            index = end


def parse(text):
    """The terms of a search text, in order and without repeats; 422 when it is not a text, is longer than
    QUERY_MAX characters, or holds no letter or digit."""
    if not isinstance(text, str):
        raise refused("q", _("Not a valid string."), "string_type")
    if len(text) > QUERY_MAX:
        raise refused("q", _("The search is longer than %(limit)s characters.", limit=QUERY_MAX),
                      "string_too_long")
    terms = []
    for body in _words(_cleaned(text)):
        stripped = body.rstrip(STAR)
        term = Term(stripped.strip(), prefix=stripped != body)
        if has_letter_or_digit(term.text) and term not in terms:
            terms.append(term)
    if not terms:
        raise refused("q", _("Search for at least one letter or digit."))
    return tuple(terms)


def check_limit(limit):
    if isinstance(limit, bool) or not isinstance(limit, int) or not LIMIT_MIN <= limit <= LIMIT_MAX:
        raise refused("limit", _("Must be between %(low)s and %(high)s.", low=LIMIT_MIN, high=LIMIT_MAX),
                      "value_error.range")
    return limit


def check_diagram_type(diagram_type):
    """A known diagram type (any case), or None."""
    if diagram_type is None:
        return None
    if isinstance(diagram_type, str):
        diagram_type = diagram_type.strip().lower()
    if diagram_type not in DIAGRAM_TYPES:
        raise refused("diagram_type", _("Unknown diagram type. Supported types: %(types)s.",
                                        types=", ".join(sorted(DIAGRAM_TYPES))))
    return diagram_type


def no_terms_left():
    """The refusal when the database's own splitting leaves nothing of the terms (PostgreSQL)."""
    return refused("q", _("Search for at least one letter or digit."))
