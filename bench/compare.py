"""Old code against new code in one run (`bench.run --compare-ref REF`): the autosave scenario
(bench/autosave.py, --only service), the editor capacity search (bench/editor.py, --only editor) and the
four DB-backed reads against the floor (bench/floor.py, --only floor) on REF's code (old) and on the
working tree (new; or on a second ref with --compare-new-ref), on each backend.

REF is checked out with `git worktree add --detach` in a temporary directory, removed at the end (also on
failure or SIGTERM). Both servers use this checkout's venv (the dependencies are the same) and the same
production settings (bench/service.py); each runs from its own tree: cwd there (its wsgi.py and
gunicorn.conf.py), its src/ first on PYTHONPATH (a probe checks that `trazo` and `wsgi` are imported from
it, then the running master's and workers' cwd and PYTHONPATH are checked), its own migrations (`flask db
upgrade` from the tree) on its own database (PostgreSQL `<database>_old` and Redis db `<redis-db> + 1` for
the old side; a new SQLite file each), seeded the same way through HTTP.

Both servers stay up, and the measurements alternate, the order flipping every round (old new, new old,
old new, ...), so a machine that slows down or speeds up during the run affects both sides alike. Each
autosave round is `--duration` seconds; the table gives each side's best round (busy neighbours on a
shared machine only ever lower a figure) and the median.

A read round of a side starts that tree's floor (bench/floor.py under gunicorn, from the tree, on the
side's database and secrets; one floor at a time), then on each read runs wrk on the floor and at once on
the service, `--duration` seconds each, and stops the floor: the ratio service/floor of a read comes from
one round, so the machine's drift between rounds cancels out of it. The table gives each side's median of
those ratios and its best round's service req/s. Results: bench-results/compare.md and .json.
"""
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from . import autosave, editor, load, seed
from .scenarios import floor_reads, ready_floor
from .service import BIN, ROOT, Gunicorn, free_port, production_env, python, reset_database

RESULTS = ROOT / "bench-results"
WARM_SECONDS = 2
AUTOSAVE_FLOOR = 0.90  # the issue: autosave throughput within 10 % of before
PROBE = ("import importlib.util, trazo; print(trazo.__file__); "
         "print(importlib.util.find_spec('wsgi').origin)")


@dataclass
class Tree:
    side: str  # "old" or "new"
    label: str
    path: Path
    sha: str
    temporary: Path | None = None  # the worktree's parent directory, removed at the end


def _git(*args):
    # GIT_OPTIONAL_LOCKS=0: `git status` does not take the index lock (someone may be committing meanwhile).
    completed = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True,
                               env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"})
    if completed.returncode:
        raise RuntimeError(f"git {' '.join(args)}: {completed.stderr.strip()}")
    return completed.stdout.strip()


def add_worktree(side, ref):
    """A detached checkout of `ref` in a new temporary directory, its translations compiled (`make i18n`:
    the .mo files are not in git)."""
    sha = _git("rev-parse", "--verify", f"{ref}^{{commit}}")
    parent = Path(tempfile.mkdtemp(prefix=f"trazo-bench-{side}-"))
    tree = Tree(side, f"{ref} ({sha[:10]})", parent / "trazo", sha, parent)
    try:
        _git("worktree", "add", "--detach", str(tree.path), sha)
        for po in sorted((tree.path / "src").rglob("*.po")):
            subprocess.run([str(BIN / "pybabel"), "-q", "compile", "-i", str(po), "-o", str(po.with_suffix(".mo"))],
                           check=True, capture_output=True)
    except BaseException:
        remove_worktree(tree)
        raise
    print(f"{side}: {tree.label} checked out in {tree.path}", flush=True)
    return tree


def remove_worktree(tree):
    try:
        if (tree.path / ".git").exists():
            _git("worktree", "remove", "--force", str(tree.path))
    except RuntimeError as error:
        print(f"warning: {error}; remove {tree.path} and run `git worktree prune`", file=sys.stderr)
    shutil.rmtree(tree.temporary, ignore_errors=True)


