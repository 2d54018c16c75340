"""Search: the diagrams a caller can read that match a text, a page at a time (docs/search.md).

    find(user, "OrderService", workspace_id=None, project_id=None, diagram_type=None, limit=20, cursor=None)
    -> {"items": [{diagram_id, project_id, workspace_id, title, diagram_type, path, snippet, matches, score,
                   updated_at}], "next_cursor": str | None}

The one entry point of every caller (the search route, an MCP server). An empty filter or cursor is no
filter or cursor. Bad input is a ValidationFailed (422) on the parameter at fault; a `workspace_id` or
`project_id` the caller is no member of is a NotFound (404), as everywhere (docs/teams.md): nothing of
another workspace shows, not even a count. A search runs at most two statements (core/search/statements.py).
"""
import uuid
from dataclasses import dataclass

from flask_babel import gettext as _

from ...errors import NotFound
from ...extensions import db
from ..files.paths import path_of
from . import cursors, expressions, query, statements
from .snippets import snippet


@dataclass(frozen=True)
class Scope:
    """The filters of a search (each None when not given)."""

    workspace_id: str | None = None
    project_id: str | None = None
    diagram_type: str | None = None


def _object_id(value, message):
    """An id as the tables hold it (a UUID's text): anything else names nothing the caller can reach."""
    if value is None:
        return None
    try:
        return str(uuid.UUID(str(value)))
    except ValueError:
        raise NotFound(message) from None


def _postgresql_lexemes(rows, terms):
    """Each term's Lexemes from the (term number, stream, lexeme, positions) rows the scope statement read."""
    placed = {}
    for number, stream, lexeme, positions in rows or ():
        for position in positions:
            placed.setdefault((number, stream), []).append((position, lexeme))
    found = []
    for number, term in enumerate(terms, start=1):
        part_words, joined_words = ([lexeme for _position, lexeme in sorted(placed.get((number, stream), ()))]
                                    for stream in ("parts", "joined"))
        if part_words:
            found.append(expressions.Lexemes(tuple(part_words), tuple(joined_words), term.prefix))
    return tuple(found)


def _scope(user, terms, scope, dialect):
    """The terms' lexemes, once the filters are known to name the caller's own workspace and project."""
    statement = statements.scope_statement(scope, with_lexemes=dialect == "postgresql")
    row = None
    if statement is not None:
        row = db.session.execute(statement, {"terms": [term.text for term in terms], "user_id": user.id,
                                             "workspace_id": scope.workspace_id,
                                             "project_id": scope.project_id}).mappings().one()
    if scope.workspace_id is not None and row["workspace_role"] is None:
        raise NotFound(_("Workspace not found"))
    if scope.project_id is not None and row["project_role"] is None:
        raise NotFound(_("Project not found"))
    lexemes = (_postgresql_lexemes(row["lexemes"], terms) if dialect == "postgresql"
               else expressions.python_lexemes(terms))
    if not lexemes:
        raise query.no_terms_left()
    return lexemes


def _parameters(dialect, user, lexemes, scope, after, limit):
    parameters = {"user_id": user.id, "limit": limit, "workspace_id": scope.workspace_id,
                  "project_id": scope.project_id, "diagram_type": scope.diagram_type}
    if dialect == "postgresql":
        parameters.update(query=expressions.tsquery(lexemes), any_query=expressions.any_tsquery(lexemes))
    else:
        parameters.update(query=expressions.fts_query(lexemes), title_query=expressions.title_fts_query(lexemes))
    if after is not None:
        parameters.update(after_score=after[0], after_id=after[1])
    return parameters


def _hit(row, lexemes):
    return {"diagram_id": row.id, "project_id": row.project_id, "workspace_id": row.workspace_id,
            "title": row.title, "diagram_type": row.diagram_type,
            "path": path_of(row.folder, row.title, row.diagram_type),
            **snippet((row.description, row.content, row.comments), lexemes),
            "score": round(row.score, 6), "updated_at": row.updated_at}


def find(user, text, *, workspace_id=None, project_id=None, diagram_type=None, limit=query.LIMIT_DEFAULT,
         cursor=None):
    """One page of the diagrams `user` can read that match `text`, best first (see the module's docstring)."""
    terms = query.parse(text)
    limit = query.check_limit(limit)
    scope = Scope(_object_id(workspace_id or None, _("Workspace not found")),
                  _object_id(project_id or None, _("Project not found")),
                  query.check_diagram_type(diagram_type or None))
    print_ = cursors.fingerprint(user.id, terms, scope)
    after = cursors.read(cursor, print_) if cursor else None
    dialect = db.session.get_bind().dialect.name
    lexemes = _scope(user, terms, scope, dialect)
    rows = db.session.execute(statements.page_statement(dialect, scope, after),
                              _parameters(dialect, user, lexemes, scope, after, limit + 1)).all()
    items = [_hit(row, lexemes) for row in rows[:limit]]
    following = cursors.make(rows[limit - 1].score, rows[limit - 1].id, print_) if len(rows) > limit else None
    return {"items": items, "next_cursor": following}
