"""Measure Mermaid engines on the same 10 diagrams (tests/fixtures/mermaid/*.mmd): cold start, warm
latency, memory, and fidelity against the official renderer (Mermaid in headless Chromium).
docs/mermaid-engine.md has the results and the method.

Every candidate runs as its own process behind one JSON-lines protocol (../server.mjs's), so that
start-up and memory are measured the same way for all:

    python compare.py --python VENV/bin/python --npm-dir DIR [--reference-11 DIR] [--out results.json]

--python: a Python with the browser-free PyPI candidates (mermaidx, mini-racer, mmdr, merm, pillow,
resvg-cli); --npm-dir: a folder whose node_modules holds beautiful-mermaid and isomorphic-mermaid;
--reference-11: a copy of ../server.mjs beside node_modules with mermaid 11.16.0 (the version mermaidx
bundles), to tell a version's differences from an engine's. Needs chromium and the engine's npm install.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from xml.etree import ElementTree

HERE = Path(__file__).resolve().parent
ENGINE = HERE.parent
FIXTURES = sorted((ENGINE.parent.parent / "tests" / "fixtures" / "mermaid").glob("*.mmd"))
SHAPES = ("rect", "circle", "ellipse", "polygon", "path", "line", "polyline")
RASTER_WIDTH = 600


class Worker:
    """One candidate process: started, asked, measured, stopped."""

    def __init__(self, command, cwd=None, env=None):
        self.command, self.cwd, self.env = command, cwd, {**os.environ, **(env or {})}
        self.process = None
        self.hello = None
        self.next_id = 0

    def start(self):
        self.process = subprocess.Popen(self.command, cwd=self.cwd, env=self.env, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                        start_new_session=True)
        self.hello = json.loads(self.process.stdout.readline())
        if not self.hello.get("ready"):
            raise RuntimeError(f"{self.command}: {self.hello}")

    def render(self, source):
        self.next_id += 1
        self.process.stdin.write(json.dumps({"id": self.next_id, "source": source, "theme": "default",
                                             "timeout_ms": 60000}) + "\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())

    def memory(self):
        """(RSS, PSS) in MiB summed over the process and its descendants. PSS shares each shared page
        among the processes that map it: the honest total for a tree of Chromium processes."""
        rss = pss = 0
        for pid in _tree(self.process.pid):
            try:
                for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                    if line.startswith("Rss:"):
                        rss += int(line.split()[1])
                    elif line.startswith("Pss:"):
                        pss += int(line.split()[1])
            except OSError:
                pass
        return rss / 1024, pss / 1024

    def stop(self):
        try:
            self.process.stdin.close()
            self.process.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            os.killpg(self.process.pid, 9)
            self.process.wait()


def _tree(pid):
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        for task in Path(f"/proc/{current}/task").glob("*"):
            try:
                todo.extend(int(child) for child in (task / "children").read_text().split())
            except OSError:
                pass
    return found


def measure(worker, sources, rounds):
    began = time.monotonic()
    worker.start()
    first = worker.render(sources[0])
    cold = time.monotonic() - began
    results = {}
    for path, source in zip(FIXTURES, sources, strict=True):  # warm-up: each diagram once
        results[path.stem] = worker.render(source)
    times = {path.stem: [] for path in FIXTURES}
    for _ in range(rounds):
        for path, source in zip(FIXTURES, sources, strict=True):
            began = time.monotonic()
            answer = worker.render(source)
            times[path.stem].append(time.monotonic() - began)
            if not answer.get("ok"):
                times[path.stem][-1] = None
    rss, pss = worker.memory()
    version = worker.hello.get("mermaid") or worker.hello.get("version")
    worker.stop()
    warm = {name: statistics.median(values) if values and None not in values else None
            for name, values in times.items()}
    return {"version": version, "cold_s": cold, "first_ok": bool(first.get("ok")), "warm_s": warm,
            "rss_mib": rss, "pss_mib": pss, "answers": results}


# -- fidelity ---------------------------------------------------------------------------------------

def _local(tag):
    return tag.rsplit("}", 1)[-1].lower()


def structure(svg):
    """The labels (words of every text run) and the count of each drawing element."""
    root = ElementTree.fromstring(svg)
    words, counts = [], dict.fromkeys(SHAPES, 0)
    for element in root.iter():
        name = _local(element.tag)
        if name in counts:
            counts[name] += 1
        if name in ("text", "tspan", "div", "span", "p", "title") and element.text:
            words.extend(re.findall(r"\w+", element.text.lower()))
    return words, counts


def text_recall(reference_words, words):
    """The share of the reference's label words (with repeats) that the candidate draws."""
    pool = {}
    for word in words:
        pool[word] = pool.get(word, 0) + 1
    hits = 0
    for word in reference_words:
        if pool.get(word, 0) > 0:
            pool[word] -= 1
            hits += 1
    return hits / len(reference_words) if reference_words else 1.0


