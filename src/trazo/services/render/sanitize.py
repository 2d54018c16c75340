"""Make a rendered SVG inert before it leaves the service, whatever backend drew it.

A diagram source can carry links (Graphviz `URL=`, PlantUML `[[...]]`, Mermaid `click ... href`, D2 `link:`)
and a renderer may embed scripts, event handlers or references to other hosts; a browser that opens or
inlines the SVG would run or fetch them. The SVG is parsed (no DTD entities), and rebuilt from what is
known to be inert (docs/security.md, "Every SVG we return"; docs/rendering.md, "SVG sanitising"):
- no scripts, event attributes, or animations that set links, handlers or styles; XHTML only inside
  `<foreignObject>` (labels); elements of other namespaces (editors' metadata) dropped;
- links (`<a href|xlink:href>`) only to `#fragments`, `http(s):` or `mailto:`, read as a browser reads
  them (tabs and line breaks inside, spaces and control characters around, any case); a link that opens a
  new tab gets `rel="noopener noreferrer"`, any other target is dropped;
- pictures (`<image>`, `<img>`, `<feImage>`) only from `data:` URLs: raster ones as they are, SVG ones
  decoded (base64, percent-encoded or plain), cleaned by this same sanitizer and re-encoded as base64, at
  most MAX_NESTING deep and MAX_EMBEDDED_SVG_BYTES in all per drawing; anything else referenced only as a
  `#fragment` or a raster `data:` URL;
- CSS (style sheets, `style` and every other attribute) through services/render/sanitize_css.py: no
  `@import`, no `url(...)` but fragments, raster pictures and, in `@font-face` `src`, `data:` fonts.
"""
import base64
import binascii
import re
from dataclasses import dataclass
from urllib.parse import unquote_to_bytes
from xml.etree.ElementTree import ParseError
from xml.sax.saxutils import escape, quoteattr

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring

from .errors import RendererFailed
from .sanitize_css import clean_css, css_is_safe, internal

SVG = "http://www.w3.org/2000/svg"
XHTML = "http://www.w3.org/1999/xhtml"
XLINK = "http://www.w3.org/1999/xlink"
XML = "http://www.w3.org/XML/1998/namespace"
MAX_DEPTH = 200
# An SVG picture inside a drawing (PlantUML's sub-diagrams) may hold pictures too, this many levels down;
# the SVG pictures of one drawing, decoded, hold at most this many bytes together (the rest are dropped).
MAX_NESTING = 3
MAX_EMBEDDED_SVG_BYTES = 4 * 1024 * 1024

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
_PICTURES = frozenset({"image", "img", "feimage"})
_LINK_SCHEMES = frozenset({"http", "https", "mailto"})
# What a browser's URL parser ignores: C0 controls and spaces around a URL, tabs and line breaks anywhere.
_URL_EDGES = "".join(map(chr, range(0x21)))
_URL_NOISE = re.compile(r"[\t\n\r]")
_SCHEME = re.compile(r"([a-zA-Z][a-zA-Z0-9+.\-]*):")
_SVG_DATA = "data:image/svg+xml"


@dataclass
class _Drawing:
    """What one clean_svg call shares with the SVG pictures nested in it."""
    level: int = 0  # 0 for the drawing, n for a picture n levels down
    budget: list = None  # [decoded bytes SVG pictures may still take], shared by every level


def clean_svg(text):
    """The SVG `text` with everything active or external removed; RendererFailed when it is no SVG."""
    return _clean(text.encode("utf-8"), _Drawing(0, [MAX_EMBEDDED_SVG_BYTES]))


def _clean(data, drawing):
    try:
        root = fromstring(data, forbid_dtd=False, forbid_entities=True, forbid_external=True)
    except (ParseError, DefusedXmlException) as exc:
        raise RendererFailed(f"the renderer answered an SVG that does not parse: {type(exc).__name__}") from exc
    if _split(root.tag) not in ((SVG, "svg"), (None, "svg")):
        raise RendererFailed("the renderer answered something other than an SVG")
    out = ['<?xml version="1.0" encoding="UTF-8"?>\n']
    _write(root, out, SVG, drawing, depth=0, in_foreign=False, extra=f' xmlns="{SVG}" xmlns:xlink="{XLINK}"')
    return "".join(out)


