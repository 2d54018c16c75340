"""A hit's snippet (docs/search.md, "Hits"): at most SNIPPET_CHARS of plain text around the first match of
the search in the description, else the content, else the comments, with `matches`, the [start, end)
offsets (in characters) of every match inside it. White space and control characters become single
spaces; `…` marks a cut. A hit that matched in its title only shows the beginning of its description
or content, without matches.

Matches are found as the index finds them (core/search/tokens.py spans, the lexemes of core/search/
expressions.py): a term's parts one after the other, or its joined identifiers.
"""
import unicodedata
from collections import defaultdict

from .tokens import spans

SNIPPET_CHARS = 200
BEFORE_CHARS = 60  # of context before the first match
CHUNK_CHARS = 4_000  # of a text looked through at a time for the first match
MARGIN_CHARS = 300  # by which chunks overlap, so that a match across a cut is seen whole in the next one
CUT_SEARCH_CHARS = 100  # a cut moves to the end of its word, at most this far
ELLIPSIS = "…"


def _occurrences(text, terms):
    """The (start, end) of every match of any term in `text`, sorted."""
    found = set()
    for stream_index, tokens in enumerate(spans(text)):
        lexemes = [token[0] for token in tokens]
        at = defaultdict(list)
        for index, lexeme in enumerate(lexemes):
            at[lexeme].append(index)
        for term in terms:
            sequence = (term.parts, term.joined)[stream_index]
            if sequence:
                found.update(_matches(tokens, lexemes, at, sequence, term.prefix))
    return sorted(found)


def _matches(tokens, lexemes, at, sequence, prefix):
    last = len(sequence) - 1
    if last == 0 and prefix:
        starts = [index for lexeme, indexes in at.items() if lexeme.startswith(sequence[0]) for index in indexes]
    else:
        starts = at.get(sequence[0], [])
    for start in starts:
        end = start + last
        if end >= len(lexemes):
            continue
        if all(lexemes[start + offset] == sequence[offset] for offset in range(1, last)) and (
                last == 0 or (lexemes[end].startswith(sequence[last]) if prefix else lexemes[end] == sequence[last])):
            yield tokens[start][1], tokens[end][2]


def _in_word(char):
    return char.isalnum() or char == "_"


def _cut(text, index):
    """`index` moved forward to the end of the word it falls in (at most CUT_SEARCH_CHARS further)."""
    limit = min(len(text), index + CUT_SEARCH_CHARS)
    while index < limit and _in_word(text[index]):
        index += 1
    return index


def _first(text, terms):
    """(start, end) of the first match in `text`, looked for a chunk at a time (chunks overlap by
    MARGIN_CHARS and end between words), or None."""
    start = 0
    while start < len(text):
        end = _cut(text, start + CHUNK_CHARS)
        found = _occurrences(text[start:end], terms)
        if found:
            return found[0][0] + start, found[0][1] + start
        if end >= len(text):
            return None
        start = _cut(text, end - MARGIN_CHARS)
    return None


def _near(text, start, end, terms):
    """The matches inside [start, end) of `text`."""
    low = start
    while low > 0 and start - low < CUT_SEARCH_CHARS and _in_word(text[low - 1]):
        low -= 1
    return [(first + low, last + low) for first, last in _occurrences(text[low:_cut(text, end)], terms)
            if first + low >= start and last + low <= end]


def _blank(char):
    return char.isspace() or unicodedata.category(char)[0] == "C"


def _window(text, first):
    """[start, end) of the excerpt around the first match: some context before it, cut at white space."""
    start = max(0, first[0] - BEFORE_CHARS)
    if start > 0:
        space = next((index for index in range(start, first[0]) if _blank(text[index])), None)
        start = space + 1 if space is not None else start
    end = min(len(text), start + SNIPPET_CHARS)
    if end < len(text):
        space = next((index for index in range(end - 1, max(first[1], start + SNIPPET_CHARS // 2) - 1, -1)
                      if _blank(text[index])), None)
        end = space if space is not None else end
    return start, end


def excerpt(text, first, terms):
    """The snippet of `text` around the match `first` (None: its beginning) and the matches inside it."""
    start, end = _window(text, first) if first else (0, min(len(text), SNIPPET_CHARS))
    found = _near(text, start, end, terms) if first else []
    lead = ELLIPSIS if start > 0 else ""
    pieces, places, blank = [], {}, True
    for index in range(start, end):
        char = text[index]
        if _blank(char):
            if not blank:
                pieces.append(" ")
            blank = True
        else:
            pieces.append(char)
            blank = False
        places[index] = len(lead) + len(pieces) - 1
    body = "".join(pieces).rstrip()
    snippet = lead + body + (ELLIPSIS if end < len(text) else "")
    matches = []
    for match_start, match_end in found:
        low, high = places[match_start], min(places[match_end - 1] + 1, len(lead) + len(body))
        if matches and low <= matches[-1]["end"]:
            matches[-1]["end"] = max(matches[-1]["end"], high)
        else:
            matches.append({"start": low, "end": high})
    return {"snippet": snippet, "matches": matches}


def snippet(fields, terms):
    """The snippet of the first of `fields` (texts or None, in order) that holds a match of `terms` (the
    lexemes of expressions.Lexemes); else the beginning of the first non-empty one."""
    texts = [text for text in fields if text]
    for text in texts:
        first = _first(text, terms)
        if first is not None:
            return excerpt(text, first, terms)
    return excerpt(texts[0], None, terms) if texts else {"snippet": "", "matches": []}
