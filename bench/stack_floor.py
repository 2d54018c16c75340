"""The stack's floor: bench/floor.py's reads through the stack the service is built on, and nothing of Trazo's.

The same statements and bodies as the floor (its Floor class answers), but each request goes through Flask's
request cycle, a flask-smorest Blueprint whose view dumps its answer through a marshmallow response schema,
Flask-SQLAlchemy's session connection (the floor's SQL sent with `exec_driver_sql`, reads in autocommit as the
service's are) and flask-jwt-extended's `verify_jwt_in_request`. No rate limits, CORS, metrics, request ids,
security headers, body checks or error translation: what a read costs in this stack before any feature.

`make bench` serves it as it serves the floor (`--only stack`); its rows' ratio to the floor is what the stack
leaves of the hand-written floor, the most the service's own ratio can reach without leaving its stack
(docs/operations.md, "Benchmarks").
"""
import os

from flask import Flask, request
from flask_jwt_extended import JWTManager, get_jwt, verify_jwt_in_request
from flask_smorest import Api, Blueprint, abort
from flask_sqlalchemy import SQLAlchemy
from marshmallow import Schema, fields

from . import floor

DIAGRAM_KEYS = ("id", "title", "content", "description", "diagram_type", "config", "user_preferences", "project_id",
                "folder_id", "viewport_zoom", "viewport_x", "viewport_y", "version", "created_at", "updated_at",
                "open_comment_count")
PROJECT_KEYS = ("id", "name", "description", "emoji", "user_id", "workspace_id", "role", "diagram_count",
                "diagram_type_counts", "created_at", "updated_at")
FOLDER_KEYS = ("id", "name", "color", "project_id", "created_at", "updated_at")
SHARED_KEYS = ("title", "description", "content", "diagram_type", "rendered_content", "config", "allow_copy_code",
               "owner_name")


def schema_of(name, keys, **nested):
    """A response schema dumping `keys` as they are (the floor's bodies are already JSON types)."""
    return Schema.from_dict({**{key: fields.Raw() for key in keys}, **nested}, name=name)


DiagramSchema = schema_of("Diagram", DIAGRAM_KEYS)
ProjectSchema = schema_of("Project", PROJECT_KEYS)
FolderSchema = schema_of("Folder", FOLDER_KEYS, diagrams=fields.List(fields.Nested(DiagramSchema)))
ProjectTreeSchema = schema_of("ProjectTree", PROJECT_KEYS, diagrams=fields.List(fields.Nested(DiagramSchema)),
                              folders=fields.List(fields.Nested(FolderSchema)))
SharedSchema = schema_of("Shared", SHARED_KEYS)

db = SQLAlchemy()


class SessionDatabase(floor.Database):
    """The floor's statements on the Flask-SQLAlchemy session's connection."""

    def execute(self, name, *params):
        return db.session.connection().exec_driver_sql(self.sql[name], params)


class StackFloor(floor.Floor):
    def __init__(self, env):
        super().__init__(env)
        self.db = SessionDatabase(env["DATABASE_URL"])

    def user_id(self, environ):
        verify_jwt_in_request()
        claims = get_jwt()
        user = self.db.one("USER", str(claims["sub"]))
        if user is None or not user[6]:
            raise floor.Refusal(401, "User not found or inactive")
        if user[8] is not None and claims["pca"] < int(floor.moment(user[8]).timestamp()):
            raise floor.Refusal(401, "Session invalidated. Please log in again.")
        return user[17]


def engine_options(url):
    """The service's pool size; reads in autocommit (on SQLite through the driver's own switch, as the service)."""
    if url.startswith("sqlite"):
        return {"pool_size": 16, "connect_args": {"timeout": 30, "isolation_level": None}}
    return {"pool_size": 10, "max_overflow": 10, "isolation_level": "AUTOCOMMIT"}


def create_app(env):
    app = Flask(__name__)
    app.config.update(SQLALCHEMY_DATABASE_URI=env["DATABASE_URL"],
                      SQLALCHEMY_ENGINE_OPTIONS=engine_options(env["DATABASE_URL"]),
                      JWT_SECRET_KEY=env["JWT_SECRET_KEY"], API_TITLE="stack floor", API_VERSION="1",
                      OPENAPI_VERSION="3.0.2")
    db.init_app(app)
    JWTManager(app)
    api = Api(app)
    reads = StackFloor(env)
    blp = Blueprint("reads", __name__, url_prefix=floor.API)

    def answered(name, *args):
        try:
            return getattr(reads, name)(request.environ, *args)
        except floor.Refusal as refusal:
            abort(refusal.status, message=refusal.detail)

    @blp.route("/projects")
    @blp.response(200, ProjectSchema(many=True))
    def projects():
        return answered("projects")

    @blp.route("/projects/<project_id>")
    @blp.response(200, ProjectTreeSchema)
    def project(project_id):
        return answered("project", project_id)

    @blp.route("/diagrams/<diagram_id>")
    @blp.response(200, DiagramSchema)
    def diagram(diagram_id):
        return answered("diagram", diagram_id)

    @blp.route("/shared/<token>/diagram")
    @blp.response(200, SharedSchema)
    def shared(token):
        return answered("shared", token)

    api.register_blueprint(blp)
    app.add_url_rule("/health", "health", lambda: {"status": "ok"})
    return app


app = create_app(os.environ)
