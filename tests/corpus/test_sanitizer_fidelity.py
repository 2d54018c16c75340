"""Sanitizer fidelity on the real diagrams corpus (../shared/corpus, issue 25): for each case an engine on
this host draws, the engine's raw SVG (the local renderer object) and what the service serves
(services/render/sanitize.clean_svg of it) hold the same elements (the multiset of tags), the same text,
the same `data:` resources (D2's `@font-face` fonts, raster pictures as they are, an SVG picture compared
the same way once decoded: PlantUML's sub-diagrams) and the same http(s)/mailto links, apart from the
documented dangerous set below (docs/security.md, "Every SVG we return"). So a sanitizer change that
drops fonts, pictures, labels or links fails here. Each type's cases are drawn 3 at a time (about 2
minutes in all on 2 cores); a case its engine does not draw (a D2 import, an include no bundled library
holds) is left to tests/corpus/test_corpus_draws.py."""
import base64
import hashlib
import json
import os
import re
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import unquote_to_bytes

import pytest
from defusedxml.ElementTree import fromstring

from trazo.services.render import RenderError, clean_svg
from trazo.services.render.local import LocalRenderer

pytestmark = pytest.mark.corpus

CORPUS_DIR = Path(os.environ.get("CORPUS_DIR") or Path(__file__).resolve().parents[3] / "shared" / "corpus")
TYPES = ("c4plantuml", "d2", "dbml", "graphviz", "mermaid", "plantuml")
THREADS = 3

SVG, XHTML = "http://www.w3.org/2000/svg", "http://www.w3.org/1999/xhtml"
# The documented dangerous set: these elements go with everything inside them,
DANGEROUS = frozenset({
    "script", "handler", "listener", "iframe", "frame", "frameset", "object", "embed", "applet", "base",
    "link", "meta", "form", "input", "button", "textarea", "select", "audio", "video", "source", "track",
    "portal", "noscript", "template",
})
# and so do animations that set a link, a handler or a style, elements of other namespaces than SVG and
# XHTML, and XHTML outside a <foreignObject>. Links keep only these schemes, and #fragments.
ANIMATIONS = frozenset({"animate", "set", "animatemotion", "animatetransform", "animatecolor", "discard"})
LINK_SCHEMES = ("http:", "https:", "mailto:", "#")
CSS_DATA_URL = re.compile(r"""url\(\s*["']?(data:[^"')\s]*)""", re.IGNORECASE)


def _cases(diagram_type):
    listing = CORPUS_DIR / "cases.json"
    if not listing.is_file():
        pytest.skip(f"no corpus at {CORPUS_DIR} (set CORPUS_DIR to check one)")
    return [case for case in json.loads(listing.read_text(encoding="utf-8")) if case["type"] == diagram_type]


def _split(tag):
    return tuple(tag[1:].split("}", 1)) if tag.startswith("{") else (None, tag)


def _data(url, inventory, level):
    """Count a data: URL in `inventory`: an SVG picture by what it holds, anything else by its type and hash."""
    header, _, payload = url.strip().partition(",")
    kind = "".join(header.split()).lower()[len("data:"):]
    if kind.split(";")[0] != "image/svg+xml":
        inventory["data"][(kind.split(";")[0], hashlib.sha256(payload.encode()).hexdigest()[:16])] += 1
        return
    data = unquote_to_bytes(payload)
    if ";base64" in kind:
        data = base64.b64decode(b"".join(data.split()) + b"=" * (-len(b"".join(data.split())) % 4))
    inventory["pictures"].append(_inventory(fromstring(data, forbid_entities=True), level + 1))


def _inventory(root, level=0):
    """What a reader sees of an SVG: tags, texts, data: resources, SVG pictures (each an inventory), links."""
    inventory = {"tags": Counter(), "texts": [], "data": Counter(), "pictures": [], "links": Counter()}
    _walk(root, SVG, inventory, level, in_foreign=False, top=True)
    inventory["pictures"].sort(key=repr)
    return inventory


