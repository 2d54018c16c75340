"""The pixels resvg would have to fill for an SVG, estimated from the SVG alone before resvg starts, so a
PNG too costly to make is refused at once (docs/image-links.md, "PNG"; docs/security.md, "PNG budget").

Two figures, each held to RENDER_MAX_PNG_PIXELS:

- the canvas: the root's width x height (CSS units converted to pixels; a missing or percentage size
  takes the viewBox's, as resvg does);
- the filtered pixels: every element drawn through a filter costs the filter's region, summed over the
  elements. The region is the filter's x/y/width/height, in user space (filterUnits="userSpaceOnUse") or
  as a fraction of the element's bounding box (the default; -10%/120% when unset), the box estimated from
  the element's shapes (rects, images, circles, ellipses, lines, polygons, paths with absolute
  coordinates) or taken as the whole canvas when they do not say, and each region is clipped to the
  canvas. A Gaussian blur whose deviation spans more than the bound (its kernel, 6 sigma on each axis)
  counts as that many pixels.

A D2 source with 30 shadowed 800x800 shapes asks for 30 regions of 1,600 x 1,600 pixels (77 million)
on a 25,945 x 1,007 canvas (26 million): resvg spent about 0.8 s of CPU per such region on this project's
machine.
"""
import math
import re
from xml.etree.ElementTree import ParseError

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring

SVG = "{http://www.w3.org/2000/svg}"
DEFAULT_SIZE = 100.0  # resvg's size for an SVG that gives neither width/height nor a viewBox
UNITS = {"": 1.0, "px": 1.0, "pt": 4 / 3, "pc": 16.0, "mm": 96 / 25.4, "cm": 96 / 2.54, "in": 96.0, "em": 16.0,
         "ex": 8.0}
