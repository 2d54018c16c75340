"""One browser-free Python candidate behind the JSON-lines protocol of ../server.mjs, for compare.py.

    python pyworker.py mermaidx|mermaidx-v8|merman|mermaid-rs-renderer|merm

Prints {"ready": true, "version": ...} once the candidate is imported and started, then answers each
{"id": n, "source": "..."} line with {"id": n, "ok": true, "svg": "..."} or {"id": n, "ok": false, ...}.
"""
import json
import sys

# What the official engine is asked for too: SVG text labels (no foreignObject), strict security.
MERMAID_CONFIG = {"securityLevel": "strict", "htmlLabels": False, "flowchart": {"htmlLabels": False},
                  "journey": {"textPlacement": "tspan"}, "timeline": {"textPlacement": "tspan"}, "handDrawnSeed": 1}


def candidate(name):
    if name in ("mermaidx", "mermaidx-v8"):
        import mermaidx

        backend = "v8" if name == "mermaidx-v8" else "quickjs"
        from importlib.metadata import version
        return version("mermaidx"), lambda source: mermaidx.render(source, backend=backend, theme="default",
                                                                   config=MERMAID_CONFIG).svg()
    if name in ("merman", "mermaid-rs-renderer"):
        import mmdr

        return f"mmdr {mmdr.__version__}", lambda source: mmdr.render(source, backend=name).svg()
    if name == "merm":
        import merm
        from merm.__version__ import __version__

        return __version__, merm.render_diagram
    raise SystemExit(f"unknown candidate {name}")


def main():
    version, render = candidate(sys.argv[1])
    print(json.dumps({"ready": True, "version": version}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        try:
            answer = {"id": request["id"], "ok": True, "svg": render(request["source"])}
        except Exception as exc:  # noqa: BLE001 - a candidate's failure is a measurement
            message = f"{type(exc).__name__}: {exc}"[:300]
            answer = {"id": request["id"], "ok": False, "kind": "failed", "message": message}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
