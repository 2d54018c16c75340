"""A search's terms as the database's query language (docs/search.md, "How a query is translated").

A term matches when its parts follow one another in a diagram's parts, or its joined identifiers in the
diagram's joined identifiers; a prefix term's last lexeme is a prefix. Every term must match (AND);
`any_term` (the title check, snippets) is their OR.

    OrderService    PostgreSQL ('order' <-> 'service' | 'orderservice')    FTS5 ("order service" OR "orderservice")
    "pay retr"*                ('pay' <-> 'retr':*)                              ("pay retr"*)

The lexemes come from the database's own splitting on PostgreSQL (core/search/statements.py) and from
core/search/tokens.py on SQLite (the function its triggers call): the ones the index holds. They are always
quoted, so no word of a search is ever read as an operator.
"""
from dataclasses import dataclass

from .tokens import joined, parts


@dataclass(frozen=True)
class Lexemes:
    """A term's lexemes: its parts and its joined identifiers, each in order."""

    parts: tuple[str, ...]
    joined: tuple[str, ...]
    prefix: bool

    def alternatives(self):
        return tuple(dict.fromkeys(sequence for sequence in (self.parts, self.joined) if sequence))


def python_lexemes(terms):
    """The lexemes of each term as SQLite's index makes them (a term without any is dropped)."""
    found = (Lexemes(tuple(parts(term.text)), tuple(joined(term.text)), term.prefix) for term in terms)
    return tuple(lexemes for lexemes in found if lexemes.parts)


# -- PostgreSQL tsquery -------------------------------------------------------------------------------

def _ts_lexeme(word, prefix):
    return "'" + word.replace("\\", "\\\\").replace("'", "''") + "'" + (":*" if prefix else "")


def _ts_term(lexemes):
    phrases = (" <-> ".join(_ts_lexeme(word, lexemes.prefix and index == len(sequence) - 1)
                            for index, word in enumerate(sequence))
               for sequence in lexemes.alternatives())
    return "(" + " | ".join(f"({phrase})" for phrase in phrases) + ")"


def tsquery(terms):
    """Every term (a tsquery's text, cast by the statement)."""
    return " & ".join(_ts_term(lexemes) for lexemes in terms)


def any_tsquery(terms):
    return " | ".join(_ts_term(lexemes) for lexemes in terms)


# -- SQLite FTS5 --------------------------------------------------------------------------------------

def _fts_term(lexemes):
    phrases = ('"' + " ".join(word.replace('"', '""') for word in sequence) + '"' + ("*" if lexemes.prefix else "")
               for sequence in lexemes.alternatives())
    return "(" + " OR ".join(phrases) + ")"


def fts_query(terms):
    return " AND ".join(_fts_term(lexemes) for lexemes in terms)


def any_fts_query(terms):
    return " OR ".join(_fts_term(lexemes) for lexemes in terms)


def title_fts_query(terms):
    """Any term, in the title column only (the hit ranks first)."""
    return "{title} : (" + any_fts_query(terms) + ")"
