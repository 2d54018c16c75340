"use strict";
// Today's DBML -> the DBML dbml-renderer reads (docs/rendering.md, "DBML").
//
// dbml-renderer's own parser knows the DBML of its day: no `records` (sample data), `TablePartial`,
// `checks { ... }`, long-form `Ref name { ... }`, relations with optional ends (`>?`), and so on. This reads
// a source with @dbml/parse, the official DBML compiler (holistics' dbml-core parses with it), and writes
// back only what the renderer draws: tables (schema, name, header colour, note, columns with type,
// `pk` and `not null`, primary-key indexes), partials injected into their tables the way dbml-core does,
// enums, table groups (colour, note) and references. Sample data, checks, defaults, sticky notes,
// project settings and diagram views are left out: the renderer has nothing to draw them with.
//
// Everything happens in memory: the compiler gets the source as a one-file project and reads no file.
const parser = require("@dbml/parse");

const DEFAULT_SCHEMA = "public";

class Rejected extends Error {
  // The compiler's first error (by position), with its 1-based line and column.
  constructor(message) {
    super(message);
    this.name = "Rejected";
  }
}

function firstError(errors) {
  const positioned = errors.map((error) => {
    const start = (error.nodeOrToken && error.nodeOrToken.startPos) || {};
    return { message: String(error.diagnostic || "invalid DBML"), offset: start.offset ?? Infinity,
             line: (start.line ?? 0) + 1, column: (start.column ?? 0) + 1 };
  });
  positioned.sort((a, b) => a.offset - b.offset);
  const first = positioned[0];
  const others = positioned.length - 1;
  const more = others ? ` (and ${others} more error${others > 1 ? "s" : ""})` : "";
  return new Rejected(`${first.message} at line ${first.line}:${first.column}${more}`);
}

function compile(source) {
  const layout = new parser.MemoryProjectLayout();
  layout.setSource(parser.DEFAULT_ENTRY, source);
  const compiler = new parser.Compiler(layout);
  const errors = compiler.parse.errors(parser.DEFAULT_ENTRY);
  if (errors.length) {
    throw firstError(errors);
  }
  return compiler.parse.rawDb(parser.DEFAULT_ENTRY);
}

// -- writing the renderer's DBML ------------------------------------------------------------------

// The renderer's quoted names hold no double quote and no line break.
const name = (text) => `"${String(text ?? "").replace(/"/g, "'").replace(/[\r\n]+/g, " ")}"`;
const schemaOf = (schemaName) => (schemaName && schemaName !== DEFAULT_SCHEMA ? schemaName : null);
const qualified = (schemaName, tableName) =>
  (schemaOf(schemaName) ? `${name(schemaOf(schemaName))}.` : "") + name(tableName);
const key = (schemaName, tableName) => `${schemaOf(schemaName) || ""}\u0000${tableName}`;
// A single-quoted string: \' is the renderer's only escape; a trailing backslash would eat the closing quote.
const string = (text) => `'${String(text).replace(/\\+$/, "").replace(/'/g, "\\'")}'`;
const COLOR = /^#[0-9a-fA-F]{3,8}$/;
const noteOf = (note) => (note && typeof note === "object" ? note.value : note);

function settings(pairs) {
  const kept = pairs.filter(Boolean);
  return kept.length ? ` [${kept.join(", ")}]` : "";
}

function typeOf(field) {
  const type = field.type || {};
  const typeName = String(type.type_name ?? "");
  const schema = schemaOf(type.schemaName);
  return schema && !typeName.startsWith(`${schema}.`) ? `${schema}.${typeName}` : typeName;
}

function many(relation) {
  try {
    return parser.isEndpointManySide(relation);
  } catch {
    return relation === "*";
  }
}

function cardinality(from, to) {
  const [manyFrom, manyTo] = [many(from.relation), many(to.relation)];
  if (manyFrom && manyTo) return "<>";
  if (manyFrom) return ">";
  if (manyTo) return "<";
  return "-";
}

function endpoint(end) {
  const fields = (end.fieldNames || []).map(name);
  return `${qualified(end.schemaName, end.tableName)}.${fields.length === 1 ? fields[0] : `(${fields.join(", ")})`}`;
}

