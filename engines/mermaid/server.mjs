// Official Mermaid in headless Chromium, for one Trazo worker.
//
// One long-lived browser and a pool of MERMAID_PAGES pages that already hold mermaid.min.js, each in a
// browser context of its own (never sharing a renderer process). A page draws up to MERMAID_PAGE_REUSE
// diagrams (a warm page runs Mermaid JIT-compiled, about 4x faster than a fresh one; Mermaid's config
// and random generator are reset before each) and is replaced at once after an error, a timeout or a
// crash, by a fresh page built while nobody waits for it.
//
// Protocol: JSON lines. On start the server prints
// {"ready": true, "mermaid": "...", "externals": {"zenuml": "..."}, "browser": "..."}
// (or {"ready": false, "message": "..."} and exits). Then each request on stdin
//   {"id": 1, "source": "graph TD; a-->b", "theme": "default", "timeout_ms": 10000}
// gets one answer on stdout, in any order:
//   {"id": 1, "ok": true, "svg": "<svg ..."}
//   {"id": 1, "ok": false, "kind": "syntax" | "timeout" | "limit" | "failed", "message": "..."}
// The server stops when stdin closes.
//
// Nothing a diagram names is fetched: every request of a page other than the page itself and the
// script is aborted (request interception), the page's Content-Security-Policy allows no other source,
// and the browser's proxy is a closed port on the loopback for every host, the loopback included.
//
// Each page's renderer process is bounded by a watchdog besides V8's heap flag and the render's timeout:
// while a render runs, every renderer process of the browser is read from /proc (CPU time, resident
// memory) every WATCH_MS; one that has used more than MERMAID_CPU_SECONDS of CPU since it was last idle
// (one render: a page draws one diagram at a time and idles between them) or holds more than
// MERMAID_MEMORY_MB is killed. Its page crashes, the render answers "limit", and the page is replaced.

