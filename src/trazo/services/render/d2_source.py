"""What a D2 source asks D2 to read: its imports and its icons, found the way D2's own parser reads the
text (d2parser/parse.go), in one linear pass (docs/rendering.md, "D2 imports and icons").

`scan(source)` follows D2's grammar far enough to know, for every character, whether it is inside a
double- or single-quoted string, a block string (`|md ...|`, `|||ts ...|||`, `` |`tex ...`| ``: the run of
symbols after the first `|` is the quote, closed as D2 closes it), a comment (`# ...`, `\"\"\" ... \"\"\"`)
or code; and, for each key, its path. It reports:
- imports: a value starting with `@` (`x: @file`, `x: @"file"`), a spread `...@file`, and (being careful
  where D2 is lenient) any `@` in code that does not follow a letter, digit, `_`, `+` or `-`, with D2's
  escapes and line continuations removed. An `@` inside a string, a block string or a comment is text.
- icons: every key whose last part is `icon`, unquoted (D2 matches field names without regard to case:
  `a.ICON` is `a.icon` once that exists; a glob never names a keyword), with its value: the literal text
  when it is a string (before any `${substitution}`), or None when it is something else (a
  substitution, an array, ...). A map value (`icon: {near: top-left}`, a class named `icon`) sets no URL
  and is not reported. Any other `icon:` in code (a key path D2 might read otherwise) is reported with no
  value, so it is refused.

A source nested more than MAX_NESTING levels deep is refused (TooDeep): D2 sources from real projects
nest a handful of levels.
"""
import re
from dataclasses import dataclass

# Go's unicode.IsSpace (Python's str.isspace also takes U+001C..U+001F, which D2 reads as text).
_SPACES = frozenset("\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
                    "\u200a\u2028\u2029\u202f\u205f\u3000")
MAX_NESTING = 64
_PLACEHOLDER = "\0"  # what a string or comment becomes in the code text

# Runs of characters with no special meaning, skipped at once.
_PLAIN_VALUE = re.compile(r"[^\n;#{}\[\]$\\)]+")
_PLAIN_KEY = re.compile(r"[^\n;#{}\[\]:.<>&\\)\-]+")
_PLAIN_QUOTED = re.compile(r'[^"\n$\\]+')
_ESCAPES = re.compile(r"\\\s*")
_LOOSE_IMPORT = re.compile(r"(?<![A-Za-z0-9_+\-])@")
_LOOSE_ICON = re.compile(r"icon[ \t]*:", re.IGNORECASE)
_KEY_BOUNDARY = frozenset("\n.{;&!*()[]" + _PLACEHOLDER)
_ESCAPED = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


class TooDeep(Exception):
    """The source nests maps, arrays or substitutions more than MAX_NESTING levels deep."""


@dataclass(frozen=True)
class Icon:
    position: int  # where the key `icon` starts in the source
    url: str | None  # the value's literal text before any substitution; None for another kind of value


@dataclass(frozen=True)
class Scan:
    imports: tuple  # positions in the source
    icons: tuple  # Icon, in source order


@dataclass(frozen=True)
class _Text:
    """A string read by the parser: where it starts, its kind, its text (escapes decoded) and the part of
    it before its first substitution."""
    start: int
    kind: str  # "unquoted", "double", "single", "block"
    text: str
    prefix: str


def scan(source):
    """The imports and icons of a D2 `source` (see the module docstring)."""
    parser = _Parser(source)
    parser.parse_map(0, top=True)
    code, positions = parser.code_text()
    imports = set(parser.imports)
    imports.update(positions[found.start()] for found in _LOOSE_IMPORT.finditer(code))
    icons = {icon.position: icon for icon in parser.icons}
    for found in _LOOSE_ICON.finditer(code):
        start = found.start()
        before = start - 1
        while before >= 0 and code[before] in " \t":
            before -= 1
        position = positions[start]
        if (before < 0 or code[before] in _KEY_BOUNDARY) and position not in parser.icon_keys:
            icons.setdefault(position, Icon(position, None))
    return Scan(tuple(sorted(imports)), tuple(icons[key] for key in sorted(icons)))


def _rstrip(text):
    end = len(text)
    while end and text[end - 1] in _SPACES:
        end -= 1
    return text[:end]