// A table with its partials injected as dbml-core does (Table.processPartials): each partial's fields take
// the place of its `~name` line; a field the table (or a later partial) already has is not added again;
// the table's own note and header colour win over a partial's, a later partial's over an earlier one's;
// the partials' indexes are added, and the references of their injected fields.
function inject(table, partials, refs) {
  const fields = [...(table.fields || [])];
  const indexes = [...(table.indexes || [])];
  let note = noteOf(table.note);
  let headerColor = table.headerColor;
  const taken = new Set(fields.map((field) => field.name));
  const used = [...(table.partials || [])].sort((a, b) => b.order - a.order);
  [...used].reverse().forEach((use) => fields.splice(use.order, 0, null));
  for (const use of used) {
    const partial = partials.get(use.name);
    const injected = [];
    for (const field of (partial && partial.fields) || []) {
      if (taken.has(field.name)) continue;
      taken.add(field.name);
      injected.push(field);
      for (const ref of field.inline_refs || []) {
        const [here, there] = parser.getMultiplicities(ref.relation) || ["*", "*"];
        refs.push({ endpoints: [
          { schemaName: table.schemaName, tableName: table.name, fieldNames: [field.name], relation: here },
          { schemaName: ref.schemaName, tableName: ref.tableName, fieldNames: ref.fieldNames, relation: there },
        ] });
      }
    }
    fields.splice(use.order, 1, ...injected);
    if (partial) {
      if (note == null && noteOf(partial.note) != null) note = noteOf(partial.note);
      if (headerColor == null && partial.headerColor != null) headerColor = partial.headerColor;
      indexes.push(...(partial.indexes || []));
    }
  }
  return { ...table, fields: fields.filter(Boolean), indexes, note, headerColor };
}

function writeTable(table) {
  const lines = [`Table ${qualified(table.schemaName, table.name)}${settings([
    COLOR.test(table.headerColor || "") && `headercolor: ${table.headerColor}`,
    table.note != null && table.note !== "" && `note: ${string(table.note)}`,
  ])} {`];
  for (const field of table.fields) {
    lines.push(`  ${name(field.name)} ${name(typeOf(field))}${settings([field.pk && "pk",
      field.not_null && "not null"])}`);
  }
  const keys = table.indexes.filter((index) => index.pk && (index.columns || []).every((c) => c.type === "column"));
  if (keys.length) {
    lines.push("  Indexes {");
    for (const index of keys) {
      lines.push(`    (${index.columns.map((column) => name(column.value)).join(", ")}) [pk]`);
    }
    lines.push("  }");
  }
  lines.push("}");
  return lines.join("\n");
}

function writeEnum(enumeration) {
  const values = (enumeration.values || []).map((value) => `  ${name(value.name)}`);
  return [`Enum ${qualified(enumeration.schemaName, enumeration.name)} {`, ...values, "}"].join("\n");
}

function writeGroup(group) {
  const note = noteOf(group.note);
  const head = `TableGroup ${name(group.name)}${settings([
    COLOR.test(group.color || "") && `color: ${group.color}`,
    note != null && note !== "" && `note: ${string(note)}`,
  ])} {`;
  return [head, ...(group.tables || []).map((table) => `  ${qualified(table.schemaName, table.name)}`), "}"].join("\n");
}

function writeRef(ref) {
  const [from, to] = ref.endpoints || [];
  return from && to ? `Ref: ${endpoint(from)} ${cardinality(from, to)} ${endpoint(to)}` : "";
}

// The compiler lists an inline reference (`user_id int [ref: > users.id]`) from its target; the renderer
// draws a reference from its first end, so one written inline is turned back to start at its column.
function fromTheirColumn(tables) {
  const inline = new Set();
  for (const table of tables) {
    for (const field of table.fields || []) {
      if ((field.inline_refs || []).length) inline.add(`${key(table.schemaName, table.name)}.${field.name}`);
    }
  }
  const written = (end) => (end.fieldNames || []).length === 1
    && inline.has(`${key(end.schemaName, end.tableName)}.${end.fieldNames[0]}`);
  return (ref) => {
    const [first, second] = ref.endpoints || [];
    return first && second && written(second) && !written(first) ? { ...ref, endpoints: [second, first] } : ref;
  };
}

// The renderer's DBML for `source`; throws Rejected (with the line) when the compiler rejects it.
function convert(source) {
  const db = compile(source);
  const partials = new Map((db.tablePartials || []).map((partial) => [partial.name, partial]));
  const refs = (db.refs || []).map(fromTheirColumn(db.tables || []));
  const tables = (db.tables || []).map((table) => inject(table, partials, refs));
  const seen = new Set();
  const uniqueRefs = refs.filter((ref) => {
    const ends = (ref.endpoints || []).map((end) => `${key(end.schemaName, end.tableName)}.${end.fieldNames}`);
    const id = ends.join("\u0001");
    if (seen.has(id) || seen.has([...ends].reverse().join("\u0001"))) return false;
    seen.add(id);
    return true;
  });
  return [...(db.enums || []).map(writeEnum), ...tables.map(writeTable), ...(db.tableGroups || []).map(writeGroup),
          ...uniqueRefs.map(writeRef)].filter(Boolean).join("\n\n") + "\n";
}

module.exports = { convert, Rejected };