def shape_similarity(reference, counts):
    """1 - the relative difference of drawn shapes (paths, rects, ...), all kinds summed."""
    a, b = sum(reference.values()), sum(counts.values())
    return 1 - abs(a - b) / max(a, b, 1)


def rasterize(svg, resvg, workdir, name):
    svg_path, png_path = Path(workdir, name + ".svg"), Path(workdir, name + ".png")
    svg_path.write_text(svg)
    # Chromium draws "arial" (Mermaid's CSS names it) with Liberation Sans here: resvg is told the same.
    subprocess.run([resvg, "-w", str(RASTER_WIDTH), "--background", "white", "--sans-serif-family", "Liberation Sans",
                    "--font-family", "Liberation Sans", str(svg_path), str(png_path)],
                   check=True, capture_output=True, timeout=60)
    return png_path


def ink_iou(reference_png, png):
    """Both pictures scaled to the reference's size; the share of 'ink' (non-white) pixels they have in
    common (intersection over union) after a 2-pixel dilation, which forgives a line one pixel off."""
    from PIL import Image, ImageChops, ImageFilter

    reference = Image.open(reference_png).convert("L")
    other = Image.open(png).convert("L").resize(reference.size)
    ink = [image.point(lambda value: 255 if value < 200 else 0).filter(ImageFilter.MaxFilter(5))
           for image in (reference, other)]
    intersection = ImageChops.multiply(ink[0], ink[1]).histogram()[255]
    union = ImageChops.lighter(ink[0], ink[1]).histogram()[255]
    return intersection / union if union else 1.0


