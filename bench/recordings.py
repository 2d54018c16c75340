"""Answers byte for byte, old code against new: record the hot reads' answers (status, the headers that carry
meaning, body bytes) on a seeded database, then record them again on the same database with other code and
compare.

    .venv/bin/python -m bench.recordings seed STATE.json [--backend pg|sqlite] [--database trazo_recordings]
    .venv/bin/python bench/recordings.py record STATE.json OUT.json   (from the tree whose code answers)
    .venv/bin/python -m bench.recordings compare OLD.json NEW.json

`seed` builds a fresh database at the newest migration and fills it through the API (two users sharing a
team workspace, projects with folders, diagrams with comments, public links with and without copying) and
writes the settings, tokens and ids to STATE.json. `record` runs every request of REQUESTS in process against
that database with the `trazo` package of the current directory's src/ (a second worktree for the old side:
`cd ../old && ../new/.venv/bin/python ../new/bench/recordings.py record ...`). Only reads and refusals are
recorded, so the database does not change between the two records (a read may remember the caller's
language, which no answer shows). docs/operations.md, "Benchmarks".
"""
import json
import os
import sys
import tempfile
from pathlib import Path

HEADERS = ("Content-Type", "ETag", "WWW-Authenticate", "Cache-Control", "Content-Length")


def _client_env(state):
    os.environ.update(state["env"])
    from trazo import create_app  # the current tree's package (bench/recordings.py record runs as a script)

    return create_app(env=state["env"])


def requests_of(state):
    """(name, method, path, token name or None, headers) of every recorded request."""
    ids = state["ids"]
    owner, member = "owner", "member"
    listed = [
        ("projects", "/api/v1/projects", owner), ("projects of a member", "/api/v1/projects", member),
        ("projects of the team", f"/api/v1/projects?workspace_id={ids['team']}", owner),
        ("project tree", f"/api/v1/projects/{ids['project']}", owner),
        ("project tree of a member", f"/api/v1/projects/{ids['team_project']}", member),
        ("empty project tree", f"/api/v1/projects/{ids['empty_project']}", owner),
        ("diagram", f"/api/v1/diagrams/{ids['diagram']}", owner),
        ("commented diagram", f"/api/v1/diagrams/{ids['commented']}", owner),
        ("diagram in a folder", f"/api/v1/diagrams/{ids['foldered']}", owner),
        ("diagram of a member", f"/api/v1/diagrams/{ids['team_diagram']}", member),
        ("shared diagram", f"/api/v1/shared/{ids['share']}/diagram", None),
        ("shared diagram to copy", f"/api/v1/shared/{ids['copy_share']}/diagram", None),
        ("shared link info", f"/api/v1/shared/{ids['share']}/info", None),
        ("unknown share", "/api/v1/shared/no-such-token/diagram", None),
        ("too long share", "/api/v1/shared/" + "x" * 80 + "/diagram", None),
        ("another's project", f"/api/v1/projects/{ids['project']}", member),
        ("another's diagram", f"/api/v1/diagrams/{ids['diagram']}", member),
        ("unknown project", "/api/v1/projects/00000000-0000-4000-8000-000000000000", owner),
        ("unknown diagram", "/api/v1/diagrams/00000000-0000-4000-8000-000000000000", owner),
        ("no token", "/api/v1/projects", None), ("bad token", "/api/v1/projects", "garbage"),
        ("refresh-like token", "/api/v1/diagrams/" + ids["diagram"], "unsigned"),
        ("me", "/api/v1/users/me", owner), ("recent", "/api/v1/diagrams/recent", owner),
        ("folder", f"/api/v1/folders/{ids['folder']}", owner),
    ]
    spanish = [(f"{name} (es)", path, who, {"Accept-Language": "es"}) for name, path, who in listed
               if name in ("unknown diagram", "no token", "another's project", "unknown share")]
    return [(name, path, who, {}) for name, path, who in listed] + spanish


def record(state_path, out_path):
    state = json.loads(Path(state_path).read_text())
    app = _client_env(state)
    client = app.test_client()
    tokens = {**state["tokens"], "garbage": "not-a-token", "unsigned": state["unsigned"]}
    answers = {}
    for name, path, who, headers in requests_of(state):
        sent = {**headers, **({"Authorization": f"Bearer {tokens[who]}"} if who else {})}
        response = client.get(path, headers=sent, environ_base={"REMOTE_ADDR": "203.0.113.9"})
        answers[name] = {"status": response.status_code, "body": response.get_data(as_text=True),
                         "headers": {header: response.headers.get(header) for header in HEADERS}}
    Path(out_path).write_text(json.dumps(answers, indent=1, ensure_ascii=False))
    print(f"recorded {len(answers)} answers with {sys.modules['trazo'].__file__}")


