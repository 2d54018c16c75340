"use strict";
// DBML on stdin -> SVG on stdout, for the local render backend (src/trazo/services/render/dbml.py).
// dbml-renderer's own CLI goes through yargs, which reads files around it (its package.json, locales);
// this calls its API directly, so Node's permission model can limit reads to this folder.
//
// dbml-renderer (the converter Kroki uses) reads the DBML of its day. A source it rejects is read again by
// the official DBML compiler (@dbml/parse, in convert.js), which knows today's syntax (records,
// TablePartial, checks, long-form Ref, ...), and what it read is drawn by the renderer from the subset it
// understands. So a source the renderer reads draws exactly as before, and one only the compiler reads
// draws its tables, enums, groups and references.
//
// Exit status: 0 with the SVG; 1 when the source is rejected, its message on stderr ("... at line 3:5 ...":
// the compiler's first error when it rejects it too, else the renderer's); 3 saying "out of memory" when
// the heap or the stack runs out; 4 for any other failure (the renderer's or the converter's own).
const fs = require("fs");
const { run } = require("@softwaretechnik/dbml-renderer");

function fail(code, message) {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

function messageOf(error) {
  return String((error && error.message) || error);
}

function outOfMemory(error) {
  return error instanceof RangeError || /memory/i.test(messageOf(error));
}

// The parser's SyntaxError, or a plain Error from the checker ("Table x does not exist").
function rejected(error) {
  return Boolean(error) && (error.name === "SyntaxError" || error.constructor === Error);
}

let source;
try {
  source = fs.readFileSync(0, "utf-8");
} catch (error) {
  fail(2, `cannot read the source: ${messageOf(error)}`);
}

let svg;
try {
  svg = run(source, "svg");
} catch (error) {
  if (outOfMemory(error)) fail(3, `out of memory: ${messageOf(error)}`);
  if (!rejected(error)) fail(4, messageOf(error));
  svg = drawConverted(source);
}
process.stdout.write(svg);

function drawConverted(text) {
  let converted;
  try {
    const { convert } = require("./convert");
    converted = convert(text);
  } catch (error) {
    if (outOfMemory(error)) fail(3, `out of memory: ${messageOf(error)}`);
    fail(error && error.name === "Rejected" ? 1 : 4, messageOf(error));
  }
  try {
    return run(converted, "svg");
  } catch (error) {
    if (outOfMemory(error)) fail(3, `out of memory: ${messageOf(error)}`);
    return fail(4, `the renderer cannot draw the converted source: ${messageOf(error)}`);
  }
}
