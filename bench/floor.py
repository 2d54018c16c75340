"""The floor: the DB-backed reads of `make bench` done by hand, with no Flask, SQLAlchemy or marshmallow.

A plain WSGI callable (`app`) served by the same gunicorn settings as the service. For each route it does
only what the real route must do: one PyJWT decode of the access token (the claims flask-jwt-extended and
trazo.auth check), the SQL statements the service runs for that route (copied from the service: same
columns, same filters, same order), through the same driver (psycopg 3 or sqlite3) on one connection per
thread kept open, and `json.dumps` of an equivalent body. The service's requests/s over the floor's is
the share of the database-bound ceiling the framework leaves (docs/operations.md, "Benchmarks").

When the service's statements for these routes change, change them here too.
"""
import hashlib
import hmac
import json
import os
import re
import sqlite3
import threading
import uuid
from datetime import UTC, datetime

import jwt
import psycopg

API = "/api/v1"
MAX_SHARE_TOKEN_CHARS = 64
SQLITE_TIMESTAMP = "%Y-%m-%d %H:%M:%S.%f"

# {p}: a string parameter, {ts}: a timestamp parameter, {true}: a boolean column's test, {false}: the
# literal false (per driver below).
USER = ("SELECT users.email, users.password_hash, users.has_usable_password, users.full_name, users.timezone, "
        "users.role, users.is_active, users.last_login_at, users.password_changed_at, users.reset_token_hash, "
        "users.reset_token_expires_at, users.mfa_enabled, users.mfa_methods, users.mfa_default_method, "
        "users.notify_comment_mentions, users.language, users.notify_comment_replies, users.id, users.created_at, "
        "users.updated_at \nFROM users \nWHERE users.id = {p}")
# The caller's membership of the project's workspace, and the open threads of each diagram (docs/teams.md).
MEMBER = ("JOIN workspace_members ON workspace_members.workspace_id = projects.workspace_id "
          "AND workspace_members.user_id = {p}")
OPEN_COMMENTS = ("(SELECT count(comments.id) AS count_1 \nFROM comments \nWHERE comments.diagram_id = diagrams.id "
                 "AND comments.parent_id IS NULL AND comments.resolved = {false}) AS open_comment_count")
PROJECT_COLUMNS = ("projects.workspace_id, projects.user_id, projects.name, projects.description, projects.emoji, "
                   "projects.id, projects.created_at, projects.updated_at, workspace_members.role")
PROJECTS = (f"SELECT {PROJECT_COLUMNS}, diagrams.diagram_type, count(diagrams.id) AS diagram_total \n"
            f"FROM projects {MEMBER} LEFT OUTER JOIN diagrams ON diagrams.project_id = projects.id "
            "GROUP BY projects.id, workspace_members.role, diagrams.diagram_type "
            "ORDER BY projects.created_at, projects.id")
PROJECT_TREE = (f"SELECT {PROJECT_COLUMNS}, folders.project_id, folders.name AS folder_name, folders.color, "
                "folders.id AS folder_id, folders.created_at AS folder_created_at, "
                "folders.updated_at AS folder_updated_at \n"
                f"FROM projects {MEMBER} LEFT OUTER JOIN folders ON folders.project_id = projects.id \n"
                "WHERE projects.id = {p} ORDER BY lower(folders.name), folders.id")
DIAGRAM_COLUMNS = ("diagrams.project_id, diagrams.folder_id, diagrams.title, diagrams.content, diagrams.description, "
                   "diagrams.diagram_type, diagrams.config, diagrams.user_preferences, diagrams.viewport_zoom, "
                   "diagrams.viewport_x, diagrams.viewport_y, diagrams.content_size, diagrams.description_size, "
                   "diagrams.version, diagrams.history_size, diagrams.updated_at, diagrams.id, diagrams.created_at")
PROJECT_DIAGRAMS = (f"SELECT {DIAGRAM_COLUMNS}, {OPEN_COMMENTS} \nFROM diagrams \nWHERE diagrams.project_id = {{p}} "
                    "ORDER BY diagrams.created_at, diagrams.title, diagrams.id")
OWNED_DIAGRAM = (f"SELECT {DIAGRAM_COLUMNS}, {OPEN_COMMENTS}, workspace_members.role \n"
                 f"FROM diagrams JOIN projects ON projects.id = diagrams.project_id {MEMBER} \n"
                 "WHERE diagrams.id = {p}")
DIAGRAM = f"SELECT {DIAGRAM_COLUMNS} \nFROM diagrams \nWHERE diagrams.id = {{p}}"
LINK_COLUMNS = ("shared_links.diagram_id, shared_links.user_id, shared_links.token, shared_links.access_type, "
                "shared_links.access_code_hash, shared_links.allow_copy_code, shared_links.expires_at, "
                "shared_links.is_active, shared_links.id, shared_links.created_at, shared_links.updated_at")
