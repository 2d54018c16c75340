"""A PNG image link shows its diagram's text (docs/rendering.md, "Fonts"): the engines name fonts this host
does not have (Times, Helvetica, Verdana, D2's embedded fonts), and resvg, which reads no fontconfig alias,
used to draw every Graphviz, PlantUML, DBML and D2 PNG without a single letter (Mermaid's, which names
"Liberation Sans" after Arial, is checked too).

Each case draws a diagram twice, the second time with every label spelt backwards: the same letters, so
the same widths and the same layout (checked on the SVGs' geometry), and only the letters inside each
label's box differ. Without fonts both PNGs are the same picture; with them, every label's box differs."""
import base64
import math
import re
import struct
import xml.etree.ElementTree as ET
import zlib

import pytest

from ...helpers import create_diagram
from ...pngs import decode, differing_pixels
from ..shares.test_image_links import needs_resvg
from .test_render_engines import require

pytestmark = [needs_resvg, pytest.mark.usefixtures("local_backend")]

SVG = "{http://www.w3.org/2000/svg}"
LABELS = ("bdpqbd", "ppqqdd", "qqbbdp")
CASES = {
    "graphviz": ("graphviz", 'digraph G {{\n  node [shape=box]\n  {0} -> {1} [label="{2}"]\n}}\n'),
    "plantuml": ("plantuml", "@startuml\nrectangle {0}\nrectangle {1}\n{0} --> {1} : {2}\n@enduml\n"),
    "mermaid": ("mermaid", "flowchart LR\n  a[{0}] --> b[{1}]\n  b --> c[{2}]\n"),
    "dbml": ("dbml-renderer", "Table {0} {{\n  {1} int [pk]\n  {2} varchar\n}}\n"),
    # D2 kerns its labels, so a label spelt backwards has another width: its shapes' sizes are fixed.
    "d2": ("d2", "{0}: {{width: 160; height: 60}}\n{1}: {{width: 160; height: 60}}\n{2}: {{width: 160; height: 60}}\n"
                 "{0} -> {1}\n"),
}
GEOMETRY = ("x", "y", "width", "height", "d", "points", "cx", "cy", "r", "rx", "ry", "x1", "y1", "x2", "y2",
            "transform", "viewBox")


def _drawn(user, project, kind, labels):
    diagram = create_diagram(user, project["id"], title=kind, diagram_type=kind,
                             content=CASES[kind][1].format(*labels))
    svg = user.get(f"/diagrams/{diagram['id']}/image.svg")
    png = user.get(f"/diagrams/{diagram['id']}/image.png")
    assert svg.status_code == 200 and png.status_code == 200, (svg.get_data()[:300], png.get_data()[:300])
    assert png.mimetype == "image/png"
    return ET.fromstring(svg.get_data()), decode(png.get_data())


def _geometry(root):
    return [(element.tag, tuple(element.get(name) for name in GEOMETRY)) for element in root.iter()
            if element.tag not in (f"{SVG}style", f"{SVG}text", f"{SVG}tspan")]


def _numbers(text):
    return [float(number) for number in re.findall(r"-?\d*\.?\d+(?:e-?\d+)?", text or "")]


def _matrix(transform):
    """(a, b, c, d, e, f) of an SVG transform list made of matrix, translate, scale and rotate(0)."""
    total = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
    for name, arguments in re.findall(r"(\w+)\s*\(([^)]*)\)", transform or ""):
        values = _numbers(arguments)
        if name == "translate":
            step = (1, 0, 0, 1, values[0], values[1] if len(values) > 1 else 0)
        elif name == "scale":
            step = (values[0], 0, 0, values[1] if len(values) > 1 else values[0], 0, 0)
        elif name == "matrix":
            step = tuple(values)
        elif name == "rotate" and not any(values[:1]):
            continue
        else:
            raise AssertionError(f"transform {name} is not handled by this test")
        total = _times(total, step)
    return total


def _times(first, second):
    a, b, c, d, e, f = first
    g, h, i, j, k, m = second
    return (a * g + c * h, b * g + d * h, a * i + c * j, b * i + d * j, a * k + c * m + e, b * k + d * m + f)


def _viewport(element):
    """The matrix a nested <svg> (x, y, width, height, viewBox) puts on its content."""
    box = _numbers(element.get("viewBox"))
    x, y = float(element.get("x") or 0), float(element.get("y") or 0)
    if len(box) != 4:
        return (1, 0, 0, 1, x, y)
    scale = float(element.get("width") or box[2]) / box[2]
    return (scale, 0, 0, scale, x - box[0] * scale, y - box[1] * scale)


def _style(element, name):
    found = re.search(rf"{name}\s*:\s*([^;]+)", element.get("style") or "")
    return found.group(1).strip() if found else element.get(name)


def _length(value, size):
    """A coordinate of a <text> or <tspan>, in user units (`em` counts font sizes)."""
    value = (value or "0").strip()
    return float(value[:-2]) * size if value.endswith("em") else float(re.sub(r"px$", "", value))


