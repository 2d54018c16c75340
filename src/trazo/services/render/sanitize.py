"""Make a rendered SVG inert before it leaves the service, whatever backend drew it.

A diagram source can carry links (Graphviz `URL=`, PlantUML `[[...]]`) and a renderer may embed
scripts, event handlers or references to other hosts; a browser that opens or inlines the SVG would
run or fetch them. The SVG is parsed (no DTD entities), and rebuilt from what is known to be inert:
no scripts or event attributes, links only to `#fragments` or `data:image/...`, CSS without `@import`
or `url(...)` to anything but a fragment (in style sheets, `style` and every other attribute, read with
escapes decoded and comments removed), and XHTML only inside `<foreignObject>` (labels). docs/security.md.
"""
import re
from xml.etree.ElementTree import ParseError
from xml.sax.saxutils import escape, quoteattr

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring

from .errors import RendererFailed

SVG = "http://www.w3.org/2000/svg"
XHTML = "http://www.w3.org/1999/xhtml"
XLINK = "http://www.w3.org/1999/xlink"
XML = "http://www.w3.org/XML/1998/namespace"
MAX_DEPTH = 200

_DROPPED = frozenset({
    "script", "handler", "listener", "iframe", "frame", "frameset", "object", "embed", "applet", "base",
    "link", "meta", "form", "input", "button", "textarea", "select", "audio", "video", "source", "track",
    "portal", "noscript", "template",
})
_ANIMATIONS = frozenset({"animate", "set", "animatemotion", "animatetransform", "animatecolor", "discard"})
_URL_ATTRIBUTES = frozenset({
    "href", "src", "srcset", "action", "formaction", "data", "poster", "background", "codebase", "cite",
    "longdesc", "lowsrc", "ping", "manifest", "dynsrc",
})
_XHTML_VOID = frozenset({"area", "br", "col", "hr", "img", "wbr"})
_SAFE_DATA_URL = re.compile(r"data:image/(?:png|jpe?g|gif|webp|bmp)[;,]")

# CSS, one declaration block or style sheet at a time (never the whole document).
# Neither repeat can run past the next start of another match, so both stay linear on hostile CSS
# ("url(url(url(..." or "@import@import..."); what they leave unmatched empties the style sheet below.
_CSS_IMPORT = re.compile(r"@import\b[^;@]*;?", re.IGNORECASE)
_CSS_URL = re.compile(r"url\(([^()]*)\)", re.IGNORECASE)
_CSS_ESCAPE = re.compile(r"\\(?:([0-9a-fA-F]{1,6})\s?|(.))", re.DOTALL)
_CSS_FORBIDDEN = ("@import", "expression(", "image-set(", "javascript:")
# Every forbidden word holds one of these, and so does every way of hiding one (an escape, a comment).
_CSS_MARKS = ("\\", "/*", "(", ":", "@")


def clean_svg(text):
    """The SVG `text` with everything active or external removed; RendererFailed when it is no SVG."""
    try:
        root = fromstring(text.encode("utf-8"), forbid_dtd=False, forbid_entities=True, forbid_external=True)
    except (ParseError, DefusedXmlException) as exc:
        raise RendererFailed(f"the renderer answered an SVG that does not parse: {type(exc).__name__}") from exc
    if _split(root.tag) not in ((SVG, "svg"), (None, "svg")):
        raise RendererFailed("the renderer answered something other than an SVG")
    out = ['<?xml version="1.0" encoding="UTF-8"?>\n']
    _write(root, out, SVG, depth=0, in_foreign=False, extra=f' xmlns="{SVG}" xmlns:xlink="{XLINK}"')
    return "".join(out)


def _split(tag):
    if tag.startswith("{"):
        namespace, _, local = tag[1:].partition("}")
        return namespace, local
    return None, tag


def _write(element, out, parent_namespace, depth, in_foreign, extra=""):
    if depth > MAX_DEPTH:
        raise RendererFailed("the renderer answered an SVG nested too deeply")
    namespace, local = _split(element.tag)
    namespace = namespace or (parent_namespace if depth else SVG)
    name = local.lower()
    if (name in _DROPPED or namespace not in (SVG, XHTML) or (namespace == XHTML and not in_foreign)
            or (name in _ANIMATIONS and _animates_unsafe(element))):
        return
    if namespace != parent_namespace:
        extra += f' xmlns="{namespace}"'
    attributes = "".join(f" {key}={quoteattr(value)}" for key, value in _attributes(element))
    out.append(f"<{local}{extra}{attributes}")
    text = _clean_css(element.text or "") if name == "style" else element.text
    children = [] if name == "style" else list(element)
    if not text and not children and (namespace == SVG or name in _XHTML_VOID):
        out.append("/>")
    else:
        out.append(">" + escape(text or ""))
        for child in children:
            _write(child, out, namespace, depth + 1, in_foreign or name == "foreignobject")
            out.append(escape(child.tail or ""))
        out.append(f"</{local}>")


def _attributes(element):
    """(name, value) of the attributes worth keeping."""
    for key, value in element.attrib.items():
        namespace, local = _split(key)
        name = local.lower()
        if name.startswith("on"):
            continue
        if namespace == XLINK and name in ("href", "title"):
            local = "xlink:" + local
        elif namespace == XML and name in ("space", "lang"):
            local = "xml:" + local
        elif namespace is not None:
            continue
        if name in _URL_ATTRIBUTES and not _internal(value):
            continue
        if name == "style":
            value = _clean_css(value)
        elif not _css_is_safe(value):  # presentation attributes are CSS: fill="u\\72l(...)" is a url()
            continue
        yield local, value


def _animates_unsafe(element):
    """An animation that would set a link or an event handler (`<set attributeName="href" to=...>`)."""
    target = _split(element.get("attributeName", ""))[1].rpartition(":")[2].strip().lower()
    return target in _URL_ATTRIBUTES or target.startswith("on") or target == "style"


def _internal(url):
    """A reference to this document or an inline image: nothing is fetched or run."""
    compact = "".join(url.split()).strip("'\"").lower()
    return compact.startswith("#") or bool(_SAFE_DATA_URL.match(compact))


def _clean_css(css):
    """CSS without imports or external url(...) references; nothing at all when escapes or comments hide one."""
    cleaned = _CSS_IMPORT.sub("", css)
    cleaned = _CSS_URL.sub(lambda match: match.group(0) if _internal(match.group(1)) else "none", cleaned)
    return cleaned if _css_is_safe(cleaned) else ""


def _css_is_safe(css):
    """Whether `css` (a style sheet, a declaration block or an attribute's value) fetches or runs nothing,
    read as a browser might: escapes decoded (`u\\72l(`, `url\\28`), comments removed (`u/**/rl(`), any case.
    The XML parser has already decoded character references (`&#92;`)."""
    if not any(mark in css for mark in _CSS_MARKS):
        return True  # no escape, comment, function, scheme or at-rule: nothing to hide a reference in
    view = _without_comments(_CSS_ESCAPE.sub(_unescape, _without_comments(css))).lower()
    urls = [match.group(1) for match in _CSS_URL.finditer(view)]
    return not (any(word in view for word in _CSS_FORBIDDEN) or len(urls) != view.count("url(")
                or any(not _internal(url) for url in urls))


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
