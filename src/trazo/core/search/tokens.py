"""Text to search tokens, the Python side (docs/search.md, "How text is split").

    fold:   accents and compatibility forms off, case kept (`Facturación` -> `Facturacion`, `ﬁ` -> `fi`)
    parts:  runs of letters and digits, split where camelCase changes case (`orderService.create` ->
            `order`, `service`, `create`; `HTTPServer` -> `http`, `server`), lower-cased
    joined: each identifier (letters, digits, underscores) without its underscores, lower-cased
            (`order_service` -> `orderservice`, `orderService.create` -> `orderservice`, `create`)

A text is indexed as its parts followed by its joined identifiers (`index_text`); a query term matches
its parts as a phrase, or its joined identifiers as a phrase. SQLite's index calls `index_text` through
the function web/database.py registers on every connection, and a query's terms go through the same
functions: splitting and folding are the same at index and query time. PostgreSQL does the same in SQL
(models/search_ddl.py), index and query alike; snippets (core/search/snippets.py) use the spans here.

Every pattern is linear: character classes and fixed-width lookarounds, no nested repetition.
"""
import re
import unicodedata
from dataclasses import dataclass
from functools import cache

ALNUM = re.compile(r"[^\W_]+")  # letters and digits
WORD = re.compile(r"\w+")  # an identifier: letters, digits and underscores
# Where camelCase splits: a lower-case letter or digit before an upper-case one (`orderService`), and the
# last capital of an acronym before a capitalized word (`HTTPServer`). PostgreSQL's functions split at the
# same places (two regexp_replace calls, models/search_ddl.py).
BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
# Letters NFKD does not take apart, folded as PostgreSQL's unaccent does.
SPECIAL = {"ß": "ss", "ẞ": "SS", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ø": "o", "Ø": "O", "ł": "l",
           "Ł": "L", "đ": "d", "Đ": "D", "ð": "d", "Ð": "D", "þ": "th", "Þ": "TH", "ı": "i", "ħ": "h", "Ħ": "H"}
LAST_DECOMPOSED = 0x2FFFF  # no code point above has a decomposition
VARIATION_SELECTORS = range(0xE0100, 0xE01F0)


@dataclass(frozen=True)
class Token:
    """A lexeme and where it stands in the text it came from (offsets into the original text)."""

    lexeme: str
    start: int
    end: int


@cache
def _fold_table():
    """str.translate's table: every character whose folded form differs (about 7,000), built once."""
    table = {}
    for code in (*range(LAST_DECOMPOSED + 1), *VARIATION_SELECTORS):
        char = chr(code)
        if unicodedata.combining(char):
            table[code] = ""
        elif unicodedata.decomposition(char):
            table[code] = "".join(piece for piece in unicodedata.normalize("NFKD", char)
                                  if not unicodedata.combining(piece))
    table.update({ord(char): folded for char, folded in SPECIAL.items()})
    return table


def fold(text):
    """`text` without accents (combining marks dropped, compatibility forms decomposed), case kept."""
    return text if text.isascii() else text.translate(_fold_table())


def _folded_with_origins(text):
    """(the folded text, the index in `text` of each folded character), or None for `origins` when every
    character folds to exactly one (the offsets are then the same)."""
    if text.isascii():
        return text, None
    table = _fold_table()
    if all(len(table.get(ord(char), char)) == 1 for char in set(text)):
        return text.translate(table), None
    pieces, origins = [], []
    for index, char in enumerate(text):
        piece = table.get(ord(char), char)
        pieces.append(piece)
        origins.extend([index] * len(piece))
    return "".join(pieces), origins


def _spans(folded):
    """(start, end) of each part of `folded`: its runs of letters and digits, split at BOUNDARY."""
    bounds = iter(match.start() for match in BOUNDARY.finditer(folded))
    bound = next(bounds, None)
    for run in ALNUM.finditer(folded):
        start, end = run.span()
        while bound is not None and bound < end:
            if bound > start:
                yield start, bound
                start = bound
            bound = next(bounds, None)
        yield start, end


def parts(text):
    """The lexemes of `text`'s parts, in order."""
    folded = fold(text)
    return [folded[start:end].lower() for start, end in _spans(folded)]


def joined(text):
    """The lexemes of `text`'s identifiers without underscores, in order (an identifier of underscores only
    has none)."""
    return [lexeme for lexeme in (word.replace("_", "").lower() for word in WORD.findall(fold(text))) if lexeme]


def index_text(value):
    """What SQLite's index stores for a text: its parts, then its joined identifiers, separated by spaces
    (a total function: anything but a text indexes as nothing)."""
    if not isinstance(value, str) or not value:
        return ""
    return " ".join(parts(value)) + " " + " ".join(joined(value))


def spans(text):
    """(parts, joined) of `text` as Tokens whose offsets are in `text` itself (snippets)."""
    folded, origins = _folded_with_origins(text)

    def place(start, end):
        if origins is None:
            return start, end
        return origins[start], origins[end - 1] + 1

    part_tokens = [Token(folded[start:end].lower(), *place(start, end)) for start, end in _spans(folded)]
    word_tokens = []
    for word in WORD.finditer(folded):
        lexeme = word.group().replace("_", "").lower()
        if lexeme:
            word_tokens.append(Token(lexeme, *place(*word.span())))
    return part_tokens, word_tokens


def has_letter_or_digit(text):
    return ALNUM.search(text) is not None

