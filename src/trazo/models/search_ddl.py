"""What the search index needs beyond its table, per database (docs/search.md, "How the index is kept").

PostgreSQL: SQL functions that fold and split text (unaccent, then camelCase and punctuation, as
core/search/tokens.py does in Python) into weighted tsvectors, and triggers that keep `search_documents`
in step with `diagrams` (title A, description B, content C) and `comments` (D) in the writing statement.
SQLite: an FTS5 table whose rowid is `search_documents.id`, kept by triggers that call the Python function
SQLITE_FUNCTION (registered on every connection by web/database.py).

One definition for both ways a schema is made: migration 0015 calls `install` and `fill`, and
models/search.py calls `install` after `create_all` (the tests) and `uninstall` before `drop_all`.
"""
from sqlalchemy import text

DESCRIPTION_CHARS = 10_000  # of a description, indexed
CONTENT_CHARS = 100_000  # of a content, indexed (a sketch's JSON is not: NOT_INDEXED_TYPE)
COMMENTS_CHARS = 50_000  # of a diagram's comments together, oldest first
NOT_INDEXED_TYPE = "freehand"
SQLITE_FUNCTION = "trazo_search_text"
FTS_TABLE = "search_fts"

# -- PostgreSQL ---------------------------------------------------------------------------------------

UNACCENT_SCHEMA = text("SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace "
                       "WHERE e.extname = 'unaccent'")