def working_tree():
    sha = _git("rev-parse", "HEAD")
    changed = len(_git("status", "--porcelain", "--untracked-files=no").splitlines())
    return Tree("new", f"working tree ({sha[:10]}{f' + {changed} changed files' if changed else ''})", ROOT, sha)


def tree_env(env, tree):
    """The server's environment: `tree`'s src/ first on PYTHONPATH, ahead of the venv's editable install of
    this checkout; no inherited PROMETHEUS_MULTIPROC_DIR (each gunicorn empties its own)."""
    env = {key: value for key, value in env.items() if key != "PROMETHEUS_MULTIPROC_DIR"}
    env["PYTHONPATH"] = os.pathsep.join([str(tree.path / "src")] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH")
                                                                       else []))
    return env


def _inside(path, tree):
    return Path(path).resolve().is_relative_to(tree.path.resolve())


def check_imports(tree, env):
    """`trazo` and `wsgi` as the server will import them (same cwd, same environment) come from `tree`."""
    completed = subprocess.run([python(), "-c", PROBE], cwd=tree.path, env=env, capture_output=True, text=True)
    files = completed.stdout.split()
    if completed.returncode or len(files) != 2 or not all(_inside(name, tree) for name in files):
        raise RuntimeError(f"{tree.side}: the code is not imported from {tree.path}: {completed.stdout}"
                           f"{completed.stderr}")
    return files


def check_process(server, tree):
    """The running gunicorn (master and workers) works in `tree` with its src/ first on PYTHONPATH."""
    expected = str(tree.path / "src")
    for pid in [server.process.pid, *server.worker_pids()]:
        cwd = os.readlink(f"/proc/{pid}/cwd")
        environ = dict(item.split("=", 1) for item in
                       Path(f"/proc/{pid}/environ").read_text().split("\0") if "=" in item)
        first = environ.get("PYTHONPATH", "").split(os.pathsep)[0]
        if not _inside(cwd, tree) or first != expected:
            raise RuntimeError(f"{tree.side}: gunicorn process {pid} runs in {cwd} with PYTHONPATH starting "
                               f"{first!r}, not in {tree.path}")


class Side:
    """One tree's server on one backend, seeded."""

    def __init__(self, tree, backend, args, extra):
        self.tree = tree
        old = tree.side == "old"
        env = production_env(backend, free_port(), extra, database=f"{args.database}_old" if old else args.database,
                             redis_db=args.redis_db + 1 if old else args.redis_db)
        self.env = tree_env(env, tree)
        self.server = None
        try:
            self.imports = check_imports(tree, self.env)
            reset_database(self.env, cwd=tree.path)
            RESULTS.mkdir(exist_ok=True)
            self.log_path = RESULTS / f"compare-{backend}-{tree.side}.log"
            self.log_path.unlink(missing_ok=True)
            self.floor_log_path = RESULTS / f"compare-{backend}-{tree.side}-floor.log"
            self.floor_log_path.unlink(missing_ok=True)
            self.server = Gunicorn(self.env, log_path=self.log_path, cwd=tree.path)
            check_process(self.server, tree)
            print(f"  {backend:6} {tree.side}: gunicorn in {tree.path}, trazo from {self.imports[0]}", flush=True)
            self.seeded = seed.seed(self.server.base_url, big_project=0)
        except BaseException:
            self.stop()
            raise
        self.autosaves, self.editors, self.reads = [], [], []

    def autosave(self, args, duration):
        return autosave.run(self.server.base_url, self.seeded.token, self.seeded.diagram_ids[1:], args.connections,
                            duration)

    def warm_reads(self, args):
        """Every worker of the service up and warm on each read, WARM_SECONDS each."""
        for _, spec in floor_reads(self.seeded):
            load.wrk(self.server.base_url, **{**spec, "connections": args.connections, "duration": WARM_SECONDS})

    def read_round(self, args):
        """One round of the reads: the tree's floor started (answering each read, warmed), then on each read
        wrk on the floor and right after on the service; the floor stopped at the end, in any case.
        {read: {"service": wrk result, "floor": wrk result, "ratio": service req/s over the floor's}}."""
        results = {}
        with ready_floor(self.env, self.seeded, args.connections, log_path=self.floor_log_path,
                         cwd=self.tree.path) as (floor, reads):
            check_process(floor, self.tree)
            for name, spec in reads:
                spec = {"connections": args.connections, "duration": args.duration, **spec}
                below = load.wrk(floor.base_url, **spec)
                measured = load.wrk(self.server.base_url, **spec)
                results[name] = {"service": measured, "floor": below, "ratio": _share(measured["rps"], below["rps"])}
        return results

    def stop(self):
        if self.server:
            self.server.stop()
        remove_temporary(self.env)