def compare(old_path, new_path):
    old, new = (json.loads(Path(path).read_text()) for path in (old_path, new_path))
    differ = [name for name in old if old[name] != new.get(name)]
    for name in differ:
        print(f"DIFFERS: {name}\n  old {old[name]}\n  new {new.get(name)}")
    print(f"{len(old) - len(differ)} of {len(old)} answers identical")
    return 1 if differ or set(old) != set(new) else 0


def seed(state_path, backend, database):
    from .seed import PASSWORD
    from .service import production_env, reset_database

    env = production_env(backend, 0, database=database, redis_db=12)
    env.update({"ARGON2_TIME_COST": "1", "ARGON2_MEMORY_COST": "1024",
                "INSTANCE_PATH": tempfile.mkdtemp(prefix="trazo-recordings-")})
    reset_database(env)
    app = _client_env({"env": env})
    client = app.test_client()

    def call(method, path, token=None, **body):
        response = client.open(f"/api/v1{path}", method=method, json=body or None,
                               headers={"Authorization": f"Bearer {token}"} if token else {},
                               environ_base={"REMOTE_ADDR": "203.0.113.9"})
        if response.status_code >= 300:
            raise RuntimeError(f"{method} {path}: {response.status_code} {response.get_data(as_text=True)}")
        return response.get_json()

    tokens = {}
    for who in ("owner", "member"):
        email = f"{who}@example.com"
        call("POST", "/users/register", email=email, password=PASSWORD, full_name=f"The {who}")
        tokens[who] = call("POST", "/users/login", email=email, password=PASSWORD)["access_token"]
    owner = tokens["owner"]
    project = call("POST", "/projects", owner, name="Señales 📊", description="Ünïcode <b>", emoji="🧭")["id"]
    empty = call("POST", "/projects", owner, name="Empty")["id"]
    folder = call("POST", f"/projects/{project}/folders", owner, name="Zeta", color="#ff0000")["id"]
    call("POST", f"/projects/{project}/folders", owner, name="alpha")
    diagrams = [call("POST", f"/projects/{project}/diagrams", owner, title=f"D{index}", content=content,
                     diagram_type=kind, description=description)["id"]
                for index, (kind, content, description) in enumerate([
                    ("mermaid", "flowchart TD\n  A[Ärger] --> B", "first"),
                    ("plantuml", "@startuml\nA -> B\n@enduml", ""),
                    ("d2", "a -> b: \"quoted\"", None), ("dbml", "Table t { id int }", "tabs\tand\nlines")])]
    foldered = call("POST", f"/projects/{project}/diagrams", owner, title="In folder", content="graph LR\n x",
                    diagram_type="mermaid", folder_id=folder)["id"]
    call("PUT", f"/diagrams/{diagrams[0]}", owner, viewport_zoom=1.5, viewport_x=-3.25,
         user_preferences={"description_pinned": True, "chat_panel_width": 420},
         config={"background_color": "#000000", "background_pattern": "dots"})
    call("POST", f"/diagrams/{diagrams[1]}/comments", owner, body="A note", anchor=None)
    workspace = call("POST", "/workspaces", owner, name="Team")["id"]
    link = call("POST", f"/workspaces/{workspace}/invite-links", owner, role="viewer")
    call("POST", f"/invite-links/{link['token']}/join", tokens["member"])
    team_project = call("POST", "/projects", owner, name="Team project", workspace_id=workspace)["id"]
    team_diagram = call("POST", f"/projects/{team_project}/diagrams", owner, title="Shared work",
                        content="graph TD\n q", diagram_type="mermaid")["id"]
    share = call("POST", "/shared-links", owner, diagram_id=diagrams[0], access_type="public", expiration_days=None)
    copy = call("POST", "/shared-links", owner, diagram_id=diagrams[2], access_type="public", allow_copy_code=True,
                expiration_days=None)
    import jwt

    unsigned = jwt.encode({"sub": "x", "type": "refresh", "exp": 4102444800}, "another-key", algorithm="HS256")
    state = {"env": env, "tokens": tokens, "unsigned": unsigned, "ids": {
        "project": project, "empty_project": empty, "folder": folder, "diagram": diagrams[0],
        "commented": diagrams[1], "foldered": foldered, "team": workspace, "team_project": team_project,
        "team_diagram": team_diagram, "share": share["token"], "copy_share": copy["token"]}}
    Path(state_path).write_text(json.dumps(state, indent=1))
    print(f"seeded {env['DATABASE_URL']}")


def main(argv):
    command, *rest = argv
    if command == "seed":
        backend = rest[rest.index("--backend") + 1] if "--backend" in rest else "pg"
        database = rest[rest.index("--database") + 1] if "--database" in rest else "trazo_recordings"
        seed(rest[0], backend, database)
        return 0
    if command == "record":
        record(*rest[:2])
        return 0
    if command == "compare":
        return compare(*rest[:2])
    raise SystemExit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