_LENGTH = re.compile(r"^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*(px|pt|pc|mm|cm|in|em|ex|%)?\s*$")
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_PATH_TOKEN = re.compile(r"[A-Za-z]|[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_FILTER_URL = re.compile(r"url\(\s*['\"]?#([^)'\"\s]+)")
_STYLE_FILTER = re.compile(r"(?:^|;)\s*filter\s*:\s*([^;]+)")
# Numbers a path command takes per segment, and which of them are (x, y) points.
_PATH_POINTS = {"M": (2, ((0, 1),)), "L": (2, ((0, 1),)), "T": (2, ((0, 1),)), "C": (6, ((0, 1), (2, 3), (4, 5))),
                "S": (4, ((0, 1), (2, 3))), "Q": (4, ((0, 1), (2, 3))), "A": (7, ((5, 6),))}


class Unreadable(Exception):
    """The SVG does not parse (it was sanitized, so this is not expected)."""


def pixels(svg):
    """(canvas pixels, filtered pixels) resvg would fill for `svg`."""
    try:
        root = fromstring(svg.encode("utf-8"))
    except (ParseError, DefusedXmlException, ValueError) as exc:
        raise Unreadable(str(exc)) from exc
    width, height = canvas_size(root)
    return width * height, filtered_pixels(root, width, height)


def _length(value, reference=None):
    """A length in pixels; a percentage of `reference`; None when there is none or it does not parse."""
    found = _LENGTH.match(value or "")
    if not found:
        return None
    number, unit = float(found.group(1)), found.group(2) or ""
    if unit == "%":
        return None if reference is None else number / 100 * reference
    return number * UNITS[unit]


def canvas_size(root):
    view = [float(number) for number in _NUMBER.findall(root.get("viewBox") or "")]
    view_size = (abs(view[2]), abs(view[3])) if len(view) == 4 else (None, None)
    sizes = []
    for name, from_view in zip(("width", "height"), view_size, strict=True):
        size = _length(root.get(name), from_view)
        if size is None:
            size = from_view if from_view is not None else DEFAULT_SIZE
        sizes.append(max(0.0, size))
    return sizes[0], sizes[1]


def filtered_pixels(root, width, height):
    canvas = width * height
    filters = {element.get("id"): element for element in root.iter(f"{SVG}filter") if element.get("id")}
    total = 0.0
    for element in root.iter():
        reference = element.get("filter") or ""
        if style := _STYLE_FILTER.search(element.get("style") or ""):
            reference = style.group(1)
        found = _FILTER_URL.search(reference)
        if found is None or found.group(1) not in filters:
            continue
        region, blur = _region(filters[found.group(1)], element, width, height)
        total += max(min(region, canvas), blur)
    return total


def _region(definition, element, width, height):
    """(the region's pixels, the pixels of its widest blur kernel) of one element drawn through a filter."""
    blur = 0.0
    for primitive in definition.iter(f"{SVG}feGaussianBlur"):
        deviations = [abs(float(number)) for number in _NUMBER.findall(primitive.get("stdDeviation") or "")]
        if deviations:
            blur = max(blur, (6 * deviations[0]) * (6 * deviations[-1]))
    if definition.get("filterUnits") == "userSpaceOnUse":
        region_width = _length(definition.get("width"), width)
        region_height = _length(definition.get("height"), height)
        return ((1.2 * width if region_width is None else region_width)
                * (1.2 * height if region_height is None else region_height)), blur
    box = _bounding_box(element) or (width, height)
    fractions = [_fraction(definition.get(name)) for name in ("width", "height")]
    return abs(fractions[0] * box[0]) * abs(fractions[1] * box[1]), blur


def _fraction(value):
    """An objectBoundingBox length: "200%" or "2" is twice the box; unset is 120%."""
    found = _LENGTH.match(value or "")
    if not found:
        return 1.2
    number = float(found.group(1))
    return number / 100 if found.group(2) == "%" else number


def _bounding_box(element):
    """(width, height) spanned by the shapes in `element` (transforms left out), or None when a shape
    does not say where it is."""
    xs, ys = [], []
    for shape in element.iter():
        points = _shape_points(shape)
        if points is None:
            return None
        for x, y in points:
            xs.append(x)
            ys.append(y)
    if not xs:
        return None
    return max(xs) - min(xs), max(ys) - min(ys)


def _number(shape, name):
    found = _NUMBER.match(shape.get(name) or "0")
    return float(found.group(0)) if found else 0.0


def _shape_points(shape):
    """The corner points of one shape; [] for what draws nothing of its own; None when unknown."""
    tag = shape.tag.rpartition("}")[2]
    if tag in ("rect", "image", "use", "foreignObject", "svg"):
        x, y = _number(shape, "x"), _number(shape, "y")
        return [(x, y), (x + _number(shape, "width"), y + _number(shape, "height"))]
    if tag in ("circle", "ellipse"):
        cx, cy = _number(shape, "cx"), _number(shape, "cy")
        rx = _number(shape, "r") if tag == "circle" else _number(shape, "rx")
        ry = _number(shape, "r") if tag == "circle" else _number(shape, "ry")
        return [(cx - rx, cy - ry), (cx + rx, cy + ry)]
    if tag == "line":
        return [(_number(shape, "x1"), _number(shape, "y1")), (_number(shape, "x2"), _number(shape, "y2"))]
    if tag in ("polygon", "polyline"):
        numbers = [float(number) for number in _NUMBER.findall(shape.get("points") or "")]
        return list(zip(numbers[0::2], numbers[1::2], strict=False))
    if tag == "path":
        return _path_points(shape.get("d") or "")
    return []  # groups, text (small beside the shapes it labels), gradients...


def _path_points(data):
    """The points of a path written with absolute commands only; None for any relative one."""
    points, command, numbers = [], None, []
    x = y = 0.0
    for token in [*_PATH_TOKEN.findall(data), "Z"]:
        if token.isalpha():
            if command is not None and not _flush(command, numbers, points):
                return None
            command, numbers = token, []
            if command.islower() and command != "z":
                return None
            continue
        numbers.append(float(token))
        if command == "H":
            x = numbers.pop()
            points.append((x, points[-1][1] if points else y))
        elif command == "V":
            y = numbers.pop()
            points.append((points[-1][0] if points else x, y))
    return points


def _flush(command, numbers, points):
    """Add the points of `command`'s numbers; False for a command this reader does not follow."""
    if command in "HVZz":
        return True
    if command not in _PATH_POINTS:
        return False
    size, pairs = _PATH_POINTS[command]
    for start in range(0, len(numbers) - size + 1, size):
        points.extend((numbers[start + i], numbers[start + j]) for i, j in pairs)
    return True


def too_large(svg, limit):
    """The pixels `svg` needs when that is more than `limit` (the larger of its two figures), else None."""
    canvas, filtered = pixels(svg)
    needed = max(canvas, filtered)
    return math.ceil(needed) if needed > limit else None
