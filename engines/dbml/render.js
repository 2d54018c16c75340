"use strict";
// DBML on stdin -> SVG on stdout, for the local render backend (src/trazo/services/render/engines.py).
// dbml-renderer's own CLI goes through yargs, which reads files around it (its package.json, locales);
// this calls its API directly, so Node's permission model can limit reads to this folder.
// A source the renderer rejects exits 1 with its message ("... at line 3:5 ...") on stderr; running out
// of stack or memory exits 3 saying "out of memory"; any other failure is the renderer's own (exit 4).
const fs = require("fs");
const { run } = require("@softwaretechnik/dbml-renderer");

let source;
try {
  source = fs.readFileSync(0, "utf-8");
} catch (error) {
  process.stderr.write(`cannot read the source: ${error.message}\n`);
  process.exit(2);
}
let svg;
try {
  svg = run(source, "svg");
} catch (error) {
  const message = String((error && error.message) || error);
  if (error instanceof RangeError || /memory/i.test(message)) {
    process.stderr.write(`out of memory: ${message}\n`);
    process.exit(3);
  }
  // The parser's SyntaxError, or a plain Error from the checker ("Table x does not exist").
  const rejected = error && (error.name === "SyntaxError" || error.constructor === Error);
  process.stderr.write(`${message}\n`);
  process.exit(rejected ? 1 : 4);
}
process.stdout.write(svg);