def _walk(element, parent_namespace, inventory, level, in_foreign, top=False):
    namespace, local = _split(element.tag)
    namespace, name = namespace or parent_namespace, local.lower()
    target = _split(element.get("attributeName", ""))[1].rpartition(":")[2].strip().lower()
    if (name in DANGEROUS or namespace not in (SVG, XHTML) or (namespace == XHTML and not in_foreign)
            or (name in ANIMATIONS and (target in ("href", "style") or target.startswith("on")))):
        return
    inventory["tags"][(namespace, name)] += 1
    for key, value in element.attrib.items():
        attribute = _split(key)[1].lower()
        compact = "".join(value.split())
        if name == "a" and attribute == "href" and compact.lower().startswith(LINK_SCHEMES):
            inventory["links"][compact] += 1
        elif attribute in ("href", "src") and compact.lower().startswith("data:") and name != "a":
            _data(value, inventory, level)
        for url in CSS_DATA_URL.findall(value):
            _data(url, inventory, level)
    if name == "style":
        for url in CSS_DATA_URL.findall(element.text or ""):
            _data(url, inventory, level)
    elif (element.text or "").strip():
        inventory["texts"].append(element.text.strip())
    for child in element:
        _walk(child, namespace, inventory, level, in_foreign or name == "foreignobject")
        if (child.tail or "").strip():
            inventory["texts"].append(child.tail.strip())


def _differences(raw, served):
    """What the served SVG lost or gained against the raw one, key by key ([] when they agree)."""
    found = []
    for key in ("tags", "data", "links"):
        lost, gained = raw[key] - served[key], served[key] - raw[key]
        if lost or gained:
            found.append(f"{key}: lost {dict(lost)} gained {dict(gained)}")
    if raw["texts"] != served["texts"]:
        lost = Counter(raw["texts"]) - Counter(served["texts"])
        found.append(f"texts: lost {list(lost)[:5]} (raw {len(raw['texts'])}, served {len(served['texts'])})")
    if len(raw["pictures"]) != len(served["pictures"]):
        found.append(f"pictures: {len(raw['pictures'])} SVG pictures drawn, {len(served['pictures'])} served")
    else:
        for index, (inner, kept) in enumerate(zip(raw["pictures"], served["pictures"], strict=True)):
            found += [f"picture {index}: {difference}" for difference in _differences(inner, kept)]
    return found


@pytest.fixture
def renderer(app):
    """The local backend as the service builds it, with the configured engine limits."""
    return LocalRenderer(app.config, app.config["RENDER_TIMEOUT"], app.config["RENDER_MAX_SVG_BYTES"])


@pytest.mark.parametrize("diagram_type", TYPES)
def test_what_an_engine_draws_is_served_whole_but_for_the_dangerous_set(renderer, diagram_type):
    cases = _cases(diagram_type)
    if diagram_type not in renderer.supported_types():
        pytest.skip(f"no engine draws {diagram_type} here (make install installs it)")

    def check(case):
        source = (CORPUS_DIR / case["file"]).read_text(encoding="utf-8")
        try:
            raw = renderer.render_svg(diagram_type, source)
        except RenderError:
            return case["id"], None  # not drawn: tests/corpus/test_corpus_draws.py judges that
        return case["id"], _differences(_inventory(fromstring(raw.encode(), forbid_entities=True)),
                                        _inventory(fromstring(clean_svg(raw).encode())))

    with ThreadPoolExecutor(THREADS) as pool:
        results = list(pool.map(check, cases))
    compared = [(case_id, found) for case_id, found in results if found is not None]
    failing = [f"{case_id}: {'; '.join(found)[:400]}" for case_id, found in compared if found]
    print(f"{diagram_type}: {len(compared)} of {len(cases)} cases drawn and compared, {len(failing)} differ")
    assert compared, f"no {diagram_type} case of the corpus drew here"
    assert not failing, "\n".join(failing)