import { readFileSync, readdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import puppeteer from "puppeteer-core";

const HERE = dirname(fileURLToPath(import.meta.url));
const PAGES = Math.max(1, parseInt(process.env.MERMAID_PAGES || "2", 10));
const MAX_SVG_BYTES = parseInt(process.env.MERMAID_MAX_SVG_BYTES || String(10 * 1024 * 1024), 10);
const MAX_TEXT_SIZE = parseInt(process.env.MERMAID_MAX_TEXT_SIZE || "100000", 10);
const MAX_EDGES = parseInt(process.env.MERMAID_MAX_EDGES || "2000", 10);
const HEAP_MB = parseInt(process.env.MERMAID_HEAP_MB || "512", 10);
// Renders per page before it is replaced by a fresh one (a page whose render failed is replaced at once).
// A page that already drew runs Mermaid JIT-compiled: about 4x faster than a fresh page.
const REUSE = Math.max(1, parseInt(process.env.MERMAID_PAGE_REUSE || "100", 10));
const INLINE_STYLES = process.env.MERMAID_INLINE_STYLES !== "0";
const CPU_SECONDS = parseFloat(process.env.MERMAID_CPU_SECONDS || "10");
const MEMORY_MB = parseInt(process.env.MERMAID_MEMORY_MB || "512", 10);
const WATCH_MS = 200;
const IDLE_CPU_SECONDS = 0.02; // less CPU than this between two looks: the renderer was idle
const CLOCK_TICKS = 100; // /proc's CPU times are in USER_HZ, 100 on Linux
const THEMES = new Set(["default", "dark", "neutral", "forest", "base"]);

const ORIGIN = "http://mermaid.invalid";
const PAGE_URL = `${ORIGIN}/`;
const SCRIPT_URL = `${ORIGIN}/mermaid.min.js`;
const EXTERNALS_URL = `${ORIGIN}/externals/`;
const MERMAID_JS = readFileSync(join(HERE, "node_modules/mermaid/dist/mermaid.min.js"));
const MERMAID_VERSION = JSON.parse(readFileSync(join(HERE, "node_modules/mermaid/package.json"), "utf8")).version;

// Mermaid's external diagrams, registered in every page from the pinned npm packages. Each one's
// self-contained ES module build (an entry and the chunks it imports by relative paths) is read into
// memory here, at start, and served to the page under EXTERNALS_URL by the request interception, like
// the page and mermaid.min.js; the page asks for a diagram's larger chunks the first time it draws one.
// A package that is not installed is left out: Mermaid draws without it. (ELK needs no external:
// Mermaid 12 bundles it, and it is the default layout.)
const EXTERNAL_DIAGRAMS = [
  { name: "zenuml", package: "@mermaid-js/mermaid-zenuml", entry: "mermaid-zenuml.esm.min.mjs",
    chunks: "chunks/mermaid-zenuml.esm.min" },
];
const EXTERNAL_FILES = new Map(); // URL -> module text
const EXTERNALS = {};             // name -> package version, for the ready line
const EXTERNAL_ENTRIES = [];
for (const external of EXTERNAL_DIAGRAMS) {
  const dist = join(HERE, "node_modules", external.package, "dist");
  const base = `${EXTERNALS_URL}${external.name}/`;
  try {
    const version = JSON.parse(readFileSync(join(dist, "..", "package.json"), "utf8")).version;
    const files = [[base + external.entry, readFileSync(join(dist, external.entry))]];
    for (const file of readdirSync(join(dist, external.chunks))) {
      if (file.endsWith(".mjs")) files.push([`${base}${external.chunks}/${file}`, readFileSync(join(dist, external.chunks, file))]);
    }
    for (const [url, body] of files) EXTERNAL_FILES.set(url, body);
    EXTERNAL_ENTRIES.push(base + external.entry);
    EXTERNALS[external.name] = version;
  } catch {
    log(`${external.package} is not installed (npm ci --prefix ${HERE}): Mermaid draws no ${external.name}`);
  }
}
const CSP = "default-src 'none'; script-src " + SCRIPT_URL + " " + EXTERNALS_URL + " 'unsafe-inline'; " +
  "style-src 'unsafe-inline'; img-src data:; font-src data:; connect-src 'none'; frame-src 'none'; " +
  "form-action 'none'; base-uri 'none'";
// A module script registers the externals (lazily: only their detectors until a diagram needs one);
// newPage waits for window.externalsRegistered.
const REGISTER_SCRIPT = EXTERNAL_ENTRIES.map((url, index) => `import external${index} from ${JSON.stringify(url)};`)
  .join("\n") + `\nwindow.externalsRegistered = window.mermaid.registerExternalDiagrams([${
  EXTERNAL_ENTRIES.map((_url, index) => `external${index}`).join(", ")}]).then(() => true);`;
const PAGE_HTML = `<!doctype html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<script src="${SCRIPT_URL}"></script>
<script type="module">${REGISTER_SCRIPT}</script></head><body><div id="host"></div></body></html>`;

function log(message) {
  process.stderr.write(`mermaid-engine: ${message}\n`);
}

function send(answer) {
  process.stdout.write(JSON.stringify(answer) + "\n");
}

function chromiumPath() {
  return process.env.MERMAID_CHROMIUM || process.env.PUPPETEER_EXECUTABLE_PATH || "/usr/bin/chromium";
}

let browser = null;
let userDataDir = null;
const idle = [];          // pages ready to draw
const waiting = [];       // renders waiting for a page
let building = 0;         // pages being prepared
let busy = 0;             // pages drawing: idle + building + busy never exceeds PAGES
let blocked = 0;          // requests of pages refused (anything but the page and its script)
let renders = 0;
let stopped = 0;          // renderer processes killed by the watchdog
let browserSession = null;
let warnedExternals = false;
const renderers = new Map(); // pid -> {start, last}: CPU seconds when its busy stretch began, at the last look
const others = new Set();    // pids that are not this browser's renderers

function procStat(pid) {
  const text = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return { session: Number(fields[3]), cpu: (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS };
}

function session(pid) {
  try {
    return procStat(pid).session;
  } catch {
    return null;
  }
}

function residentMb(pid) {
  const found = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return found ? Number(found[1]) / 1024 : 0;
}

// The watchdog (see the top of this file); it reads /proc only while a render runs.
function watch() {
  if (busy === 0 || browserSession === null) return;
  let pids;
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return;
  }
  const present = new Set(pids);
  for (const pid of renderers.keys()) if (!present.has(pid)) renderers.delete(pid);
  for (const pid of others) if (!present.has(pid)) others.delete(pid);
  for (const pid of pids) {
    if (others.has(pid)) continue;
    try {
      const stat = procStat(pid);
      let seen = renderers.get(pid);
      if (!seen) {
        if (stat.session !== browserSession || !readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("--type=renderer")) {
          others.add(pid);
          continue;
        }
        seen = { start: stat.cpu, last: stat.cpu };
        renderers.set(pid, seen);
      }
      if (stat.cpu - seen.last < IDLE_CPU_SECONDS) seen.start = stat.cpu;
      seen.last = stat.cpu;
      const memory = MEMORY_MB > 0 ? residentMb(pid) : 0;
      const over = stat.cpu - seen.start > CPU_SECONDS ? `more than ${CPU_SECONDS} s of CPU in one render`
        : memory > MEMORY_MB ? `${Math.round(memory)} MiB of memory, more than ${MEMORY_MB}` : null;
      if (over) {
        stopped += 1;
        renderers.delete(pid);
        log(`stopped a page's renderer process: ${over}`);
        process.kill(Number(pid), "SIGKILL");
      }
    } catch {
      // the process ended meanwhile
    }
  }
}

async function launch() {
  userDataDir = mkdtempSync(join(tmpdir(), "trazo-mermaid-"));
  browser = await puppeteer.launch({
    executablePath: chromiumPath(),
    headless: true,
    pipe: true, // DevTools over a pipe: no debugging port is opened
    userDataDir,
    handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false,
    protocolTimeout: 60000,
    args: [
      "--no-sandbox", "--disable-setuid-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--no-default-browser-check", "--disable-background-networking", "--disable-component-update",
      "--disable-sync", "--disable-extensions", "--disable-default-apps", "--disable-breakpad",
      "--disable-crash-reporter", "--disable-domain-reliability", "--disable-client-side-phishing-detection",
      "--disable-features=Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider,AutofillServerCommunication,SpareRendererForSitePerProcess",
      "--metrics-recording-only", "--mute-audio", "--no-pings", "--password-store=basic", "--use-mock-keychain",
      "--disable-dev-shm-usage", "--renderer-process-limit=" + String(PAGES + 1),
      "--disable-software-rasterizer", "--in-process-gpu",
      "--proxy-server=http://127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
      "--host-resolver-rules=MAP * ~NOTFOUND",
      `--js-flags=--max-old-space-size=${HEAP_MB}`,
    ],
  });
  for (const page of await browser.pages()) await page.close(); // the start page: one renderer less
  browserSession = session(browser.process().pid);
  setInterval(watch, WATCH_MS).unref();
  browser.on("disconnected", () => {
    if (!stopping) {
      log("the browser went away");
      process.exit(3);
    }
  });
}

async function newPage() {
  // A browser context of its own: pages never share a renderer process, so one stuck in a script
  // holds no other, and closing its context ends that process.
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  page.uses = 0;
  await page.setRequestInterception(true);
  page.on("request", (request) => {
    const url = request.url();
    if (url === PAGE_URL) {
      request.respond({ status: 200, contentType: "text/html; charset=utf-8", body: PAGE_HTML });
    } else if (url === SCRIPT_URL) {
      request.respond({ status: 200, contentType: "text/javascript; charset=utf-8", body: MERMAID_JS });
    } else if (EXTERNAL_FILES.has(url)) {
      request.respond({ status: 200, contentType: "text/javascript; charset=utf-8", body: EXTERNAL_FILES.get(url) });
    } else {
      blocked += 1;
      request.abort("blockedbyclient");
    }
  });
  page.on("dialog", (dialog) => dialog.dismiss().catch(() => {}));
  page.on("error", () => {
    // Its renderer died (the watchdog, or out of memory): an idle page is replaced at once.
    page.crashed = true;
    const index = idle.indexOf(page);
    if (index >= 0) {
      idle.splice(index, 1);
      discard(page, false);
      refill();
    }
  });
  await page.goto(PAGE_URL, { waitUntil: "load", timeout: 30000 });
  const ok = await page.evaluate(() => typeof window.mermaid === "object");
  if (!ok) throw new Error("mermaid did not load in the page");
  if (EXTERNAL_ENTRIES.length && !(await page.evaluate(() => window.externalsRegistered).catch(() => false))
      && !warnedExternals) {
    warnedExternals = true;
    log("the external diagrams did not register: Mermaid draws without them");
  }
  return page;
}

function refill() {
  while (!stopping && idle.length + building + busy < PAGES) {
    building += 1;
    newPage().then((page) => {
      building -= 1;
      const next = waiting.shift();
      if (next) next(page); else idle.push(page);
    }, (error) => {
      building -= 1;
      if (stopping) return;
      log(`cannot prepare a page: ${error.message}`);
      setTimeout(refill, 500);
    });
  }
}

function takePage() {
  const page = idle.shift();
  if (page) {
    busy += 1;
    return Promise.resolve(page);
  }
  refill();
  return new Promise((resolve) => waiting.push((ready) => {
    busy += 1;
    resolve(ready);
  }));
}

function release(page, replace) {
  busy -= 1;
  if (replace) {
    refill();
    return;
  }
  const next = waiting.shift();
  if (next) next(page); else idle.push(page);
}

async function discard(page, hung) {
  try {
    if (hung) {
      // A script that never returns holds the renderer: stop it so the page can close.
      const session = await Promise.race([page.createCDPSession(), sleep(1000)]);
      if (session) await Promise.race([session.send("Runtime.terminateExecution"), sleep(1000)]).catch(() => {});
    }
    await Promise.race([page.browserContext().close(), sleep(5000)]);
  } catch (error) {
    if (!stopping) log(`cannot close a page: ${error.message}`);
  }
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// Runs inside the page.
async function draw(source, theme, settings) {
  // The SVG with the style each drawn element got from Mermaid's style sheet
  // written on the element itself. SVG rasterizers read only part of CSS (resvg skips `!important`,
  // `transparent` and some selectors: hollow arrowheads came out filled), so the picture a rasterizer
  // draws from this SVG is the one Chromium drew.
  function withInlineStyles(svg) {
    const host = document.getElementById("host");
    host.innerHTML = svg;
    const root = host.querySelector("svg");
    const SHAPE = ["fill", "fill-opacity", "stroke", "stroke-width", "stroke-dasharray", "stroke-opacity", "opacity"];
    const TEXT = ["fill", "stroke", "font-family", "font-size", "font-weight", "font-style", "opacity"];
    const shapes = new Set(["path", "rect", "circle", "ellipse", "polygon", "polyline", "line"]);
    for (const element of root.querySelectorAll("path, rect, circle, ellipse, polygon, polyline, line, text, tspan")) {
      const computed = getComputedStyle(element);
      const names = shapes.has(element.localName) ? SHAPE : TEXT;
      const parts = [];
      for (const name of names) {
        let value = computed.getPropertyValue(name);
        if (!value) continue;
        if ((name === "fill" || name === "stroke") && /^rgba\([^)]*,\s*0\)$/.test(value)) value = "none";
        if (name === "opacity" && value === "1") continue;
        // A text in Helvetica or Arial (ZenUML's own style names Helvetica) is laid out here with
        // Liberation Sans, their metric twin: say so, for a rasterizer that does not alias them.
        if (name === "font-family" && /^\s*["']?(helvetica|arial)["']?\s*(,|$)/i.test(value)
            && !/liberation sans/i.test(value)) {
          value = value.replace(/^([^,]*)/, '$1, "Liberation Sans"');
        }
        parts.push(`${name}:${value}`);
      }
      if (computed.display === "none") parts.push("display:none");
      if (parts.length) element.setAttribute("style", parts.join(";"));
    }
    const out = new XMLSerializer().serializeToString(root);
    host.innerHTML = "";
    return out;
  }

  const mermaid = window.mermaid;
  // The same source draws the same picture on every worker: Mermaid's random choices (hand-drawn
  // jitter, gitGraph's commit ids) come from a generator seeded afresh for each render (mulberry32).
  let seed = 0x7261_7a6f;
  Math.random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  mermaid.initialize({
    startOnLoad: false,
    securityLevel: "strict",
    theme,
    // Arial's metrics, whatever the host: Chromium on Linux lays "arial" out with Liberation Sans (its
    // metric twin), resvg finds "Liberation Sans" by name, and a viewer elsewhere has Arial. Mermaid's
    // own first choice, "trebuchet ms", is laid out here with another font than a Windows viewer uses.
    fontFamily: 'arial, "Liberation Sans", sans-serif',
    themeVariables: { fontFamily: 'arial, "Liberation Sans", sans-serif' },
    deterministicIds: true,
    deterministicIDSeed: "trazo",
    handDrawnSeed: 1,
    htmlLabels: false,
    flowchart: { htmlLabels: false },
    class: { htmlLabels: false },
    state: { htmlLabels: false },
    journey: { textPlacement: "tspan" },
    timeline: { textPlacement: "tspan" },
    markdownAutoWrap: true,
    suppressErrorRendering: true,
    maxTextSize: settings.maxTextSize,
    maxEdges: settings.maxEdges,
    secure: ["secure", "securityLevel", "startOnLoad", "maxTextSize", "suppressErrorRendering", "maxEdges",
      "htmlLabels", "themeCSS", "dompurifyConfig"],
  });
  try {
    const { svg } = await mermaid.render("mermaid-svg", source, document.getElementById("host"));
    return { ok: true, svg: settings.inlineStyles ? withInlineStyles(svg) : svg };
  } catch (error) {
    const message = String((error && (error.message || error.str)) || error);
    const hash = error && error.hash && error.hash.loc ? error.hash.loc.first_line : null;
    return { ok: false, message, line: hash };
  }
}

async function render(request) {
  const theme = THEMES.has(request.theme) ? request.theme : "default";
  const timeoutMs = Math.max(100, Math.min(request.timeout_ms || 10000, 600000));
  if (Buffer.byteLength(request.source || "", "utf8") > MAX_TEXT_SIZE) {
    return { kind: "limit", message: `the source is larger than ${MAX_TEXT_SIZE} bytes` };
  }
  const started = Date.now();
  const page = await takePage();
  let timer;
  const expired = new Promise((resolve) => {
    timer = setTimeout(() => resolve("timeout"), Math.max(1, timeoutMs - (Date.now() - started)));
  });
  const crashed = new Promise((resolve) => page.once("error", () => resolve("crashed")));
  let hung = false;
  let answer;
  try {
    const result = await Promise.race([
      page.evaluate(draw, request.source, theme, { maxTextSize: MAX_TEXT_SIZE, maxEdges: MAX_EDGES,
        inlineStyles: INLINE_STYLES }), expired, crashed,
    ]);
    if (result === "timeout") {
      hung = true;
      answer = { kind: "timeout", message: "the render did not finish in time" };
    } else if (result === "crashed") {
      hung = true;
      answer = { kind: "limit", message: "the page ran out of memory" };
    } else if (result.ok) {
      answer = Buffer.byteLength(result.svg, "utf8") > MAX_SVG_BYTES
        ? { kind: "limit", message: `output larger than ${MAX_SVG_BYTES} bytes` }
        : { ok: true, svg: result.svg };
    } else if (/edge limit exceeded|maximum text size/i.test(result.message)) {
      answer = { kind: "limit", message: result.message };
    } else {
      answer = { kind: "syntax", message: result.message, line: result.line };
    }
  } catch (error) {
    hung = true;
    const message = String(error && error.message || error);
    answer = /crash|out of memory|Target closed|detached/i.test(message)
      ? { kind: "limit", message: "the page crashed (out of memory?)" }
      : { kind: "failed", message };
  } finally {
    clearTimeout(timer);
  }
  page.uses += 1;
  const replace = hung || !answer.ok || page.uses >= REUSE;
  if (replace) discard(page, hung);
  release(page, replace);
  return answer;
}

let stopping = false;

async function stop(code) {
  if (stopping) return;
  stopping = true;
  try {
    if (browser) await Promise.race([browser.close(), sleep(5000)]);
  } catch (error) {
    log(`cannot close the browser: ${error.message}`);
  }
  try {
    if (browser && browser.process()) browser.process().kill("SIGKILL");
  } catch {}
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
  process.exit(code);
}

async function main() {
  try {
    await launch();
    refill();
    const first = await takePage();
    release(first, false);
  } catch (error) {
    send({ ready: false, message: String(error && error.message || error) });
    await stop(2);
    return;
  }
  send({ ready: true, mermaid: MERMAID_VERSION, externals: EXTERNALS, browser: await browser.version() });
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on("line", (line) => {
    let request;
    try {
      request = JSON.parse(line);
    } catch {
      log("ignored a request that is not JSON");
      return;
    }
    if (request.op === "stats") {
      browser.pages().then((pages) => send({ id: request.id, ok: true, pages: pages.length, pool: PAGES,
        idle: idle.length, busy, building, renders, blocked, stopped }));
      return;
    }
    renders += 1;
    render(request).then(
      (answer) => send({ id: request.id, ok: false, ...answer }),
      (error) => send({ id: request.id, ok: false, kind: "failed", message: String(error && error.message || error) }),
    );
  });
  lines.on("close", () => stop(0));
}

process.on("SIGTERM", () => stop(0));
process.on("SIGINT", () => stop(0));
main();
