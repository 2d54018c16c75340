"""The statements of a search (docs/search.md, "Round trips"): at most two, besides the caller's lookup.

1. The scope: the caller's role in the `workspace_id` and `project_id` filters (404 when none), and on
   PostgreSQL the lexemes of each term, split by the very functions the index uses. SQLite splits in Python
   (the function its triggers call) and runs this statement only when a filter is given.
2. The page: the matching diagrams of the caller's workspaces, ranked (title hits first, then the
   database's relevance), after the cursor, with what the snippets are cut from (the description and the
   content when they match, else their first characters; the comments when they match).

Every value is a bound parameter; the text of a statement varies only with which filters are given.
"""
from sqlalchemy import text

from ...models.base import UTCDateTime
from ...models.search_ddl import COMMENTS_CHARS, CONTENT_CHARS, DESCRIPTION_CHARS, NOT_INDEXED_TYPE

HEAD_CHARS = 300  # of a field that holds no match: enough for the snippet of a title-only hit
FILTERS = {"workspace_id": "p.workspace_id = :workspace_id", "project_id": "s.project_id = :project_id",
           "diagram_type": "s.diagram_type = :diagram_type"}
WORKSPACE_ROLE = ("(SELECT role FROM workspace_members WHERE workspace_id = :workspace_id AND user_id = :user_id)"
                  " AS workspace_role")
PROJECT_ROLE = ("(SELECT m.role FROM projects p JOIN workspace_members m ON m.workspace_id = p.workspace_id "
                "AND m.user_id = :user_id WHERE p.id = :project_id) AS project_role")
PG_LEXEMES = """(SELECT json_agg(json_build_array(term.number, stream.name, lexeme.lexeme, lexeme.positions))
                   FROM unnest(CAST(:terms AS text[])) WITH ORDINALITY AS term(body, number)
                   CROSS JOIN LATERAL (VALUES ('parts', trazo_search_parts(term.body)),
                                              ('joined', trazo_search_joined(term.body))) AS stream(name, words)
                   CROSS JOIN LATERAL unnest(to_tsvector('simple', stream.words)) AS lexeme) AS lexemes"""
AFTER = "WHERE matched.score < :after_score OR (matched.score = :after_score AND matched.id > :after_id)"
# The diagrams of the caller's workspaces (access.member_of's rule) that match, with their score. The fence
# keeps the subquery whole, so that the cursor's condition reads the score rather than computing it again.
MATCHED = """SELECT s.diagram_id AS id, s.project_id, p.workspace_id, {score} AS score
               FROM {source}
               JOIN projects p ON p.id = s.project_id
               JOIN workspace_members m ON m.workspace_id = p.workspace_id AND m.user_id = :user_id
              WHERE {match}{filters}
             {fence}"""
# Only the page's rows are read from diagrams (the index rows carry their project and type).
PAGE = """SELECT page.id, page.project_id, page.workspace_id, d.title, d.diagram_type, d.updated_at, page.score,
                 f.name AS folder, {fields}
            FROM (SELECT * FROM ({matched}) AS matched {after} ORDER BY matched.score DESC, matched.id
                   LIMIT :limit) AS page
            JOIN diagrams d ON d.id = page.id
            {joins}
            LEFT JOIN folders f ON f.id = d.folder_id
           ORDER BY page.score DESC, page.id"""

PG_QUERY, PG_ANY = "CAST(:query AS tsquery)", "CAST(:any_query AS tsquery)"
# Title hits first (1 + ...), then ts_rank over the weights D, C, B, A (comments, content, description,
# title), divided by 1 + log(length) and mapped to [0, 1) (flags 1 | 32).
PG_SCORE = (f"CAST(CASE WHEN s.title_vector @@ {PG_ANY} THEN 1 ELSE 0 END AS float8) "
            f"+ CAST(ts_rank(CAST('{{0.1,0.2,0.4,1.0}}' AS float4[]), s.document, {PG_QUERY}, 33) AS float8)")
PG_FIELDS = f"""CASE WHEN ts_filter(s.document, '{{b}}') @@ {PG_ANY} THEN left(d.description, {DESCRIPTION_CHARS})
                     ELSE left(d.description, {HEAD_CHARS}) END AS description,
                CASE WHEN d.diagram_type = '{NOT_INDEXED_TYPE}' THEN NULL
                     WHEN ts_filter(s.document, '{{c}}') @@ {PG_ANY} THEN left(d.content, {CONTENT_CHARS})
                     ELSE left(d.content, {HEAD_CHARS}) END AS content,
                CASE WHEN s.comments_vector @@ {PG_ANY} THEN
                     (SELECT left(string_agg(c.body, E'\\n' ORDER BY c.created_at, c.id), {COMMENTS_CHARS})
                        FROM comments c WHERE c.diagram_id = page.id) END AS comments"""
# SQLite: bm25 (lower is better) over title, description, content, comments weighted as above, mapped to
# [0, 1); a title hit is a row of the title-only match.
SQLITE_BM25 = "bm25(search_fts, 10.0, 4.0, 2.0, 1.0)"
SQLITE_SCORE = ("(CASE WHEN search_fts.rowid IN (SELECT rowid FROM search_fts WHERE search_fts MATCH :title_query) "
                f"THEN 1.0 ELSE 0.0 END) + (-{SQLITE_BM25}) / (1.0 - {SQLITE_BM25})")
SQLITE_FIELDS = f"""substr(d.description, 1, {DESCRIPTION_CHARS}) AS description,
                    CASE WHEN d.diagram_type = '{NOT_INDEXED_TYPE}' THEN NULL
                         ELSE substr(d.content, 1, {CONTENT_CHARS}) END AS content,
                    (SELECT substr(group_concat(c.body, char(10)), 1, {COMMENTS_CHARS})
                       FROM comments c WHERE c.diagram_id = page.id) AS comments"""


def _filters(scope):
    return "".join(f" AND {FILTERS[name]}" for name in FILTERS if getattr(scope, name) is not None)


def scope_statement(scope, with_lexemes):
    """The first statement (None when SQLite has no filter to check)."""
    columns = ([PG_LEXEMES] if with_lexemes else []) + (
        [WORKSPACE_ROLE] if scope.workspace_id is not None else []) + (
        [PROJECT_ROLE] if scope.project_id is not None else [])
    return text("SELECT " + ", ".join(columns)) if columns else None


def page_statement(dialect, scope, after):
    """The second statement: the page (LIMIT :limit) after the cursor, if any."""
    if dialect == "postgresql":
        matched = MATCHED.format(score=PG_SCORE, source="search_documents s", match=f"s.document @@ {PG_QUERY}",
                                 filters=_filters(scope), fence="OFFSET 0")
        statement = PAGE.format(fields=PG_FIELDS, matched=matched, after=AFTER if after else "",
                                joins="JOIN search_documents s ON s.diagram_id = page.id")
    else:
        matched = MATCHED.format(score=SQLITE_SCORE, match="search_fts MATCH :query", filters=_filters(scope),
                                 source="search_fts JOIN search_documents s ON s.id = search_fts.rowid",
                                 fence="LIMIT -1")
        statement = PAGE.format(fields=SQLITE_FIELDS, matched=matched, after=AFTER if after else "", joins="")
    return text(statement).columns(updated_at=UTCDateTime())
