"""The search row of `make bench` (docs/search.md, "Speed"): GET /search over 50,000 diagrams.

The diagrams are written straight into the benchmark's database with bulk INSERTs (the index's triggers
fill the index as they go, as they do for every write): their contents are the real diagrams of
../shared/corpus (or CORPUS_DIR), cycled and varied (a comment line of words and identifiers in each source's
own comment syntax, every seventh one two sources long), spread over 12 team workspaces of 8 projects, with
titles, descriptions (some in Spanish, with accents) and comments on one diagram in 25. A member of 2
workspaces (about 8,300 diagrams) and a member of all 12 then search, one request at a time, through the
production service: words, a common word, prefixes, phrases, identifiers, filters, a second page, a search
without hits. Each search's statements are counted once in process (core.search.find, plus the caller's
lookup of a signed-in request). The tables are analyzed after the load, as autovacuum would.

    .venv/bin/python -m bench.run --only search [--backends pg] [--database bench_search] [--redis-db 9]
                                  [--search-diagrams 50000] [--search-requests 60]
"""
import json
import os
import random
import statistics
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

import requests
from sqlalchemy import event, insert, text

from trazo import create_app
from trazo.core.search.find import find
from trazo.extensions import db
from trazo.models.comments import Comment
from trazo.models.content import Diagram, Project
from trazo.models.workspaces import Membership

from .seed import expect, register_and_login
from .service import ROOT

CORPUS_DIR = Path(os.environ.get("CORPUS_DIR") or ROOT.parent / "shared" / "corpus")
WORKSPACES, PROJECTS_PER_WORKSPACE, FEW = 12, 8, 2
BATCH = 1000
COMMENT_EVERY = 25
LINE_COMMENTS = {"mermaid": "%%", "plantuml": "'", "c4plantuml": "'", "d2": "#", "dbml": "//", "graphviz": "//"}
WORDS = ("payment", "invoice", "checkout", "customer", "ledger", "shipping", "refund", "catalog", "inventory",
         "billing", "session", "account", "report", "gateway", "warehouse", "pricing", "audit", "search")
IDENTIFIERS = ("orderService", "payment_gateway", "InvoiceLine", "userId", "createdAt", "HTTPClient",
               "retry_policy", "AuthToken", "cart.items", "stock_level")
SPANISH = ("Facturación mensual del cliente", "Política de reintentos", "Gestión de almacén y envíos",
           "Conciliación bancaria")
# (name, who, q, filters): who is "few" (2 workspaces) or "many" (all 12).
QUERIES = (
    ("word", "many", "customer", {}),
    ("word, member of few", "few", "customer", {}),
    ("common word", "many", "label", {}),
    ("two words", "many", "payment database", {}),
    ("title word", "many", "invoice", {}),
    ("prefix", "many", "bank*", {}),
    ("prefix, member of few", "few", "warehou*", {}),
    ("phrase", "many", '"web app"', {}),
    ("snake identifier", "many", "internet_banking_system", {}),
    ("camel identifier", "many", "OrderService", {}),
    ("dotted identifier", "many", "cart.items", {}),
    ("accents", "many", "facturacion", {}),
    ("workspace filter", "many", "customer", {"workspace_id": 0}),
    ("project filter", "many", "customer", {"project_id": 0}),
    ("type filter", "many", "customer", {"diagram_type": "c4plantuml"}),
    ("second page", "many", "customer", {"cursor": True}),
    ("no hits", "many", "walrusgnu", {}),
)


def _sources():
    cases = json.loads((CORPUS_DIR / "cases.json").read_text(encoding="utf-8"))
    return [(case["type"], Path(case["file"]).stem, (CORPUS_DIR / case["file"]).read_text(encoding="utf-8"))
            for case in cases]


def _content(sources, number, rng):
    kind, _slug, source = sources[number % len(sources)]
    if number % 7 == 0:
        extra = sources[(number * 31 + 7) % len(sources)]
        if extra[0] == kind:
            source += "\n" + extra[2]
    words = " ".join(rng.sample(WORDS, 3))
    line = f"{LINE_COMMENTS.get(kind, '//')} {words} {rng.choice(IDENTIFIERS)} step{number % 500}"
    return kind, line + "\n" + source


def _diagram_rows(sources, projects, count, rng, moment):
    for number in range(count):
        kind, content = _content(sources, number, rng)
        slug = sources[number % len(sources)][1]
        description = rng.choice(SPANISH) if number % 11 == 0 else f"The {rng.choice(WORDS)} flow, {slug}."
        yield {"id": str(uuid.uuid4()), "project_id": projects[number % len(projects)], "folder_id": None,
               "title": f"{rng.choice(WORDS).title()} {slug} {number}", "content": content,
               "description": description, "diagram_type": kind, "content_size": len(content.encode()),
               "description_size": len(description.encode()),
               "created_at": moment, "updated_at": moment - timedelta(seconds=number)}


def _user_id(base_url, token):
    return expect(requests.get(f"{base_url}/api/v1/users/me", headers={"Authorization": f"Bearer {token}"},
                               timeout=30), 200)["id"]