class _Parser:
    """A port of the structure of D2's parser (parse.go): maps, keys, edges, values, strings; what it
    keeps is the regions of strings and comments, the imports and the icon keys with their values."""

    def __init__(self, text):
        self.s = text
        self.n = len(text)
        self.regions = []  # (start, end) of strings and comments
        self.imports = []
        self.icons = []
        self.icon_keys = set()
        self.in_edge_group = False
        self.depth = 0

    # -- helpers ---------------------------------------------------------------------------------

    def skip(self, i):
        """(the index of the next character that is not a space, the line breaks passed)."""
        s, n = self.s, self.n
        newlines = 0
        while i < n and s[i] in _SPACES:
            newlines += s[i] == "\n"
            i += 1
        return i, newlines

    def nest(self):
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise TooDeep()

    def code_text(self):
        """The source with each string and comment replaced by one placeholder, and D2's escapes and
        line continuations (a backslash and the blanks after it) removed; with each character's index
        in the source."""
        s, chars, positions, at = self.s, [], [], 0
        for start, end in sorted(self.regions):
            if end <= at:
                continue  # a region inside one already replaced (a string in a substitution in a string)
            start = max(start, at)
            chars.append(s[at:start])
            positions.extend(range(at, start))
            chars.append(_PLACEHOLDER)
            positions.append(start)
            at = end
        chars.append(s[at:])
        positions.extend(range(at, self.n))
        code = "".join(chars)
        kept, kept_positions, at = [], [], 0
        for escape in _ESCAPES.finditer(code):
            kept.append(code[at:escape.start()])
            kept_positions.extend(positions[at:escape.start()])
            at = escape.end()
        kept.append(code[at:])
        kept_positions.extend(positions[at:])
        return "".join(kept), kept_positions

    # -- maps and arrays ---------------------------------------------------------------------------

    def parse_map(self, i, top):
        return self.parse_block(i, "}", self.parse_map_node, top)

    def parse_array(self, i):
        return self.parse_block(i, "]", self.parse_array_node, top=False)

    def parse_block(self, i, closer, parse_node, top):
        """A map's or an array's nodes up to its `closer` (the whole source for the top map, where a stray
        closer is an error to D2 and read past)."""
        if not top:
            self.nest()
        s, n = self.s, self.n
        while True:
            i, _newlines = self.skip(i)
            if i >= n:
                break
            if s[i] == ";":
                i += 1
                continue
            if s[i] == closer:
                i += 1
                if top:
                    continue
                break
            start = i
            i, block_comment = parse_node(i)
            if not block_comment:
                i = self.skip_junk(i, closer)
            if i == start:
                i += 1
        if not top:
            self.depth -= 1
        return i

    def skip_junk(self, i, closer):
        """Text after a node on its line: an error to D2 (it compiles nothing), read here as code."""
        s, n = self.s, self.n
        while True:
            j, newlines = self.skip(i)
            if j >= n or newlines or s[j] in (";", "#", closer):
                return i
            i = j + 1

    def parse_map_node(self, i):
        """(end, whether it was a block comment)."""
        return self.parse_node(i, self.parse_map_key)

    def parse_array_node(self, i):
        return self.parse_node(i, lambda j: self.parse_value(j)[0])

    def parse_node(self, i, parse_rest):
        """A comment, a spread substitution or import, else what `parse_rest` reads: (end, whether it was a
        block comment)."""
        s = self.s
        if s[i] == "#":
            return self.comment(i), False
        if s.startswith('"""', i):
            return self.block_comment(i), True
        if s.startswith("...$", i):
            return self.parse_substitution(i + 4)[0], False
        if s.startswith("...@", i):
            self.imports.append(i + 3)
            return self.parse_import(i + 4), False
        return parse_rest(i), False

    def comment(self, i):
        end = self.s.find("\n", i)
        end = self.n if end < 0 else end
        self.regions.append((i, end))
        return end

    def block_comment(self, i):
        end = self.s.find('"""', i + 3)
        end = self.n if end < 0 else end + 3
        self.regions.append((i, end))
        return end

    # -- keys, edges, values -----------------------------------------------------------------------

    def parse_map_key(self, i):
        s, n = self.s, self.n
        if s.startswith("!&", i):
            i += 2
        elif s.startswith("&", i):
            i += 1
        if i < n and s[i] == "(":
            return self.parse_edge_group(i + 1)
        key, i = self.parse_key(i)
        j, newlines = self.skip(i)
        if j >= n or newlines:
            return i
        if s[j] == "(":
            return self.parse_edge_group(j + 1)
        if s[j] in "<>-":
            i, ends = self.parse_edges(i)
            return self.parse_map_key_value(i, [], bool(key) or bool(ends))  # the value is the edge's
        return self.parse_map_key_value(i, [key], bool(key))

    def parse_edge_group(self, i):
        """After `(`: `(a -> b)[0].key: value`."""
        s, n = self.s, self.n
        self.in_edge_group = True
        try:
            source, i = self.parse_key(i)
            i, ends = self.parse_edges(i)
            j, newlines = self.skip(i)
            if j >= n or newlines or s[j] != ")":
                return i
            i = j + 1
            j, newlines = self.skip(i)
            if j < n and not newlines and s[j] == "[":
                i = self.edge_index(j + 1)
            j, newlines = self.skip(i)
            edge_key = []
            if j < n and not newlines and s[j] == ".":
                edge_key, i = self.parse_key(j + 1)
        finally:
            self.in_edge_group = False
        return self.parse_map_key_value(i, [edge_key], True)

    def edge_index(self, i):
        """After `[`: digits or `*`, then `]` (anything else is an error to D2)."""
        s, n = self.s, self.n
        while i < n and (s[i].isdigit() or s[i] == "*" or (s[i] in _SPACES and s[i] != "\n")):
            i += 1
        return i + 1 if i < n and s[i] == "]" else i

    def parse_edges(self, i):
        """Connections after their source key: (end, the keys they lead to)."""
        s, n = self.s, self.n
        ends = []
        while True:
            j, newlines = self.skip(i)
            if j >= n or newlines or s[j] not in "<*-":
                return i, ends
            i, ok = self.parse_edge(j + 1)
            if not ok:
                return i, ends
            key, i = self.parse_key(i)
            ends.append(key)

    def parse_edge(self, i):
        """The rest of an arrow (`-`s, then `>` or `*`, line continuations allowed): (end, ok)."""
        s, n = self.s, self.n
        while True:
            if i >= n:
                return i, False
            char = s[i]
            if char in ">*":
                return i + 1, True
            if char == "-":
                i += 1
                continue
            if char != "\\":
                return i, True
            i += 1
            j, newlines = self.skip(i)
            if j >= n:
                continue
            if newlines == 0:
                return i, False
            if newlines > 1:
                return i, True
            i = j

    def parse_key(self, i):
        """A key path (`a.b."c"`): (its parts, end)."""
        s, n = self.s, self.n
        parts = []
        while True:
            j, newlines = self.skip(i)
            if j >= n or newlines or s[j] == "(":
                return parts, i
            if s[j] == ".":
                i = j + 1
                continue
            part, i = self.parse_string(j, in_key=True)
            if part is None:
                return parts, i
            parts.append(part)
            j, newlines = self.skip(i)
            if j >= n or newlines or s[j] != ".":
                return parts, i
            i = j + 1

    def parse_map_key_value(self, i, keys, has_key):
        s, n = self.s, self.n
        j, newlines = self.skip(i)
        if j >= n or newlines:
            return i
        if s[j] == "{":
            if not has_key:
                return i
            end, value = self.parse_value(j)
        elif s[j] == ":":
            end, value = self.parse_value(j + 1)
        else:
            return i
        if isinstance(value, _Text):  # a scalar may be followed by a map on its line: `a: label {...}`
            k, newlines = self.skip(end)
            if k < n and not newlines and s[k] == "{":
                end = self.parse_value(k)[0]
        for key in keys:
            if key and key[-1].kind in ("unquoted", "block") and key[-1].text.lower() == "icon":
                self.icon_keys.add(key[-1].start)
                if value != "map":
                    self.icons.append(Icon(key[-1].start, _literal(value)))
        return end

    def parse_value(self, i):
        """(end, value): value is a _Text, "map", "array", "import" or None."""
        s, n = self.s, self.n
        j, newlines = self.skip(i)
        if j >= n or newlines:
            return i, None
        if s[j] == "[":
            return self.parse_array(j + 1), "array"
        if s[j] == "{":
            return self.parse_map(j + 1, top=False), "map"
        if s[j] == "@":
            self.imports.append(j)
            return self.parse_import(j + 1), "import"
        text, end = self.parse_string(j, in_key=False)
        return end, text

    def parse_import(self, i):
        while i < self.n and self.s[i] in "./":
            i += 1
        return self.parse_key(i)[1]

    def parse_substitution(self, i):
        """After `$`: `{key}`; (end, whether it was one)."""
        s, n = self.s, self.n
        j, newlines = self.skip(i)
        if j >= n or newlines or s[j] != "{":
            return i, False
        self.nest()
        _key, end = self.parse_key(j + 1)
        self.depth -= 1
        j, newlines = self.skip(end)
        if j < n and not newlines and s[j] == "}":
            return j + 1, True
        return end, True

    # -- strings -----------------------------------------------------------------------------------

    def parse_string(self, i, in_key):
        """The string starting at s[i] (not a space): (a _Text or None, end)."""
        char = self.s[i]
        if char == '"':
            return self.double_quoted(i, in_key)
        if char == "'":
            return self.single_quoted(i)
        if char == "|":
            return self.block_string(i)
        return self.unquoted(i, in_key)

    def double_quoted(self, i, in_key):
        s, n = self.s, self.n
        j, text, prefix = i + 1, [], None
        while j < n:
            plain = _PLAIN_QUOTED.match(s, j)
            if plain:
                text.append(plain.group())
                j = plain.end()
                continue
            char = s[j]
            if char == "\n":
                break  # unterminated: an error to D2
            j += 1
            if char == '"':
                break
            if char == "$" and not in_key:
                end, substituted = self.parse_substitution(j)
                if substituted:
                    prefix = "".join(text) if prefix is None else prefix
                    j = end
                    continue
                text.append(char)
                continue
            if char != "\\":
                text.append(char)
                continue
            if j >= n:
                break
            escaped, j = s[j], j + 1
            if escaped != "\n":
                text.append(_ESCAPED.get(escaped, escaped))
        self.regions.append((i, j))
        value = "".join(text)
        return _Text(i, "double", value, value if prefix is None else prefix), j

    def single_quoted(self, i):
        s, n = self.s, self.n
        j, text = i + 1, []
        while j < n:
            char = s[j]
            if char == "\n":
                break
            j += 1
            if char == "'":
                if j < n and s[j] == "'":
                    text.append("'")
                    j += 1
                    continue
                break
            if char == "\\" and j < n and s[j] == "\n":
                j += 1
                continue
            text.append(char)
        self.regions.append((i, j))
        value = "".join(text)
        return _Text(i, "single", value, value), j

    def block_string(self, i):
        """`|` + a quote (the symbols after it) + a tag, up to the closing quote as D2 builds it: the quote's
        last character, the quote less its first byte, then `|` (`||` closes `||md`, `` `| `` closes ``|`md``)."""
        s, n = self.s, self.n
        j = i + 1
        while j < n and not (s[j] in _SPACES or s[j].isalpha() or s[j].isdecimal() or s[j] == "_"):
            j += 1
        quote = s[i + 1:j]
        while j < n and s[j] not in _SPACES:
            j += 1  # the tag
        while j < n and s[j] in _SPACES:
            j += 1
            if s[j - 1] == "\n":
                break
        closing = _block_closing(quote)
        end = s.find(closing, j) if closing is not None else -1
        content_end = n if end < 0 else end
        end = n if end < 0 else end + len(closing)
        self.regions.append((i, end))
        value = s[j:content_end].strip()
        return _Text(i, "block", value, value), end

    def unquoted(self, i, in_key):
        s, n = self.s, self.n
        plain_run = _PLAIN_KEY if in_key else _PLAIN_VALUE
        j, text, prefix, substituted = i, [], None, False
        while j < n:
            plain = plain_run.match(s, j)
            if plain:
                text.append(plain.group())
                j = plain.end()
                continue
            char = s[j]
            if char == ")":
                if self.in_edge_group:
                    k, newlines = self.skip(j + 1)
                    if k >= n or newlines or s[k] in "#{}[]:.":
                        break
                text.append(char)
                j += 1
                continue
            if char in "\n;#{}[]":
                break
            if in_key:
                if char in ":.<>&":
                    break
                if char == "-":
                    if j + 1 >= n:
                        break
                    following = s[j + 1]
                    if following in "\n;#{}[]":
                        text.append(char)
                        j += 1
                        break
                    if following in "->*":
                        break
                    text.append(char)
                    j += 1
                    char = following  # read as it is, whatever it is
            j += 1
            if char == "$" and not in_key:
                end, found = self.parse_substitution(j)
                if found:
                    prefix = "".join(text) if prefix is None else prefix
                    substituted = True
                    j = end
                continue  # D2 drops a `$` that starts no substitution
            if char != "\\":
                text.append(char)
                continue
            if j >= n:
                break
            escaped, j = s[j], j + 1
            if escaped == "\n":
                k, newlines = self.skip(j)
                if k >= n or newlines:
                    break
                j = k
                continue
            text.append(_ESCAPED.get(escaped, escaped))
        value = _rstrip("".join(text))
        if not value and not substituted:
            return None, j
        return _Text(i, "unquoted", value, value if prefix is None else prefix), j


def _block_closing(quote):
    """The text that ends a block string opened with `|` + `quote`, or None when D2 can never match it
    (it compares the bytes of the quote's tail with as many characters: only ASCII tails can match)."""
    if not quote:
        return "|"
    last = quote[-1]
    tail = quote.encode("utf-8")[len(last.encode("utf-8")):] + b"|"
    return last + tail.decode("ascii") if tail.isascii() else None


def _literal(value):
    """The text an icon's value gives D2 before any substitution, or None when it is not a string."""
    if isinstance(value, _Text) and value.kind != "block":
        return value.prefix
    return None