def require_floor(trees):
    """Each tree has the floor the reads are measured against (bench/floor.py)."""
    for tree in trees:
        if not (tree.path / "bench" / "floor.py").exists():
            raise RuntimeError(f"{tree.side}: {tree.label} has no bench/floor.py; leave floor out of --only")


def remove_temporary(env):
    """The instance directory and SQLite file production_env made for one server."""
    shutil.rmtree(env["INSTANCE_PATH"], ignore_errors=True)
    if env["DATABASE_URL"].startswith("sqlite:///"):
        shutil.rmtree(Path(env["DATABASE_URL"].removeprefix("sqlite:///")).parent, ignore_errors=True)


def _orders(trees, rounds):
    """old new, new old, old new, ...: a linear drift weighs on both sides alike over two rounds."""
    return [trees if index % 2 == 0 else trees[::-1] for index in range(rounds)]


def compare_backend(backend, trees, args, extra, parts):
    sides, sequence = {}, []
    try:
        for tree in trees:
            sides[tree.side] = Side(tree, backend, args, extra)
        if "service" in parts:
            for tree in trees:  # every worker up and warm, the diagrams primed
                sides[tree.side].autosave(args, WARM_SECONDS)
            for index, order in enumerate(_orders(trees, args.rounds), start=1):
                for tree in order:
                    result = sides[tree.side].autosave(args, args.duration)
                    sides[tree.side].autosaves.append(result)
                    sequence.append(f"{tree.side} {result['rps']:.0f}")
                    print(f"  {backend:6} round {index} {tree.side}: autosave {result['rps']:>8.1f} req/s  "
                          f"p99 {result['p99_ms']} ms  errors {result['errors']}", flush=True)
        if "floor" in parts:
            compare_reads(backend, trees, sides, args)
        if "editor" in parts:
            for index, order in enumerate(_orders(trees, args.editor_rounds), start=1):
                for tree in order:
                    print(f"  {backend:6} round {index} {tree.side}: editor capacity search "
                          f"(p99 < {editor.P99_TARGET_MS:.0f} ms)", flush=True)
                    sides[tree.side].editors.append(editor.capacity(
                        sides[tree.side].server.base_url, start=args.editor_start, max_users=args.editor_max_users,
                        steady=args.editor_seconds))
    finally:
        for side in sides.values():
            side.stop()
    return {"sequence": sequence, **{side: {"autosave": summarize_autosave(entry.autosaves),
                                            "editor": summarize_editor(entry.editors),
                                            "reads": summarize_reads(entry.reads), "imports": entry.imports}
                                     for side, entry in sides.items()}}


def compare_reads(backend, trees, sides, args):
    """The services warmed on the reads, then `--rounds` read rounds per side, alternating."""
    for tree in trees:
        sides[tree.side].warm_reads(args)
    for index, order in enumerate(_orders(trees, args.rounds), start=1):
        for tree in order:
            results = sides[tree.side].read_round(args)
            sides[tree.side].reads.append(results)
            for name, result in results.items():
                print(f"  {backend:6} round {index} {tree.side}: {name:28} service {result['service']['rps']:>8.1f} "
                      f"req/s  floor {result['floor']['rps']:>8.1f} req/s  ratio {result['ratio']}", flush=True)


def _share(rps, floor_rps):
    """A read's service req/s over its floor's, to 2 decimals (None without a floor figure)."""
    return round(rps / floor_rps, 2) if floor_rps else None