def _position(text, size):
    """(x, baseline y) of a <text>, with its first <tspan>'s position (Mermaid puts it there)."""
    span = text.find(f"{SVG}tspan")
    x = _length(text.get("x") if text.get("x") is not None or span is None else span.get("x"), size)
    y = _length(text.get("y") if span is None or span.get("y") is None else span.get("y"), size)
    return x, y + (_length(span.get("dy"), size) if span is not None else 0)


def label_boxes(root, labels, png_width):
    """{label: (left, top, right, bottom) in PNG pixels} of each <text> element spelling one of `labels`."""
    box = _numbers(root.get("viewBox"))
    width = box[2] if len(box) == 4 else float(re.sub(r"[a-z]+$", "", root.get("width")))
    ratio = png_width / width
    origin = (ratio, 0, 0, ratio, -box[0] * ratio if box else 0, -box[1] * ratio if box else 0)
    found = {}

    def walk(element, matrix):
        for child in element:
            here = _times(matrix, _matrix(child.get("transform")))
            if child.tag == f"{SVG}svg":
                here = _times(here, _viewport(child))
            text = "".join(child.itertext()).strip() if child.tag == f"{SVG}text" else None
            if text in labels:
                size = float(re.sub(r"px$", "", _style(child, "font-size") or "16"))
                length = float(child.get("textLength") or len(text) * 0.62 * size)
                x, base = _position(child, size)
                # Mermaid centres its labels from a style sheet: where the anchor is not said, both sides.
                anchor = _style(child, "text-anchor") or ("start" if child.get("x") else None)
                left, right = {"start": (x, x + length), "middle": (x - length / 2, x + length / 2),
                               "end": (x - length, x)}.get(anchor, (x - length, x + length))
                corners = [(left, base - 0.8 * size), (right, base + 0.2 * size)]
                points = [(here[0] * x + here[2] * y + here[4], here[1] * x + here[3] * y + here[5])
                          for x, y in corners]
                found[text] = (min(p[0] for p in points), min(p[1] for p in points),
                               max(p[0] for p in points), max(p[1] for p in points))
            walk(child, here)

    walk(root, origin)
    return found


@pytest.mark.parametrize("kind", sorted(CASES))
def test_a_png_shows_each_label_of_its_diagram(user, project, settings, kind):
    require(CASES[kind][0])
    settings(RATE_LIMIT_RENDER="1000/minute", RATE_LIMIT_RENDER_SECONDS="10000/minute", RENDER_TIMEOUT=30)
    svg, png = _drawn(user, project, kind, LABELS)
    backwards_svg, backwards_png = _drawn(user, project, kind, [label[::-1] for label in LABELS])
    assert _geometry(svg) == _geometry(backwards_svg)  # the same layout: only the letters differ
    boxes = label_boxes(svg, LABELS, png[0])
    assert set(boxes) == set(LABELS), boxes
    for label, box in boxes.items():
        area = max(1, math.prod((box[2] - box[0], box[3] - box[1])))
        changed = differing_pixels(png, backwards_png, box)
        assert changed >= 0.05 * area, (kind, label, box, changed, area)


def _woff(tables):
    """A WOFF 1.0 file of (tag, stored bytes, the length it claims once inflated)."""
    offset = 44 + 20 * len(tables)
    entries, bodies = [], b""
    for tag, stored, length in tables:
        entries.append(struct.pack(">4sIIII", tag, offset + len(bodies), len(stored), length, 0))
        bodies += stored
    return struct.pack(">4sIIHHIHHIIIII", b"wOFF", 0x00010000, offset + len(bodies), len(tables), 0, 4096, 1, 0,
                       0, 0, 0, 0, 0) + b"".join(entries) + bodies


def test_a_broken_or_oversized_embedded_font_still_gives_a_png_with_its_text(user, project, kroki):
    bomb = zlib.compress(b"\0" * (64 << 20))  # claims 1 KB, inflates to 64 MB: only 1 KB is ever read
    faces = {"Garbage": b"not a font at all", "Bomb": _woff([(b"glyf", bomb, 1024)]),
             "PastTheEnd": _woff([(b"glyf", b"x" * 10, 10)])[:-5],
             "Truncated": b"wOFF" + b"\0" * 10}
    style = "".join(f"@font-face {{ font-family: {name}; src: url(data:font/woff;base64,"
                    f"{base64.b64encode(data).decode()}); }}" for name, data in faces.items())
    kroki.svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="300" height="60"><style>' + style + "</style>"
                 + "".join(f'<text x="{10 + 70 * index}" y="30" font-family="{name}, sans-serif" font-size="16">'
                           f"bdpq</text>" for index, name in enumerate(faces)) + "</svg>")
    diagram = create_diagram(user, project["id"], diagram_type="plantuml", content="@startuml\nA -> B\n@enduml")
    png = user.get(f"/diagrams/{diagram['id']}/image.png")
    assert png.status_code == 200 and png.mimetype == "image/png", png.get_data()[:300]
    width, height, channels, rows = decode(png.get_data())
    assert (width, height) == (300, 60)
    inked = sum(row[x * channels + 3] > 0 for row in rows[10:40] for x in range(width))  # alpha: drawn pixels
    assert inked > 200  # the four labels drew, with the sans-serif fallback
