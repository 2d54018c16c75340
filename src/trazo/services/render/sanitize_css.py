"""CSS in a rendered SVG, read as a browser reads it (the sanitizer's half for `<style>`, `style` and every
other attribute: services/render/sanitize.py; docs/security.md, "Every SVG we return").

Kept: `url(#fragment)`, `url(data:image/...)` of a raster type and, in a style sheet only, a `data:` font in
the `src` of an `@font-face` (D2 embeds its fonts so). Dropped: `@import`, every other `url(...)` (made
`none`), and the whole sheet or attribute when escapes or comments could hide a reference (`u\\72l(`,
`u/**/rl(`). Every scan is linear: an embedded font is megabytes of base64, and hostile CSS repeats openings
(`url(url(url(...`) that a backtracking pattern would read again and again.
"""
import re

_SAFE_DATA_URL = re.compile(r"data:image/(?:png|jpe?g|gif|webp|bmp)[;,]")
_DATA_FONT = re.compile(r"data:(?:font/(?:woff2?|ttf|otf|sfnt|collection)|application/(?:font-(?:woff2?|sfnt|ttf|otf)"
                        r"|x-font-[a-z0-9.+-]+))[;,]")

# One declaration block or style sheet at a time (never the whole document). Neither repeat can run past
# the next start of another match, so both stay linear on hostile CSS ("url(url(url(..." or
# "@import@import..."); what they leave unmatched empties the style sheet below.
_CSS_IMPORT = re.compile(r"@import\b[^;@]*;?", re.IGNORECASE)
_CSS_URL = re.compile(r"url\(([^()]*)\)", re.IGNORECASE)
# An @font-face block's descriptors: the body stops at the next brace, so no two tries read the same text.
_FONT_FACE = re.compile(r"@font-face\s*\{([^{}]*)\}", re.IGNORECASE)
_CSS_ESCAPE = re.compile(r"\\(?:([0-9a-fA-F]{1,6})\s?|(.))", re.DOTALL)
_CSS_FORBIDDEN = ("@import", "expression(", "image-set(", "javascript:")
# Every forbidden word holds one of these, and so does every way of hiding one (an escape, a comment).
_CSS_MARKS = ("\\", "/*", "(", ":", "@")


def internal(url):
    """A reference to this document or an inline raster picture: nothing is fetched or run."""
    compact = _compact(url)
    return compact.startswith("#") or bool(_SAFE_DATA_URL.match(compact))


def clean_css(css, sheet=False):
    """`css` without imports or external url(...) references (a style sheet when `sheet`, where @font-face
    may keep data: fonts); nothing at all when escapes or comments hide one."""
    cleaned = _CSS_IMPORT.sub("", css)
    fonts = _font_sources(cleaned) if sheet else ()
    cleaned = _CSS_URL.sub(lambda match: match.group(0) if _kept(match, fonts) else "none", cleaned)
    return cleaned if css_is_safe(cleaned, sheet) else ""


def css_is_safe(css, sheet=False):
    """Whether `css` (a style sheet, a declaration block or an attribute's value) fetches or runs nothing,
    read as a browser might: escapes decoded (`u\\72l(`, `url\\28`), comments removed (`u/**/rl(`), any case.
    The XML parser has already decoded character references (`&#92;`)."""
    if not any(mark in css for mark in _CSS_MARKS):
        return True  # no escape, comment, function, scheme or at-rule: nothing to hide a reference in
    view = _without_comments(_CSS_ESCAPE.sub(_unescape, _without_comments(css))).lower()
    fonts = _font_sources(view) if sheet else ()
    urls = list(_CSS_URL.finditer(view))
    return not (any(word in view for word in _CSS_FORBIDDEN) or len(urls) != view.count("url(")
                or any(not _kept(url, fonts) for url in urls))


def _kept(match, fonts):
    """Whether the url(...) `match` may stay: internal, or a data: font where `fonts` says a font source is."""
    return internal(match.group(1)) or (match.start() in fonts and bool(_DATA_FONT.match(_compact(match.group(1)))))


def _compact(url):
    return "".join(url.split()).strip("'\"").lower()


def _font_sources(css):
    """The offsets of the url( tokens that stand in the `src` descriptor of an @font-face block of `css`."""
    starts = set()
    for block in _FONT_FACE.finditer(css):
        descriptor, position = None, block.start(1)
        for url in _CSS_URL.finditer(css, block.start(1), block.end(1)):
            before = css[position:url.start()]  # from the previous url(...) (or the block's start) to this one
            if descriptor is None or ";" in before:
                declaration = before.rpartition(";")[2]
                descriptor = declaration.partition(":")[0].strip().lower() if ":" in declaration else ""
            if descriptor == "src":
                starts.add(url.start())
            position = url.end()
    return starts


def _without_comments(css):
    """`css` without its /* comments */ (an unclosed one runs to the end); a linear scan."""
    parts, start = [], 0
    while (opening := css.find("/*", start)) != -1:
        parts.append(css[start:opening])
        closing = css.find("*/", opening + 2)
        if closing == -1:
            return "".join(parts)
        start = closing + 2
    parts.append(css[start:])
    return "".join(parts)


def _unescape(match):
    if match.group(1):
        code = int(match.group(1), 16)
        return chr(code) if 0 < code <= 0x10FFFF else "\ufffd"
    return match.group(2)
