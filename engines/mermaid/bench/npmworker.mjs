// One browser-free npm candidate behind the JSON-lines protocol of ../server.mjs, for compare.py:
//   node npmworker.mjs beautiful|isomorphic
// ESM resolves packages beside the script: compare.py copies it into the folder holding their node_modules.
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
const which = process.argv[2];
let renderFn;
if (which === "beautiful") {
  const bm = await import("beautiful-mermaid");
  renderFn = async (src) => { const r = bm.renderMermaidSVG ? bm.renderMermaidSVG(src) : await bm.renderMermaid(src); return typeof r === "string" ? r : (r.svg || String(r)); };
} else {
  const m = (await import("isomorphic-mermaid")).default;
  m.initialize({ startOnLoad: false, securityLevel: "strict", htmlLabels: false, flowchart: { htmlLabels: false }, journey: { textPlacement: "tspan" }, handDrawnSeed: 1 });
  let n = 0;
  renderFn = async (src) => (await m.render("mermaid-svg" + (n++), src)).svg;
}
const pkg = which === "beautiful" ? "beautiful-mermaid" : "isomorphic-mermaid";
const version = JSON.parse(readFileSync(new URL(`./node_modules/${pkg}/package.json`, import.meta.url))).version;
process.stdout.write(JSON.stringify({ ready: true, version }) + "\n");
const rl = createInterface({ input: process.stdin });
rl.on("line", async (line) => {
  const req = JSON.parse(line);
  try { const svg = await renderFn(req.source); process.stdout.write(JSON.stringify({ id: req.id, ok: true, svg }) + "\n"); }
  catch (e) { process.stdout.write(JSON.stringify({ id: req.id, ok: false, message: String(e && e.stack || e).slice(0, 300) }) + "\n"); }
});