def _split(tag):
    if tag.startswith("{"):
        namespace, _, local = tag[1:].partition("}")
        return namespace, local
    return None, tag


def _write(element, out, parent_namespace, drawing, depth, in_foreign, extra=""):
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
    attributes = "".join(f" {key}={quoteattr(value)}" for key, value in _attributes(element, name, drawing))
    out.append(f"<{local}{extra}{attributes}")
    text = clean_css(element.text or "", sheet=True) if name == "style" else element.text
    children = [] if name == "style" else list(element)
    if not text and not children and (namespace == SVG or name in _XHTML_VOID):
        out.append("/>")
    else:
        out.append(">" + escape(text or ""))
        for child in children:
            _write(child, out, namespace, drawing, depth + 1, in_foreign or name == "foreignobject")
            out.append(escape(child.tail or ""))
        out.append(f"</{local}>")


def _attributes(element, name, drawing):
    """(name, value) of the attributes worth keeping of `element` (whose lowercase local name is `name`)."""
    linked = False
    for key, value in element.attrib.items():
        namespace, local = _split(key)
        attribute = local.lower()
        if attribute.startswith("on") or (name == "a" and attribute in ("target", "rel")):
            continue  # a link's target and rel are decided below
        if namespace == XLINK and attribute in ("href", "title"):
            local = "xlink:" + local
        elif namespace == XML and attribute in ("space", "lang"):
            local = "xml:" + local
        elif namespace is not None:
            continue
        if attribute in _URL_ATTRIBUTES:
            value = _reference(name, attribute, value, drawing)
            if value is None:
                continue
            linked = linked or (name == "a" and attribute == "href")
        if attribute == "style":
            value = clean_css(value)
        elif not css_is_safe(value):  # presentation attributes are CSS: fill="u\\72l(...)" is a url()
            continue
        yield local, value
    if linked and element.get("target", "").strip().lower() == "_blank":
        yield "target", "_blank"
        yield "rel", "noopener noreferrer"  # the page it opens gets no handle on this one


def _reference(name, attribute, value, drawing):
    """The value to keep of URL attribute `attribute` of a `name` element, or None to drop it."""
    if name == "a" and attribute == "href":
        return _link(value)
    if name in _PICTURES and attribute in ("href", "src"):
        return _picture(value, drawing)
    return value if internal(value) else None


def _link(url):
    """`url` as a browser reads it, when it is a #fragment, http(s): or mailto: link; else None."""
    url = _URL_NOISE.sub("", url.strip(_URL_EDGES))
    scheme = _SCHEME.match(url)
    if url.startswith("#") or (scheme and scheme.group(1).lower() in _LINK_SCHEMES):
        return url
    return None


def _picture(url, drawing):
    """A picture's reference to keep: a fragment or a raster data: URL as it is, an SVG data: URL cleaned
    and re-encoded; None for anything else (another host, a file, a relative path, a broken picture)."""
    if internal(url):
        return url
    url = url.strip(_URL_EDGES)
    header, comma, payload = url.partition(",")
    parameters = "".join(header.split()).lower().split(";")
    if not comma or parameters[0] != _SVG_DATA or drawing.level >= MAX_NESTING:
        return None
    try:
        data = unquote_to_bytes(payload)
        if "base64" in parameters[1:]:
            data = b"".join(data.split())
            data = base64.b64decode(data + b"=" * (-len(data) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None
    if len(data) > drawing.budget[0]:
        return None
    drawing.budget[0] -= len(data)
    try:
        svg = _clean(data, _Drawing(drawing.level + 1, drawing.budget))
    except RendererFailed:
        return None
    return f"{_SVG_DATA};base64,{base64.b64encode(svg.encode('utf-8')).decode('ascii')}"


def _animates_unsafe(element):
    """An animation that would set a link or an event handler (`<set attributeName="href" to=...>`)."""
    target = _split(element.get("attributeName", ""))[1].rpartition(":")[2].strip().lower()
    return target in _URL_ATTRIBUTES or target.startswith("on") or target == "style"