def summarize_autosave(rounds):
    if not rounds:
        return None
    best = max(rounds, key=lambda result: result["rps"])
    p99s = [result["p99_ms"] for result in rounds if result["p99_ms"] is not None]
    return {"best_rps": best["rps"], "best_p99_ms": best["p99_ms"], "best_p50_ms": best["p50_ms"],
            "median_rps": round(statistics.median(result["rps"] for result in rounds), 1),
            "median_p99_ms": round(statistics.median(p99s), 2) if p99s else None,
            "errors": sum(result["errors"] for result in rounds), "rounds": rounds}


def summarize_reads(rounds):
    """Per read: the best round's service req/s and the best floor req/s, the median and the best of the
    rounds' ratios, the errors of both, and every round's figures."""
    if not rounds:
        return None
    summary = {}
    for name in rounds[0]:
        measured = [results[name] for results in rounds]
        ratios = [result["ratio"] for result in measured if result["ratio"] is not None]
        summary[name] = {
            "best_service_rps": max(result["service"]["rps"] for result in measured),
            "best_floor_rps": max(result["floor"]["rps"] for result in measured),
            "median_ratio": round(statistics.median(ratios), 2) if ratios else None,
            "best_ratio": max(ratios, default=None),
            "errors": sum(result["service"]["errors"] + result["floor"]["errors"] for result in measured),
            "rounds": measured}
    return summary


def summarize_editor(searches):
    if not searches:
        return None
    best = max(searches, key=lambda search: search["users_held"])
    return {"users_held": best["users_held"], "capped": best["capped"], "rps": best["rps"],
            "p50_ms": best["p50_ms"], "p99_ms": best["p99_ms"], "errors": best["errors"],
            "searches": searches}


def _row(backend, measure, old, new):
    """One table row: the old and new values and their ratio."""
    return f"| {backend} | {measure} | {old} | {new} | {_ratio(new, old)} |"


def _ratio(new, old):
    return f"{new / old:.2f}" if new and old else "-"


def _users(summary):
    return f"{'>= ' if summary['capped'] else ''}{summary['users_held']}"


def heading(trees, args):
    """The line above the table: the two sides, the cores, and how each part that ran was measured."""
    old, new = trees
    measured = []
    if "service" in args.only:
        measured.append(f"autosave: {args.connections} connections, each on its own diagram, {args.rounds} "
                        f"round(s) of {args.duration} s per side")
    if "editor" in args.only:
        measured.append(f"editor: {args.editor_rounds} search(es) per side")
    if "floor" in args.only:
        measured.append(f"reads: {args.connections} connections, {args.rounds} round(s) per side, each read "
                        f"{args.duration} s on the side's floor then {args.duration} s on its service")
    return f"Old: {old.label}. New: {new.label}. {os.cpu_count()} CPU cores; {'; '.join(measured)}."


