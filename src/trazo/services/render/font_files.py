"""Font files as resvg reads them: TrueType/OpenType (SFNT) bytes, from WOFF 1.0 when needed, renamed to the
family names an SVG asks for (docs/rendering.md, "Fonts").

resvg knows a font by the family names in its `name` table and reads no fontconfig alias and no CSS
`@font-face`; services/render/fonts.py gives it copies of fonts whose `name` table holds the names wanted
(one localized name record each). Everything here is pure Python over bytes, bounded in size, and raises
BadFont for anything it does not understand (the caller then leaves that font out).
"""
import math
import struct
import zlib

MAX_FONT_BYTES = 8 * 1024 * 1024
MAX_TABLES = 64
SFNT_VERSIONS = (0x00010000, 0x4F54544F, 0x74727565)  # TrueType, "OTTO" (CFF), "true" (Apple)
# Windows English language ids: one per family name, so each is a name record of its own.
_LANGUAGES = (0x0409, 0x0809, 0x0C09, 0x1009, 0x1409, 0x1809, 0x1C09, 0x2009, 0x2409, 0x2809, 0x2C09, 0x3009,
              0x3409, 0x3C09, 0x4009, 0x4409, 0x4809)


class BadFont(ValueError):
    """Not a font this module can read (or larger than MAX_FONT_BYTES)."""


def tables(data):
    """(flavor, {tag: bytes}) of an SFNT or WOFF 1.0 font."""
    if data[:4] == b"wOFF":
        return _woff_tables(data)
    if len(data) < 12:
        raise BadFont("too short")
    flavor, count = struct.unpack_from(">IH", data)
    if flavor not in SFNT_VERSIONS or count > MAX_TABLES or len(data) < 12 + 16 * count:
        raise BadFont("not a single TrueType or OpenType font")
    found = {}
    for index in range(count):
        tag, _checksum, offset, length = struct.unpack_from(">4sIII", data, 12 + 16 * index)
        if offset + length > len(data):
            raise BadFont("a table runs past the end")
        found[tag] = data[offset:offset + length]
    return flavor, found


def _woff_tables(data):
    if len(data) < 44:
        raise BadFont("too short")
    _signature, flavor, _length, count, _reserved, total = struct.unpack_from(">4sIIHHI", data)
    if flavor not in SFNT_VERSIONS or count > MAX_TABLES or total > MAX_FONT_BYTES or len(data) < 44 + 20 * count:
        raise BadFont("not a WOFF 1.0 font this server reads")
    found = {}
    for index in range(count):
        tag, offset, compressed, length, _checksum = struct.unpack_from(">4sIIII", data, 44 + 20 * index)
        if offset + compressed > len(data) or length > MAX_FONT_BYTES:
            raise BadFont("a table runs past the end")
        raw = data[offset:offset + compressed]
        if compressed < length:
            try:
                raw = zlib.decompressobj().decompress(raw, length)
            except zlib.error as exc:
                raise BadFont("a table does not inflate") from exc
        if len(raw) != length:
            raise BadFont("a table has the wrong size")
        found[tag] = raw
    return flavor, found


def sfnt(flavor, found):
    """The SFNT bytes of `found` ({tag: bytes}); checksums are recomputed, the head's adjustment is not
    (renderers do not check it)."""
    tags = sorted(found)
    power = 2 ** int(math.log2(len(tags))) if tags else 0
    header = struct.pack(">IHHHH", flavor, len(tags), power * 16, int(math.log2(power)) if power else 0,
                         len(tags) * 16 - power * 16)
    offset, records, bodies = 12 + 16 * len(tags), [], []
    for tag in tags:
        body = found[tag]
        padded = body + b"\0" * (-len(body) % 4)
        records.append(struct.pack(">4sIII", tag, _checksum(padded), offset, len(body)))
        bodies.append(padded)
        offset += len(padded)
    return header + b"".join(records) + b"".join(bodies)


def _checksum(padded):
    return sum(struct.unpack(f">{len(padded) // 4}I", padded)) & 0xFFFFFFFF


def name_table(families, subfamily="Regular"):
    """A `name` table whose family is each of `families` (one language each), with its style and a
    PostScript name; nothing else of the original names is kept."""
    if not families or len(families) > len(_LANGUAGES):
        raise BadFont("between 1 and 17 family names")
    records, strings = [], bytearray()

    def add(name_id, language, text):
        encoded = text.encode("utf-16-be")
        records.append((3, 1, language, name_id, len(encoded), len(strings)))
        strings.extend(encoded)

    for family, language in zip(families, _LANGUAGES, strict=False):
        add(1, language, family)
        add(2, language, subfamily)
        add(4, language, f"{family} {subfamily}")
    postscript = "".join(char for char in f"{families[0]}-{subfamily}" if char.isascii() and char.isalnum()
                         or char == "-")[:63]
    add(6, _LANGUAGES[0], postscript or "Font")
    records.sort()
    return (struct.pack(">HHH", 0, len(records), 6 + 12 * len(records))
            + b"".join(struct.pack(">6H", *record) for record in records) + bytes(strings))


def renamed(data, families, subfamily="Regular"):
    """The SFNT bytes of font `data` (SFNT or WOFF 1.0) known by `families` only."""
    if len(data) > MAX_FONT_BYTES:
        raise BadFont("larger than the font limit")
    try:
        flavor, found = tables(data)
    except struct.error as exc:
        raise BadFont("truncated") from exc
    found[b"name"] = name_table(list(families), subfamily)
    return sfnt(flavor, found)
