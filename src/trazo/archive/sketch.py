"""Freehand sketches from uploads: our own sketch JSON (checked, normalized) and Excalidraw drawings."""
import json
import math
import uuid

from ..core.content import sketches
from ..core.content.sketches import is_sketch

SHAPES = ("rectangle", "diamond", "ellipse")
SKETCH_TYPES = frozenset({*SHAPES, "arrow", "line", "text", "freehand"})


class NotImportable(ValueError):
    """A file that cannot become a diagram; the message is the skip reason."""


def load_json(text):
    """JSON from an untrusted file: NaN/Infinity read as 0; absurd nesting or a lone surrogate is an error."""
    try:
        return sketches.load_json(text)
    except ValueError as exc:
        raise NotImportable("invalid_json") from exc


def _number(value, default=0.0):
    if isinstance(value, bool):
        return default
    try:
        number = float(value)
    except (TypeError, ValueError):
        return default
    return number if math.isfinite(number) else default


def _element_id(value):
    if isinstance(value, bool) or not isinstance(value, (str, int)) or value == "":
        return None
    return str(value)


def _sketch(elements, background, viewport=None):
    viewport = viewport if isinstance(viewport, dict) else {}
    return json.dumps({
        "version": 1,
        "elements": elements,
        "viewport": {"zoom": _number(viewport.get("zoom"), 1) or 1, "scrollX": _number(viewport.get("scrollX")),
                     "scrollY": _number(viewport.get("scrollY"))},
        "background": background if isinstance(background, str) and background else "#ffffff",
    }, ensure_ascii=False)


def normalize_freehand(text):
    """Our sketch JSON, keeping known element kinds with sane geometry and style."""
    data = load_json(text)
    if not is_sketch(data):
        raise NotImportable("not_a_sketch")
    elements = []
    for raw in data["elements"]:
        if not isinstance(raw, dict) or raw.get("type") not in SKETCH_TYPES:
            continue
        element = dict(raw)
        element["id"] = _element_id(raw.get("id")) or uuid.uuid4().hex[:12]
        for key in ("x", "y", "width", "height"):
            element[key] = _number(raw.get(key))
        element.setdefault("strokeColor", "#1e1e1e")
        element.setdefault("fillColor", "transparent")
        element["strokeWidth"] = _number(raw.get("strokeWidth"), 2) or 2
        element["opacity"] = min(1.0, max(0.0, _number(raw.get("opacity"), 1)))
        elements.append(element)
    return _sketch(elements, data.get("background"), data.get("viewport"))


def _absolute_points(raw):
    points = raw.get("points")
    if not isinstance(points, list):
        return []
    x0, y0 = _number(raw.get("x")), _number(raw.get("y"))
    return [{"x": x0 + _number(p[0]), "y": y0 + _number(p[1])}
            for p in points if isinstance(p, (list, tuple)) and len(p) >= 2]


def _base(raw, kind, element_id):
    element = {
        "id": element_id, "type": kind, "x": _number(raw.get("x")), "y": _number(raw.get("y")),
        "width": max(1.0, _number(raw.get("width"), 1)), "height": max(1.0, _number(raw.get("height"), 1)),
        "strokeColor": raw.get("strokeColor") if isinstance(raw.get("strokeColor"), str) else "#1e1e1e",
        "fillColor": raw.get("backgroundColor") if isinstance(raw.get("backgroundColor"), str) else "transparent",
        "strokeWidth": _number(raw.get("strokeWidth"), 2) or 2,
        "opacity": min(1.0, max(0.0, _number(raw.get("opacity"), 100) / 100)),
    }
    if raw.get("strokeStyle") in ("dashed", "dotted"):
        element["dashed"] = True
    groups = raw.get("groupIds")
    if isinstance(groups, list) and groups:
        element["groupId"] = str(groups[0])
    return element


def _path_element(raw, kind, element_id):
    points = _absolute_points(raw)
    if len(points) < 2:
        return None
    xs, ys = [p["x"] for p in points], [p["y"] for p in points]
    element = _base(raw, kind, element_id)
    element.update({"x": min(xs), "y": min(ys), "width": max(1.0, max(xs) - min(xs)),
                    "height": max(1.0, max(ys) - min(ys)), "points": points, "fillColor": "transparent"})
    if kind == "arrow":
        element["endArrowhead"] = bool(raw.get("endArrowhead", "arrow"))
        element["startArrowhead"] = bool(raw.get("startArrowhead"))
    return element


def _anchor_side(point, box):
    dx = (point["x"] - (box["x"] + box["width"] / 2)) / max(box["width"] / 2, 1)
    dy = (point["y"] - (box["y"] + box["height"] / 2)) / max(box["height"] / 2, 1)
    if abs(dx) >= abs(dy):
        return "right" if dx > 0 else "left"
    return "bottom" if dy > 0 else "top"


def excalidraw_to_freehand(text):
    """An Excalidraw drawing as a sketch, plus warnings naming the kinds of elements left out."""
    data = load_json(text)
    if not isinstance(data, dict) or data.get("type") != "excalidraw" or not isinstance(data.get("elements"), list):
        raise NotImportable("not_excalidraw")
    live = [raw for raw in data["elements"] if isinstance(raw, dict) and not raw.get("isDeleted")]
    ids = {_element_id(raw.get("id")) for raw in live} - {None}
    converted, labels, bindings, left_out = {}, [], [], {}
    for raw in live:
        kind, element_id = raw.get("type"), _element_id(raw.get("id")) or uuid.uuid4().hex[:12]
        element = None
        if kind in SHAPES:
            element = _base(raw, kind, element_id)
            if kind == "rectangle" and raw.get("roundness"):
                element["borderRadius"] = 8
        elif kind in ("arrow", "line", "freedraw"):
            element = _path_element(raw, "freehand" if kind == "freedraw" else kind, element_id)
            if element is not None and kind == "arrow":
                bindings.append((element, raw))
        elif kind == "text":
            if _element_id(raw.get("containerId")) in ids:
                labels.append(raw)
                continue
            element = _base(raw, "text", element_id)
            element.update({"text": str(raw.get("text") or ""), "fontSize": _number(raw.get("fontSize"), 16) or 16,
                            "fontFamily": "sans-serif", "fillColor": "transparent"})
        if element is None:
            left_out[str(kind)] = left_out.get(str(kind), 0) + 1
            continue
        converted[element_id] = element
    for raw in labels:
        container = converted.get(_element_id(raw.get("containerId")))
        if container is not None:
            container["text"] = str(raw.get("text") or "")
            container["fontSize"] = _number(raw.get("fontSize"), 14) or 14
    for element, raw in bindings:
        for side, point in (("start", element["points"][0]), ("end", element["points"][-1])):
            binding = raw.get(f"{side}Binding")
            target = converted.get(_element_id(binding.get("elementId"))) if isinstance(binding, dict) else None
            if target is not None and target["type"] in SHAPES:
                element[f"{side}Binding"] = {"elementId": target["id"], "anchorSide": _anchor_side(point, target)}
    app_state = data.get("appState") if isinstance(data.get("appState"), dict) else {}
    warnings = [f"skipped_{kind}:{count}" for kind, count in sorted(left_out.items())]
    return _sketch(list(converted.values()), app_state.get("viewBackgroundColor")), warnings