# Runs of white space and punctuation but the underscore, which only `_glue` and `_split` treat.
SEPARATORS = "(?:(?!_)[[:space:][:punct:]])+"
PG_FUNCTIONS = (
    # unaccent() is STABLE (it reads its dictionary by name): wrapped with the dictionary named in full.
    """CREATE OR REPLACE FUNCTION trazo_search_fold(t text) RETURNS text
       LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
       AS $$ SELECT {schema}.unaccent('{schema}.unaccent'::regdictionary, t) $$""",
    # Folded, separators made spaces: each identifier (letters, digits, underscores) stands alone.
    f"""CREATE OR REPLACE FUNCTION trazo_search_words(t text) RETURNS text
       LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
       AS $$ SELECT regexp_replace(trazo_search_fold(t), '{SEPARATORS}', ' ', 'g') $$""",
    # The parts of `words`: split where camelCase changes case, and at underscores.
    """CREATE OR REPLACE FUNCTION trazo_search_split(words text) RETURNS text
       LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
       AS $$ SELECT lower(replace(regexp_replace(regexp_replace(words, '([a-z0-9])([A-Z])', '\\1 \\2', 'g'),
                                                 '([A-Z])([A-Z][a-z])', '\\1 \\2', 'g'), '_', ' ')) $$""",
    # The joined identifiers of `words`: without their underscores.
    """CREATE OR REPLACE FUNCTION trazo_search_glue(words text) RETURNS text
       LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
       AS $$ SELECT lower(replace(words, '_', '')) $$""",
    # What a query's term is split with (core/search/statements.py): the same functions as the index's.
    """CREATE OR REPLACE FUNCTION trazo_search_parts(t text) RETURNS text
       LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT trazo_search_split(trazo_search_words(t)) $$""",
    """CREATE OR REPLACE FUNCTION trazo_search_joined(t text) RETURNS text
       LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT trazo_search_glue(trazo_search_words(t)) $$""",
    """CREATE OR REPLACE FUNCTION trazo_search_vector(t text, weight "char") RETURNS tsvector
       LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
       AS $$ SELECT setweight(to_tsvector('simple', trazo_search_split(words) || ' ' || trazo_search_glue(words)),
                              weight)
             FROM trazo_search_words(t) AS words $$""",
    f"""CREATE OR REPLACE FUNCTION trazo_search_body(description text, content text, diagram_type text)
       RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE
       AS $$ SELECT trazo_search_vector(left(coalesce(description, ''), {DESCRIPTION_CHARS}), 'B')
                 || trazo_search_vector(CASE WHEN diagram_type = '{NOT_INDEXED_TYPE}' THEN ''
                                        ELSE left(coalesce(content, ''), {CONTENT_CHARS}) END, 'C') $$""",
    f"""CREATE OR REPLACE FUNCTION trazo_search_comments(for_diagram text) RETURNS tsvector
       LANGUAGE sql STABLE PARALLEL SAFE
       AS $$ SELECT trazo_search_vector(left(coalesce(string_agg(body, E'\\n' ORDER BY created_at, id), ''),
                                             {COMMENTS_CHARS}), 'D')
             FROM comments WHERE diagram_id = for_diagram $$""",
    # A move changes only where the row belongs (project_id); any other change indexes the texts again.
    """CREATE OR REPLACE FUNCTION trazo_search_diagram_written() RETURNS trigger LANGUAGE plpgsql AS $$
       DECLARE
         new_title tsvector;
         new_body tsvector;
       BEGIN
         IF TG_OP = 'UPDATE' AND OLD.project_id IS DISTINCT FROM NEW.project_id
            AND OLD.title IS NOT DISTINCT FROM NEW.title AND OLD.diagram_type IS NOT DISTINCT FROM NEW.diagram_type
            AND OLD.description IS NOT DISTINCT FROM NEW.description
            AND OLD.content IS NOT DISTINCT FROM NEW.content THEN
           UPDATE search_documents SET project_id = NEW.project_id WHERE diagram_id = NEW.id;
           IF FOUND THEN RETURN NULL; END IF;
         END IF;
         new_title := trazo_search_vector(NEW.title, 'A');
         new_body := trazo_search_body(NEW.description, NEW.content, NEW.diagram_type);
         IF TG_OP = 'UPDATE' THEN
           UPDATE search_documents SET project_id = NEW.project_id, diagram_type = NEW.diagram_type,
                                       title_vector = new_title, document = new_title || new_body || comments_vector
            WHERE diagram_id = NEW.id;
           IF FOUND THEN RETURN NULL; END IF;
         END IF;
         INSERT INTO search_documents (diagram_id, project_id, diagram_type, title_vector, comments_vector, document)
         SELECT NEW.id, NEW.project_id, NEW.diagram_type, new_title, written.vector,
                new_title || new_body || written.vector
           FROM (SELECT trazo_search_comments(NEW.id) AS vector) AS written;
         RETURN NULL;
       END $$""",
    """CREATE OR REPLACE FUNCTION trazo_search_reindex_comments(diagram_ids text[]) RETURNS void
       LANGUAGE sql AS $$
         UPDATE search_documents SET comments_vector = fresh.vector,
                                     document = ts_filter(document, '{a,b,c}') || fresh.vector
           FROM (SELECT one, trazo_search_comments(one) AS vector FROM unnest(diagram_ids) AS one) fresh
          WHERE search_documents.diagram_id = fresh.one $$""",
    """CREATE OR REPLACE FUNCTION trazo_search_comments_written() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         PERFORM trazo_search_reindex_comments(ARRAY(SELECT DISTINCT diagram_id FROM changed_comments));
         RETURN NULL;
       END $$""",
    """CREATE OR REPLACE FUNCTION trazo_search_comment_edited() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         PERFORM trazo_search_reindex_comments(ARRAY[NEW.diagram_id::text]);
         RETURN NULL;
       END $$""",
)
# (name, table, definition); a statement's comments are reindexed once per diagram, however many rows it
# wrote (an import, a thread and its replies, a diagram's cascade).
PG_TRIGGERS = (
    ("search_diagram_inserted", "diagrams",
     "AFTER INSERT ON diagrams FOR EACH ROW EXECUTE FUNCTION trazo_search_diagram_written()"),
    ("search_diagram_updated", "diagrams",
     "AFTER UPDATE OF title, description, content, diagram_type, project_id ON diagrams FOR EACH ROW "
     "WHEN (OLD.title IS DISTINCT FROM NEW.title OR OLD.description IS DISTINCT FROM NEW.description "
     "OR OLD.content IS DISTINCT FROM NEW.content OR OLD.diagram_type IS DISTINCT FROM NEW.diagram_type "
     "OR OLD.project_id IS DISTINCT FROM NEW.project_id) "
     "EXECUTE FUNCTION trazo_search_diagram_written()"),
    ("search_comments_inserted", "comments", "AFTER INSERT ON comments REFERENCING NEW TABLE AS changed_comments "
     "FOR EACH STATEMENT EXECUTE FUNCTION trazo_search_comments_written()"),
    ("search_comments_deleted", "comments", "AFTER DELETE ON comments REFERENCING OLD TABLE AS changed_comments "
     "FOR EACH STATEMENT EXECUTE FUNCTION trazo_search_comments_written()"),
    ("search_comment_edited", "comments", "AFTER UPDATE OF body ON comments FOR EACH ROW "
     "WHEN (OLD.body IS DISTINCT FROM NEW.body) EXECUTE FUNCTION trazo_search_comment_edited()"),
)
PG_DROPPED_FUNCTIONS = ("trazo_search_diagram_written()", "trazo_search_comments_written()",
                        "trazo_search_comment_edited()", "trazo_search_reindex_comments(text[])",
                        "trazo_search_comments(text)", "trazo_search_body(text, text, text)",
                        'trazo_search_vector(text, "char")', "trazo_search_joined(text)", "trazo_search_parts(text)",
                        "trazo_search_glue(text)", "trazo_search_split(text)", "trazo_search_words(text)",
                        "trazo_search_fold(text)")