# The link of a token with what its answer shows of the diagram and its maker's name, in one statement.
VISIT = (f"SELECT {LINK_COLUMNS}, diagrams.title, diagrams.description, diagrams.content, diagrams.diagram_type, "
         "diagrams.config, users.full_name \nFROM shared_links "
         "JOIN diagrams ON diagrams.id = shared_links.diagram_id "
         "LEFT OUTER JOIN users ON users.id = shared_links.user_id \n"
         "WHERE shared_links.token = {p} AND shared_links.is_active{true}")
LOG_VISIT = ("INSERT INTO shared_link_access_logs (link_id, ip_hash, result, created_at, id) "
             "VALUES ({p}, {p}, {p}, {ts}, {p})")

STATEMENTS = {"USER": USER, "PROJECTS": PROJECTS, "PROJECT_TREE": PROJECT_TREE,
              "PROJECT_DIAGRAMS": PROJECT_DIAGRAMS, "OWNED_DIAGRAM": OWNED_DIAGRAM, "DIAGRAM": DIAGRAM,
              "VISIT": VISIT, "LOG_VISIT": LOG_VISIT}
DIALECTS = {
    "sqlite": {"p": "?", "ts": "?", "true": " = 1", "false": "0"},
    "pg": {"p": "%s::VARCHAR", "ts": "%s::TIMESTAMP WITH TIME ZONE", "true": "", "false": "false"},
}


class Database:
    """DATABASE_URL (postgresql+psycopg://... or sqlite:///...) with one open connection per thread."""

    def __init__(self, url):
        if url.startswith("sqlite:///"):
            self.kind, self.target = "sqlite", url[len("sqlite:///"):]
        elif url.startswith(("postgresql://", "postgresql+psycopg://")):
            self.kind, self.target = "pg", "postgresql://" + url.split("://", 1)[1]
        else:
            raise ValueError("the floor reads postgresql+psycopg:// or sqlite:/// database URLs")
        self.sql = {name: text.format(**DIALECTS[self.kind]) for name, text in STATEMENTS.items()}
        self.local = threading.local()

    def _connect(self):
        if self.kind == "pg":
            return psycopg.connect(self.target, autocommit=True)
        connection = sqlite3.connect(self.target, timeout=30, isolation_level=None)  # autocommit, as on PG
        connection.execute("PRAGMA foreign_keys=ON")  # the service's pragmas (trazo.web)
        connection.execute("PRAGMA journal_mode=WAL")
        return connection

    def execute(self, name, *params):
        connection = getattr(self.local, "connection", None)
        if connection is None:
            connection = self.local.connection = self._connect()
        return connection.execute(self.sql[name], params)

    def rows(self, name, *params):
        return self.execute(name, *params).fetchall()

    def one(self, name, *params):
        found = self.rows(name, *params)
        return found[0] if found else None

    def now(self):
        moment = datetime.now(UTC)
        return moment if self.kind == "pg" else moment.replace(tzinfo=None).strftime(SQLITE_TIMESTAMP)


def moment(value):
    """A timestamp column as an aware datetime (SQLite hands back the naive UTC text SQLAlchemy stored)."""
    if isinstance(value, str):
        return datetime.fromisoformat(value).replace(tzinfo=UTC)
    return value


def stamp(value):
    return moment(value).astimezone(UTC).isoformat() if value is not None else None


def document(value):
    return json.loads(value) if isinstance(value, str) else value


class Refusal(Exception):
    def __init__(self, status, detail):
        super().__init__(detail)
        self.status, self.detail = status, detail