def seed(base_url, env, count):
    """Write the diagrams; answers the members' tokens and ids, the workspaces and the projects."""
    rng, moment = random.Random(7), datetime.now(UTC)
    owner = register_and_login(base_url)[1]
    members = {name: register_and_login(base_url)[1] for name in ("few", "many")}
    workspaces = [expect(requests.post(f"{base_url}/api/v1/workspaces", json={"name": f"Team {index}"},
                                       headers={"Authorization": f"Bearer {owner}"}, timeout=30), 201)["id"]
                  for index in range(WORKSPACES)]
    ids = {name: _user_id(base_url, token) for name, token in members.items()}
    owner_id = _user_id(base_url, owner)
    app = _app(env)
    with app.app_context():
        db.session.execute(insert(Membership), [
            {"workspace_id": workspace, "user_id": ids[name], "role": "viewer", "joined_at": moment}
            for name, reach in (("few", workspaces[:FEW]), ("many", workspaces)) for workspace in reach])
        projects = [{"id": str(uuid.uuid4()), "workspace_id": workspace, "user_id": owner_id,
                     "name": f"Project {index}", "emoji": "📊", "created_at": moment, "updated_at": moment}
                    for workspace in workspaces for index in range(PROJECTS_PER_WORKSPACE)]
        db.session.execute(insert(Project), projects)
        db.session.commit()
        started, batch, diagram_ids = time.monotonic(), [], []
        for row in _diagram_rows(_sources(), [project["id"] for project in projects], count, rng, moment):
            batch.append(row)
            diagram_ids.append(row["id"])
            if len(batch) == BATCH:
                db.session.execute(insert(Diagram), batch)
                db.session.commit()
                batch = []
        if batch:
            db.session.execute(insert(Diagram), batch)
        db.session.execute(insert(Comment), [
            {"id": str(uuid.uuid4()), "diagram_id": diagram_id, "author_id": owner_id, "body_size": 40,
             "body": f"Check the {rng.choice(WORDS)} step with {rng.choice(IDENTIFIERS)} before release",
             "anchor": {"type": "diagram"}, "mentions": [], "created_at": moment, "updated_at": moment}
            for diagram_id in diagram_ids[::COMMENT_EVERY]])
        db.session.commit()
        print(f"  search: {count} diagrams written and indexed in {time.monotonic() - started:.0f} s", flush=True)
        db.session.execute(text("ANALYZE"))  # what autovacuum does after a load; the planner needs it
        db.session.commit()
        db.session.remove()
    return SimpleNamespace(tokens=members, ids=ids, workspaces=workspaces, projects=[p["id"] for p in projects],
                           app=app)


def _app(env):
    return create_app(env={**env, "APP_ENV": "testing", "OUTBOX_DELIVERY": "external", "EMAIL_BACKEND": "console",
                           "LOG_FORMAT": "text"})


def _params(seeded, filters, session, base_url, q):
    params = {"q": q}
    for name, value in filters.items():
        if name == "workspace_id":
            params[name] = seeded.workspaces[value]
        elif name == "project_id":
            params[name] = seeded.projects[value]
        elif name == "cursor":
            params[name] = expect(session.get(f"{base_url}/api/v1/search", params={"q": q}, timeout=30),
                                  200)["next_cursor"]
        else:
            params[name] = value
    return params


def _statements(seeded, who, params):
    """Statements `find` runs for this search (the route adds the caller's lookup)."""
    counted = []

    def record(*_args):
        counted.append(1)

    with seeded.app.app_context():
        event.listen(db.engine, "before_cursor_execute", record)
        try:
            find(SimpleNamespace(id=seeded.ids[who]), params["q"], **{
                key: value for key, value in params.items() if key != "q"})
        finally:
            event.remove(db.engine, "before_cursor_execute", record)
            db.session.remove()
    return len(counted)


def _percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def measure(base_url, seeded, backend, requests_per_query):
    """A row per search and one for the whole mix: p50/p99 of sequential requests, statements per search."""
    rows, everything, statements = [], [], []
    sessions = {}
    for who, token in seeded.tokens.items():
        sessions[who] = requests.Session()
        sessions[who].headers["Authorization"] = f"Bearer {token}"
    for name, who, q, filters in QUERIES:
        session = sessions[who]
        params = _params(seeded, filters, session, base_url, q)
        hits = expect(session.get(f"{base_url}/api/v1/search", params=params, timeout=30), 200)  # warm
        trips = _statements(seeded, who, params) + 1
        statements.append(trips)
        timings, errors = [], 0
        for _ in range(requests_per_query):
            started = time.perf_counter()
            answer = session.get(f"{base_url}/api/v1/search", params=params, timeout=30)
            timings.append((time.perf_counter() - started) * 1000)
            errors += answer.status_code != 200
        everything += timings
        p50, p99 = round(statistics.median(timings), 1), round(_percentile(timings, 0.99), 1)
        shown = f"{len(hits['items'])}{'+' if hits['next_cursor'] else ''}"
        rows.append({"backend": backend, "endpoint": f"GET /search {name} ({q}): {shown} hits, {trips} round trips",
                     "rps": None, "p50_ms": p50, "p99_ms": p99, "errors": errors, "round_trips": trips})
        print(f"  {backend:6} search {name:24} p50 {p50:6} ms  p99 {p99:6} ms  hits {shown:>3}  round trips {trips}",
              flush=True)
    p50, p99 = round(statistics.median(everything), 1), round(_percentile(everything, 0.99), 1)
    rows.append({"backend": backend, "endpoint": f"GET /search mix over {len(QUERIES)} searches, at most "
                 f"{max(statements)} round trips", "rps": None, "p50_ms": p50, "p99_ms": p99,
                 "errors": sum(row["errors"] for row in rows), "round_trips": max(statements)})
    print(f"  {backend:6} search mix                     p50 {p50:6} ms  p99 {p99:6} ms", flush=True)
    return rows


def run(base_url, env, backend, diagrams, requests_per_query):
    seeded = seed(base_url, env, diagrams)
    try:
        return measure(base_url, seeded, backend, requests_per_query)
    finally:
        with seeded.app.app_context():
            db.session.remove()
            db.engine.dispose()