def fidelity(reference, candidate, resvg, workdir, label, reference_label="ref"):
    rows = {}
    for name, answer in candidate["answers"].items():
        official = reference["answers"][name]
        if not answer.get("ok"):
            rows[name] = None
            continue
        ref_words, ref_counts = structure(official["svg"])
        words, counts = structure(answer["svg"])
        try:
            iou = ink_iou(rasterize(official["svg"], resvg, workdir, f"{reference_label}-{name}"),
                          rasterize(answer["svg"], resvg, workdir, f"{label}-{name}"))
        except (subprocess.CalledProcessError, OSError):
            iou = None
        rows[name] = {"text": text_recall(ref_words, words), "shapes": shape_similarity(ref_counts, counts),
                      "ink_iou": iou, "foreign_object": "<foreignObject" in answer["svg"]}
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--python", required=True)
    parser.add_argument("--npm-dir", required=True)
    parser.add_argument("--reference-11")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--colds", type=int, default=2)
    parser.add_argument("--out", default="results.json")
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--svg-dir", help="keep each candidate's SVGs (and the PNGs compared) here")
    args = parser.parse_args()
    sources = [path.read_text() for path in FIXTURES]
    shutil.copy(HERE / "npmworker.mjs", Path(args.npm_dir, "npmworker.mjs"))
    candidates = {
        "official (Chromium, mermaid 12.3.0)": lambda: Worker(["node", str(ENGINE / "server.mjs")]),
        "mermaidx (QuickJS)": lambda: Worker([args.python, str(HERE / "pyworker.py"), "mermaidx"]),
        "mermaidx (V8, mini-racer)": lambda: Worker([args.python, str(HERE / "pyworker.py"), "mermaidx-v8"]),
        "isomorphic-mermaid (jsdom+svgdom)": lambda: Worker(["node", "npmworker.mjs", "isomorphic"], cwd=args.npm_dir),
        "merman (Rust, via mmdr)": lambda: Worker([args.python, str(HERE / "pyworker.py"), "merman"]),
        "mermaid-rs-renderer (Rust, via mmdr)": lambda: Worker([args.python, str(HERE / "pyworker.py"),
                                                                "mermaid-rs-renderer"]),
        "merm (pure Python)": lambda: Worker([args.python, str(HERE / "pyworker.py"), "merm"]),
        "beautiful-mermaid (TypeScript)": lambda: Worker(["node", "npmworker.mjs", "beautiful"], cwd=args.npm_dir),
    }
    if args.reference_11:
        candidates["official (Chromium, mermaid 11.16.0)"] = lambda: Worker(
            ["node", str(Path(args.reference_11, "server.mjs"))])
    resvg = str(Path(args.python).parent / "resvg")
    report = {}
    for label, make in candidates.items():
        if args.only and not any(word in label for word in args.only) and "12.3.0" not in label:
            continue
        runs = [measure(make(), sources, args.rounds if i == 0 else 0) for i in range(args.colds)]
        result = runs[0]
        result["cold_s"] = statistics.mean(run["cold_s"] for run in runs)
        result["rss_mib"] = max(run["rss_mib"] for run in runs)  # after the warm rounds: the first run
        result["pss_mib"] = max(run["pss_mib"] for run in runs)
        report[label] = result
        print(label, result["version"], f"cold {result['cold_s']:.2f}s", f"PSS {result['pss_mib']:.0f} MiB",
              {k: (round(v * 1000) if v else None) for k, v in result["warm_s"].items()}, flush=True)
    reference = report["official (Chromium, mermaid 12.3.0)"]
    with tempfile.TemporaryDirectory() as scratch:
        workdir = args.svg_dir or scratch
        os.makedirs(workdir, exist_ok=True)
        for label, result in report.items():
            result["fidelity"] = fidelity(reference, result, resvg, workdir, re.sub(r"\W+", "-", label))
            if "11.16.0" in label:
                for other in report:
                    if "official" not in other:
                        report[other]["fidelity_vs_11"] = fidelity(result, report[other], resvg, workdir,
                                                                   re.sub(r"\W+", "-", other) + "-11", "ref-11")
    for label, result in report.items():
        slug = re.sub(r"[^\w.]+", "-", label)
        for name, answer in result["answers"].items():
            svg = answer.pop("svg", None)
            if args.svg_dir and svg:
                Path(args.svg_dir, f"{slug}-{name}.svg").write_text(svg)
    Path(args.out).write_text(json.dumps(report, indent=1))
    print_table(report)


def _mean(values):
    values = [value for value in values if value is not None]
    return statistics.mean(values) if values else None


def print_table(report):
    print("| engine | version | renders | cold (s) | warm median (ms) | warm max (ms) | PSS (MiB) | RSS (MiB) "
          "| text | shapes | ink IoU | foreignObject |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for label, result in report.items():
        rows = result["fidelity"]
        ok = [name for name, row in rows.items() if row]
        warm = [value for value in result["warm_s"].values() if value is not None]

        def average(key, rows=rows, failed=len(rows) - len(ok)):
            value = _mean([row[key] for row in rows.values() if row] + [0.0] * failed)
            return f"{value:.2f}" if value is not None else "-"
        print(f"| {label} | {result['version']} | {len(ok)}/10 | {result['cold_s']:.2f} | "
              f"{statistics.median(warm) * 1000:.0f} | {max(warm) * 1000:.0f} | {result['pss_mib']:.0f} | "
              f"{result['rss_mib']:.0f} | {average('text')} | {average('shapes')} | {average('ink_iou')} | "
              f"{sum(1 for name in ok if rows[name]['foreign_object'])} |" if warm else f"| {label} | - |")


if __name__ == "__main__":
    sys.exit(main())