class Floor:
    def __init__(self, env):
        self.db = Database(env["DATABASE_URL"])
        self.jwt_key = env["JWT_SECRET_KEY"]
        self.address_key = hmac.new(env["SECRET_KEY"].encode(), b"trazo.access-log-address", hashlib.sha256).digest()

    # -- the access token and its user (flask-jwt-extended's decode, then trazo.auth's checks) --

    def user_id(self, environ):
        header = environ.get("HTTP_AUTHORIZATION", "")
        scheme, _, token = header.partition(" ")
        if scheme != "Bearer" or not token:
            raise Refusal(401, "Not authenticated")
        try:
            claims = jwt.decode(token, self.jwt_key, algorithms=["HS256"],
                                options={"verify_aud": False, "verify_sub": False})
        except jwt.PyJWTError:
            raise Refusal(401, "Could not validate credentials") from None
        if ("sub" not in claims or claims.get("type", "access") != "access" or "exp" not in claims
                or not isinstance(claims.get("pca"), int)):
            raise Refusal(401, "Could not validate credentials")
        user = self.db.one("USER", str(claims["sub"]))
        if user is None or not user[6]:
            raise Refusal(401, "User not found or inactive")
        if user[8] is not None and claims["pca"] < int(moment(user[8]).timestamp()):
            raise Refusal(401, "Session invalidated. Please log in again.")
        return user[17]

    # -- the routes --

    def projects(self, environ):
        user_id = self.user_id(environ)
        projects = {}
        for row in self.db.rows("PROJECTS", user_id):
            project = projects.setdefault(row[5], project_body(row))
            if row[9] is not None:
                project["diagram_count"] += row[10]
                project["diagram_type_counts"][row[9]] = row[10]
        return list(projects.values())

    def project(self, environ, project_id):
        user_id = self.user_id(environ)
        rows = self.db.rows("PROJECT_TREE", user_id, project_id)
        if not rows:
            raise Refusal(404, "Project not found")
        folders = {folder[12]: {"id": folder[12], "name": folder[10], "color": folder[11], "project_id": folder[9],
                                "created_at": stamp(folder[13]), "updated_at": stamp(folder[14]), "diagrams": []}
                   for folder in rows if folder[12] is not None}
        project = project_body(rows[0])
        root, counts = [], project["diagram_type_counts"]
        for diagram in self.db.rows("PROJECT_DIAGRAMS", project["id"]):
            folder = folders.get(diagram[1])
            (folder["diagrams"] if folder else root).append(diagram_body(diagram, diagram[18]))
            counts[diagram[5]] = counts.get(diagram[5], 0) + 1
        project["diagram_count"] = sum(counts.values())
        return {**project, "diagrams": root, "folders": list(folders.values())}

    def diagram(self, environ, diagram_id):
        user_id = self.user_id(environ)
        row = self.db.one("OWNED_DIAGRAM", user_id, diagram_id)
        if row is None:
            raise Refusal(404, "Diagram not found")
        return diagram_body(row, row[18])

    def shared(self, environ, token):
        """A public link without an access token: the link with its diagram and maker's name in one read, the
        visit log, and the answer from that read (as the service)."""
        row = self.db.one("VISIT", token) if len(token) <= MAX_SHARE_TOKEN_CHARS else None
        if row is None:
            self.log_visit(environ, None, "not_found")
            raise Refusal(404, "Shared link not found")
        if row[6] is not None and moment(row[6]) <= datetime.now(UTC):
            self.log_visit(environ, row[8], "expired")
            raise Refusal(410, "This link has expired")
        if row[3] == "protected":
            raise Refusal(403, "This link requires an access code")
        self.log_visit(environ, row[8], "success")
        return {"title": row[11], "description": row[12] or None, "content": row[13] if row[5] else None,
                "diagram_type": row[14], "rendered_content": row[13], "config": document(row[15]) or {},
                "allow_copy_code": bool(row[5]), "owner_name": row[16] or None}

    def log_visit(self, environ, link_id, result):
        address = environ.get("REMOTE_ADDR") or "unknown"
        ip_hash = hmac.new(self.address_key, address.encode(), hashlib.sha256).hexdigest()
        self.db.execute("LOG_VISIT", link_id, ip_hash, result, self.db.now(), str(uuid.uuid4()))


def project_body(row):
    """A PROJECTS or PROJECT_TREE row's project, its counts still empty."""
    return {"id": row[5], "name": row[2], "description": row[3], "emoji": row[4], "user_id": row[1],
            "workspace_id": row[0], "role": row[8], "diagram_count": 0, "diagram_type_counts": {},
            "created_at": stamp(row[6]), "updated_at": stamp(row[7])}


def diagram_body(row, open_comments):
    return {"id": row[16], "title": row[2], "content": row[3], "description": row[4], "diagram_type": row[5],
            "config": document(row[6]), "user_preferences": document(row[7]), "project_id": row[0],
            "folder_id": row[1], "viewport_zoom": row[8], "viewport_x": row[9], "viewport_y": row[10],
            "version": row[13], "created_at": stamp(row[17]), "updated_at": stamp(row[15]),
            "open_comment_count": open_comments}


ROUTES = [
    (re.compile(rf"^{API}/projects$"), "projects"),
    (re.compile(rf"^{API}/projects/([^/]+)$"), "project"),
    (re.compile(rf"^{API}/diagrams/([^/]+)$"), "diagram"),
    (re.compile(rf"^{API}/shared/([^/]+)/diagram$"), "shared"),
]


def answer(start_response, status, body, extra=()):
    payload = json.dumps(body, separators=(",", ":")).encode()
    reasons = {200: "OK", 401: "UNAUTHORIZED", 403: "FORBIDDEN", 404: "NOT FOUND", 405: "METHOD NOT ALLOWED",
               410: "GONE"}
    start_response(f"{status} {reasons[status]}", [("Content-Type", "application/json"),
                                                   ("Content-Length", str(len(payload))), *extra])
    return [payload]


_floor = None


def app(environ, start_response):
    global _floor
    if _floor is None:  # built in the worker, after the fork: connections are per process and thread
        _floor = Floor(os.environ)
    path = environ.get("PATH_INFO", "")
    if path == "/health":
        return answer(start_response, 200, {"status": "ok"})
    for pattern, name in ROUTES:
        if found := pattern.match(path):
            if environ["REQUEST_METHOD"] != "GET":
                return answer(start_response, 405, {"detail": "Method not allowed"})
            try:
                return answer(start_response, 200, getattr(_floor, name)(environ, *found.groups()))
            except Refusal as refusal:
                extra = [("WWW-Authenticate", "Bearer")] if refusal.status == 401 else []
                return answer(start_response, refusal.status, {"detail": refusal.detail}, extra)
    return answer(start_response, 404, {"detail": "Not found"})
