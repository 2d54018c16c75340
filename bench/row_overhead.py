"""What one row really costs in the database: the figures behind STORAGE_OVERHEAD_*_BYTES (docs/security.md,
"Diagram content and storage").

On a fresh schema at the newest migration, N empty diagrams (each with its first revision) and N folders are
created through the API; the bytes each table takes with its indexes (PostgreSQL: pg_total_relation_size,
TOAST and every fork included; SQLite: the pages dbstat gives to the table and its indexes) are read before
and after, and divided by N.

    .venv/bin/python -m bench.row_overhead [--backends pg,sqlite] [--rows 2000] [--database trazo_bench]
                                           [--redis-db 7]

The PostgreSQL database and the Redis db named are dropped and flushed first.
"""
import argparse
import base64
import os
import tempfile

from sqlalchemy import text

from trazo import create_app
from trazo.extensions import db

from .service import production_env, reset_database

PASSWORD = "Bench-Passw0rd!x"
TABLES = {"diagram": "diagrams", "revision": "diagram_revisions", "folder": "folders"}
PG_SIZE = text("SELECT pg_total_relation_size(CAST(:table AS regclass))")
# The pages of a table and of its indexes (sqlite_master names each index's table).
SQLITE_SIZE = text("SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name IN "
                   "(SELECT name FROM sqlite_master WHERE tbl_name = :table)")


def _env(backend, database, redis_db):
    env = production_env(backend, 0, database=database, redis_db=redis_db)
    env.update({"APP_ENV": "testing", "EMAIL_BACKEND": "console", "OUTBOX_DELIVERY": "external",
                "ENCRYPTION_KEYS": base64.urlsafe_b64encode(os.urandom(32)).decode(),
                "ARGON2_TIME_COST": "1", "ARGON2_MEMORY_COST": "1024", "LOG_FORMAT": "text",
                "INSTANCE_PATH": tempfile.mkdtemp(prefix="trazo-rows-")})
    return env


def _sizes(app):
    with app.app_context():
        statement = PG_SIZE if db.engine.dialect.name == "postgresql" else SQLITE_SIZE
        with db.engine.connect() as connection:
            return {kind: connection.scalar(statement, {"table": table}) for kind, table in TABLES.items()}


def _expect(response, status):
    if response.status_code != status:
        raise RuntimeError(f"{response.request.method} {response.request.path} -> {response.status_code}: "
                           f"{response.get_data(as_text=True)[:300]}")
    return response.get_json()


def measure(backend, rows, database, redis_db):
    """Bytes per diagram, revision and folder row (indexes included) on `backend`."""
    env = _env(backend, database, redis_db)
    reset_database(env)
    app = create_app(env=env)
    web = app.test_client()
    account = {"email": "rows@example.com", "password": PASSWORD}
    _expect(web.post("/api/v1/users/register", json={**account, "full_name": "Rows"}), 201)
    token = _expect(web.post("/api/v1/users/login", json=account), 200)["access_token"]
    headers = {"Authorization": f"Bearer {token}"}
    project = _expect(web.post("/api/v1/projects", json={"name": "Rows"}, headers=headers), 201)["id"]
    before = _sizes(app)
    for number in range(rows):
        _expect(web.post(f"/api/v1/projects/{project}/diagrams", headers=headers,
                         json={"title": f"Diagram {number:05d}", "content": ""}), 201)
    for number in range(rows):
        _expect(web.post(f"/api/v1/projects/{project}/folders", headers=headers,
                         json={"name": f"Folder {number:05d}"}), 201)
    after = _sizes(app)
    return {kind: (after[kind] - before[kind]) / rows for kind in TABLES}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backends", default="pg,sqlite")
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--database", default=None, help="the PostgreSQL database to drop and use")
    parser.add_argument("--redis-db", type=int, default=None, help="the Redis db to flush and use")
    args = parser.parse_args()
    print("| database | rows | diagram | revision | folder | empty diagram as created |\n|---|---|---|---|---|---|")
    for backend in args.backends.split(","):
        cost = measure(backend, args.rows, args.database, args.redis_db)
        print(f"| {backend} | {args.rows} | {cost['diagram']:.0f} | {cost['revision']:.0f} | {cost['folder']:.0f} "
              f"| {cost['diagram'] + cost['revision']:.0f} |")


if __name__ == "__main__":
    main()