PG_FILL = """INSERT INTO search_documents (diagram_id, project_id, diagram_type, title_vector, comments_vector,
                                          document)
             SELECT id, project_id, diagram_type, title_vector, comments,
                    title_vector || trazo_search_body(description, content, diagram_type) || comments
               FROM (SELECT id, project_id, description, content, diagram_type,
                            trazo_search_vector(title, 'A') AS title_vector, trazo_search_comments(id) AS comments
                       FROM diagrams) AS written"""
# The planner would weigh a common word's share of the rows and read every document rather than the GIN
# index, not knowing that matching a document means reading it (often from TOAST): without statistics on
# the column it takes a match for rare, and always starts from the index.
PG_NO_STATISTICS = "ALTER TABLE search_documents ALTER COLUMN document SET STATISTICS 0"
# A save writes the document again, a search reads it to rank: lz4 compresses and decompresses it several
# times faster than the default pglz, where the server has it (PostgreSQL 14+ built with lz4).
PG_HAS_LZ4 = text("SELECT 'lz4' = ANY(enumvals) FROM pg_settings WHERE name = 'default_toast_compression'")
PG_LZ4 = "ALTER TABLE search_documents ALTER COLUMN {column} SET COMPRESSION lz4"
VECTOR_COLUMNS = ("title_vector", "comments_vector", "document")


def _install_postgresql(connection):
    connection.exec_driver_sql("CREATE EXTENSION IF NOT EXISTS unaccent")
    schema = connection.scalar(UNACCENT_SCHEMA)
    quoted = connection.dialect.identifier_preparer.quote_identifier(schema)
    for statement in PG_FUNCTIONS:
        connection.exec_driver_sql(statement.replace("{schema}", quoted))
    connection.exec_driver_sql(PG_NO_STATISTICS)
    if connection.scalar(PG_HAS_LZ4):
        for column in VECTOR_COLUMNS:
            connection.exec_driver_sql(PG_LZ4.format(column=column))
    for name, table, definition in PG_TRIGGERS:
        connection.exec_driver_sql(f"DROP TRIGGER IF EXISTS {name} ON {table}")
        connection.exec_driver_sql(f"CREATE TRIGGER {name} {definition}")


def _uninstall_postgresql(connection):
    for signature in PG_DROPPED_FUNCTIONS:  # CASCADE: the triggers that call them go with them
        connection.exec_driver_sql(f"DROP FUNCTION IF EXISTS {signature} CASCADE")


# -- SQLite -------------------------------------------------------------------------------------------

def _indexed(expression):
    return f"{SQLITE_FUNCTION}({expression})"


def _diagram_columns(row):
    """The FTS columns of a diagram row (`NEW` in a trigger, an alias in the fill)."""
    return {"title": _indexed(f"{row}.title"),
            "description": _indexed(f"substr(coalesce({row}.description, ''), 1, {DESCRIPTION_CHARS})"),
            "body": _indexed(f"CASE WHEN {row}.diagram_type = '{NOT_INDEXED_TYPE}' THEN '' "
                             f"ELSE substr({row}.content, 1, {CONTENT_CHARS}) END")}


def _comments_of(diagram_id):
    return _indexed(f"substr((SELECT group_concat(body, char(10)) FROM (SELECT body FROM comments WHERE diagram_id = "
                    f"{diagram_id} ORDER BY created_at, id)), 1, {COMMENTS_CHARS})")


def _rowid_of(diagram_id):
    return f"(SELECT id FROM search_documents WHERE diagram_id = {diagram_id})"


_NEW = _diagram_columns("NEW")
CHANGED = " OR ".join(f"OLD.{column} IS NOT NEW.{column}" for column in ("title", "description", "content",
                                                                      "diagram_type"))