def table(results, trees, args):
    lines = [heading(trees, args), "", "| backend | measure | old | new | new/old |", "|---|---|---:|---:|---:|"]
    notes = []
    for backend, sides in results.items():
        before, after = sides["old"], sides["new"]
        if before["autosave"] and after["autosave"]:
            a, b = before["autosave"], after["autosave"]
            lines += [
                _row(backend, "autosave PUT req/s, best round", round(a["best_rps"]), round(b["best_rps"])),
                _row(backend, "autosave PUT req/s, median", round(a["median_rps"]), round(b["median_rps"])),
                _row(backend, "autosave PUT p99 ms, best round", a["best_p99_ms"], b["best_p99_ms"]),
                _row(backend, "autosave PUT p99 ms, median", a["median_p99_ms"], b["median_p99_ms"]),
                f"| {backend} | autosave errors, all rounds | {a['errors']} | {b['errors']} | - |",
            ]
            ratio = b["best_rps"] / a["best_rps"] if a["best_rps"] else 0
            verdict = "within" if ratio >= AUTOSAVE_FLOOR else "NOT within"
            notes.append(f"- {backend}: autosave new/old {ratio:.2f} on the best rounds: {verdict} 10 % "
                         f"(rounds in order, req/s: {', '.join(sides['sequence'])})")
            if a["errors"] or b["errors"]:
                notes.append(f"- {backend}: autosave answered errors (old {a['errors']}, new {b['errors']}): "
                             f"see bench-results/compare-{backend}-*.log")
        if before["editor"] and after["editor"]:
            a, b = before["editor"], after["editor"]
            lines += [
                f"| {backend} | editor capacity, users (p99 < {editor.P99_TARGET_MS:.0f} ms) | {_users(a)} "
                f"| {_users(b)} | {_ratio(b['users_held'], a['users_held'])} |",
                _row(backend, "editor p99 ms at that step", a["p99_ms"], b["p99_ms"]),
            ]
            for side, summary in (("old", a), ("new", b)):
                steps = "; ".join(", ".join(f"{step['users']} {'held' if step['held'] else 'not held'} "
                                            f"(p99 {step['p99_ms']} ms)" for step in search["steps"])
                                  for search in summary["searches"])
                notes.append(f"- {backend}: editor search {side}: {steps}")
        if before["reads"] and after["reads"]:
            read_lines, read_notes = read_rows(backend, before["reads"], after["reads"])
            lines += read_lines
            notes += read_notes
    return "\n".join(lines + [""] + notes)


def read_rows(backend, before, after):
    """The table's rows for the reads (per read: the median ratio to the floor, the best service req/s) and
    the notes (per side and read: each round's service req/s, floor req/s and ratio, in round order)."""
    lines, notes = [], []
    for name in before:
        a, b = before[name], after[name]
        lines += [_row(backend, f"{name} ratio to floor, median of rounds", a["median_ratio"], b["median_ratio"]),
                  _row(backend, f"{name} service req/s, best round", round(a["best_service_rps"]),
                       round(b["best_service_rps"]))]
    for side, reads in (("old", before), ("new", after)):
        for name, summary in reads.items():
            rounds = ", ".join(f"({result['service']['rps']:.0f}, {result['floor']['rps']:.0f}, "
                               f"{_cell(result['ratio'])})" for result in summary["rounds"])
            notes.append(f"- {backend}: {name} {side}, rounds (service req/s, floor req/s, ratio): {rounds}; best "
                         f"ratio {_cell(summary['best_ratio'])}, best floor {summary['best_floor_rps']:.0f} req/s"
                         + (f", {summary['errors']} errors" if summary["errors"] else ""))
    return lines, notes


def _cell(value):
    return "-" if value is None else value


def run(args, extra):
    """Check the trees out, compare on each backend, write the results; the worktrees go in every case."""
    parts = [part for part in args.only if part in ("service", "editor", "floor")]  # the ceiling does not apply
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    trees = []
    try:
        trees.append(add_worktree("old", args.compare_ref))
        trees.append(add_worktree("new", args.compare_new_ref) if args.compare_new_ref else working_tree())
        if "floor" in parts:
            require_floor(trees)
        print(f"comparing old = {trees[0].label} with new = {trees[1].label}", flush=True)
        results = {}
        for backend in args.backends.split(","):
            print(f"comparing on {backend} ...", flush=True)
            results[backend] = compare_backend(backend, trees, args, extra, parts)
        report = table(results, trees, args)
        print(f"\n{report}")
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / "compare.md").write_text(report + "\n")
        (RESULTS / "compare.json").write_text(json.dumps({
            "cores": os.cpu_count(), "old": {"label": trees[0].label, "sha": trees[0].sha},
            "new": {"label": trees[1].label, "sha": trees[1].sha},
            "connections": args.connections, "duration": args.duration, "rounds": args.rounds,
            "editor_rounds": args.editor_rounds, "parts": parts, "backends": results}, indent=2))
        print("wrote bench-results/compare.md and compare.json")
    finally:
        for tree in trees:
            if tree.temporary:
                remove_worktree(tree)
        signal.signal(signal.SIGTERM, previous)
