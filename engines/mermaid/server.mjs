// Official Mermaid in headless Chromium, for one Trazo worker.
//
// One long-lived browser and a pool of pages that already hold mermaid.min.js. Each page draws one
// diagram and is then replaced by a fresh one (built while nobody waits for it), so that nothing one
// diagram leaves behind (Mermaid's id counters, a config it set, a hung script) reaches the next.
//
// Protocol: JSON lines. On start the server prints {"ready": true, "mermaid": "...", "browser": "..."}
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

import { readFileSync, mkdtempSync, rmSync } from "node:fs";
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
const REUSE = parseInt(process.env.MERMAID_PAGE_REUSE || "1", 10); // renders per page before it is replaced
const THEMES = new Set(["default", "dark", "neutral", "forest", "base"]);

const ORIGIN = "http://mermaid.invalid";
const PAGE_URL = `${ORIGIN}/`;
const SCRIPT_URL = `${ORIGIN}/mermaid.min.js`;
const MERMAID_JS = readFileSync(join(HERE, "node_modules/mermaid/dist/mermaid.min.js"));
const MERMAID_VERSION = JSON.parse(readFileSync(join(HERE, "node_modules/mermaid/package.json"), "utf8")).version;
const CSP = "default-src 'none'; script-src " + SCRIPT_URL + " 'unsafe-inline'; style-src 'unsafe-inline'; " +
  "img-src data:; font-src data:; connect-src 'none'; frame-src 'none'; form-action 'none'; base-uri 'none'";
const PAGE_HTML = `<!doctype html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<script src="${SCRIPT_URL}"></script></head><body><div id="host"></div></body></html>`;

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
      "--disable-features=Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider,AutofillServerCommunication",
      "--metrics-recording-only", "--mute-audio", "--no-pings", "--password-store=basic", "--use-mock-keychain",
      "--disable-dev-shm-usage", "--renderer-process-limit=" + String(PAGES + 2),
      "--proxy-server=http://127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
      "--host-resolver-rules=MAP * ~NOTFOUND",
      `--js-flags=--max-old-space-size=${HEAP_MB}`,
    ],
  });
  browser.on("disconnected", () => {
    if (!stopping) {
      log("the browser went away");
      process.exit(3);
    }
  });
}

async function newPage() {
  const page = await browser.newPage();
  page.uses = 0;
  await page.setRequestInterception(true);
  page.on("request", (request) => {
    const url = request.url();
    if (url === PAGE_URL) {
      request.respond({ status: 200, contentType: "text/html; charset=utf-8", body: PAGE_HTML });
    } else if (url === SCRIPT_URL) {
      request.respond({ status: 200, contentType: "text/javascript; charset=utf-8", body: MERMAID_JS });
    } else {
      request.abort("blockedbyclient");
    }
  });
  page.on("dialog", (dialog) => dialog.dismiss().catch(() => {}));
  await page.goto(PAGE_URL, { waitUntil: "load", timeout: 30000 });
  const ok = await page.evaluate(() => typeof window.mermaid === "object");
  if (!ok) throw new Error("mermaid did not load in the page");
  return page;
}

function refill() {
  while (!stopping && idle.length + building < PAGES) {
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
  if (page) return Promise.resolve(page);
  refill();
  return new Promise((resolve) => waiting.push(resolve));
}

async function discard(page, hung) {
  try {
    if (hung) {
      // A script that never returns holds the renderer: stop it so the page can close.
      const session = await page.createCDPSession();
      await Promise.race([session.send("Runtime.terminateExecution"), sleep(1000)]).catch(() => {});
    }
    await Promise.race([page.close({ runBeforeUnload: false }), sleep(5000)]);
  } catch (error) {
    log(`cannot close a page: ${error.message}`);
  }
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// Runs inside the page.
async function draw(source, theme, settings) {
  const mermaid = window.mermaid;
  mermaid.initialize({
    startOnLoad: false,
    securityLevel: "strict",
    theme,
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
    return { ok: true, svg };
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
      page.evaluate(draw, request.source, theme, { maxTextSize: MAX_TEXT_SIZE, maxEdges: MAX_EDGES }), expired, crashed,
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
  if (hung || page.uses >= REUSE) {
    discard(page, hung).finally(refill);
    refill();
  } else {
    const next = waiting.shift();
    if (next) next(page); else idle.push(page);
  }
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
    idle.unshift(first);
  } catch (error) {
    send({ ready: false, message: String(error && error.message || error) });
    await stop(2);
    return;
  }
  send({ ready: true, mermaid: MERMAID_VERSION, browser: await browser.version() });
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on("line", (line) => {
    let request;
    try {
      request = JSON.parse(line);
    } catch {
      log("ignored a request that is not JSON");
      return;
    }
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