SQLITE_STATEMENTS = (
    f"CREATE VIRTUAL TABLE IF NOT EXISTS {FTS_TABLE} USING fts5(title, description, body, comments, "
    "tokenize = 'unicode61 remove_diacritics 0')",
    f"""CREATE TRIGGER IF NOT EXISTS search_diagram_inserted AFTER INSERT ON diagrams BEGIN
          INSERT INTO search_documents (diagram_id, project_id, diagram_type)
          VALUES (NEW.id, NEW.project_id, NEW.diagram_type);
          INSERT INTO {FTS_TABLE} (rowid, title, description, body, comments)
          VALUES ({_rowid_of("NEW.id")}, {_NEW["title"]}, {_NEW["description"]}, {_NEW["body"]}, '');
        END""",
    f"""CREATE TRIGGER IF NOT EXISTS search_diagram_updated
        AFTER UPDATE OF title, description, content, diagram_type ON diagrams WHEN {CHANGED} BEGIN
          UPDATE {FTS_TABLE} SET title = {_NEW["title"]}, description = {_NEW["description"]}, body = {_NEW["body"]}
           WHERE rowid = {_rowid_of("NEW.id")};
        END""",
    """CREATE TRIGGER IF NOT EXISTS search_diagram_moved AFTER UPDATE OF project_id, diagram_type ON diagrams
       WHEN OLD.project_id IS NOT NEW.project_id OR OLD.diagram_type IS NOT NEW.diagram_type BEGIN
         UPDATE search_documents SET project_id = NEW.project_id, diagram_type = NEW.diagram_type
          WHERE diagram_id = NEW.id;
       END""",
    """CREATE TRIGGER IF NOT EXISTS search_diagram_deleted AFTER DELETE ON diagrams BEGIN
         DELETE FROM search_documents WHERE diagram_id = OLD.id;
       END""",
    f"""CREATE TRIGGER IF NOT EXISTS search_document_deleted AFTER DELETE ON search_documents BEGIN
          DELETE FROM {FTS_TABLE} WHERE rowid = OLD.id;
        END""",
    # A new comment is appended (an import writes thousands); an edit or a deletion indexes the diagram's
    # comments again, unless its diagram or its thread is going (their own deletion does it once).
    f"""CREATE TRIGGER IF NOT EXISTS search_comment_inserted AFTER INSERT ON comments BEGIN
          UPDATE {FTS_TABLE} SET comments = comments || ' ' || {_indexed(f"substr(NEW.body, 1, {COMMENTS_CHARS})")}
           WHERE rowid = {_rowid_of("NEW.diagram_id")} AND length(comments) < {2 * COMMENTS_CHARS};
        END""",
    f"""CREATE TRIGGER IF NOT EXISTS search_comment_edited AFTER UPDATE OF body ON comments
        WHEN OLD.body IS NOT NEW.body BEGIN
          UPDATE {FTS_TABLE} SET comments = {_comments_of("NEW.diagram_id")}
           WHERE rowid = {_rowid_of("NEW.diagram_id")};
        END""",
    f"""CREATE TRIGGER IF NOT EXISTS search_comment_deleted AFTER DELETE ON comments
        WHEN EXISTS (SELECT 1 FROM diagrams WHERE id = OLD.diagram_id)
         AND (OLD.parent_id IS NULL OR EXISTS (SELECT 1 FROM comments WHERE id = OLD.parent_id)) BEGIN
          UPDATE {FTS_TABLE} SET comments = {_comments_of("OLD.diagram_id")}
           WHERE rowid = {_rowid_of("OLD.diagram_id")};
        END""",
)
SQLITE_DROPPED = ("TRIGGER IF EXISTS search_comment_deleted", "TRIGGER IF EXISTS search_comment_edited",
                  "TRIGGER IF EXISTS search_comment_inserted", "TRIGGER IF EXISTS search_document_deleted",
                  "TRIGGER IF EXISTS search_diagram_deleted", "TRIGGER IF EXISTS search_diagram_moved",
                  "TRIGGER IF EXISTS search_diagram_updated",
                  "TRIGGER IF EXISTS search_diagram_inserted", f"TABLE IF EXISTS {FTS_TABLE}")
_FILLED = _diagram_columns("d")
SQLITE_FILL = (
    "INSERT INTO search_documents (diagram_id, project_id, diagram_type) SELECT id, project_id, diagram_type "
    "FROM diagrams",
    f"""INSERT INTO {FTS_TABLE} (rowid, title, description, body, comments)
        SELECT s.id, {_FILLED["title"]}, {_FILLED["description"]}, {_FILLED["body"]}, {_comments_of("d.id")}
          FROM search_documents s JOIN diagrams d ON d.id = s.diagram_id""",
)


# -- both ---------------------------------------------------------------------------------------------

def install(connection):
    """Create (or replace) the functions, triggers and FTS table of the index on `connection`'s database."""
    if connection.dialect.name == "postgresql":
        _install_postgresql(connection)
    elif connection.dialect.name == "sqlite":
        for statement in SQLITE_STATEMENTS:
            connection.exec_driver_sql(statement)


def uninstall(connection):
    """Drop what `install` made (PostgreSQL keeps the unaccent extension: others may use it)."""
    if connection.dialect.name == "postgresql":
        _uninstall_postgresql(connection)
    elif connection.dialect.name == "sqlite":
        for statement in SQLITE_DROPPED:
            connection.exec_driver_sql(f"DROP {statement}")


def fill(connection):
    """Index every diagram of an empty index (the migration that makes it, on a database with diagrams)."""
    if connection.dialect.name == "postgresql":
        connection.exec_driver_sql(PG_FILL)
    elif connection.dialect.name == "sqlite":
        for statement in SQLITE_FILL:
            connection.exec_driver_sql(statement)
