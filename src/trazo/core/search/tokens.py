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
from functools import cache
from itertools import chain

ALNUM = re.compile(r"[^\W_]+")  # letters and digits
WORD = re.compile(r"\w+")  # an identifier: letters, digits and underscores
# A part: letters and digits up to where camelCase splits, which is before an upper-case letter that follows
# a lower-case letter or a digit (`order|Service`, `utf8|Encode`) and before the last capital of an acronym
# followed by a lower-case letter (`HTTP|Server`). PostgreSQL splits at the same places with two
# regexp_replace calls (models/search_ddl.py); each step here looks one character around, so it is linear.
PART = re.compile(r"[^\W_](?:(?!(?<=[a-z0-9])[A-Z]|(?<=[A-Z])[A-Z][a-z])[^\W_])*")
# Letters NFKD does not take apart, folded as PostgreSQL's unaccent does.
SPECIAL = {"ß": "ss", "ẞ": "SS", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ø": "o", "Ø": "O", "ł": "l",
           "Ł": "L", "đ": "d", "Đ": "D", "ð": "d", "Ð": "D", "þ": "th", "Þ": "TH", "ı": "i", "ħ": "h", "Ħ": "H"}
# Every code point with a decomposition or a combining class lies in these (Unicode 15).
DECOMPOSED = (range(0x20000), range(0x2F800, 0x2FA20))


@cache
def _fold_table():
    """str.translate's table: every character whose folded form differs (about 7,000), built once per
    process (in about 20 ms)."""
    table = {}
    for code in chain.from_iterable(DECOMPOSED):
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


def parts(text):
    """The lexemes of `text`'s parts, in order."""
    return [part.lower() for part in PART.findall(fold(text))]


def joined(text):
    """The lexemes of `text`'s identifiers without underscores, in order (an identifier of underscores only
    has none)."""
    return [lexeme for lexeme in (word.replace("_", "").lower() for word in WORD.findall(fold(text))) if lexeme]


def index_text(value):
    """What SQLite's index stores for a text: its parts, then its joined identifiers, separated by spaces
    (a total function: anything but a text indexes as nothing)."""
    if not isinstance(value, str) or not value:
        return ""
    folded = fold(value)
    return (" ".join(PART.findall(folded)) + " " + " ".join(WORD.findall(folded)).replace("_", "")).lower()


def spans(text):
    """(parts, joined) of `text`: (lexeme, start, end) tuples, offsets in `text` itself (snippets)."""
    folded, origins = _folded_with_origins(text)
    lower = folded.lower()  # as long as `folded`: only U+0130 lengthens, and folding took it apart
    found = ([(lower[start:end], start, end) for start, end in map(re.Match.span, PART.finditer(folded))],
             [(lower[start:end].replace("_", ""), start, end)
              for start, end in map(re.Match.span, WORD.finditer(folded))])
    if origins is not None:
        found = tuple([(lexeme, origins[start], origins[end - 1] + 1) for lexeme, start, end in stream]
                      for stream in found)
    return found[0], [token for token in found[1] if token[0]]


def has_letter_or_digit(text):
    return ALNUM.search(text) is not None
