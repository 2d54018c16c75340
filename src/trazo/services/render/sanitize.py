"""Make a rendered SVG inert before it leaves the service, whatever backend drew it.

A diagram source can carry links (Graphviz `URL=`, PlantUML `[[...]]`) and a renderer may embed
scripts, event handlers or references to other hosts; a browser that opens or inlines the SVG would
run or fetch them. The SVG is parsed (no DTD entities), and rebuilt from what is known to be inert:
no scripts or event attributes, links only to `#fragments` or `data:image/...`, CSS without `@import`
or `url(...)` to anything but a fragment, and XHTML only inside `<foreignObject>` (labels).
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
        elif "url(" in value.lower() and _clean_css(value) != value:
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
    """CSS without imports or external url(...) references; nothing at all when escapes hide one."""
    cleaned = _CSS_IMPORT.sub("", css)
    cleaned = _CSS_URL.sub(lambda match: match.group(0) if _internal(match.group(1)) else "none", cleaned)
    decoded = _CSS_ESCAPE.sub(_unescape, cleaned).lower()
    urls = [match.group(1) for match in _CSS_URL.finditer(decoded)]
    if (any(word in decoded for word in _CSS_FORBIDDEN) or len(urls) != decoded.count("url(")
            or any(not _internal(url) for url in urls)):
        return ""
    return cleaned


def _unescape(match):
    if match.group(1):
        code = int(match.group(1), 16)
        return chr(code) if 0 < code <= 0x10FFFF else "\ufffd"
    return match.group(2)
