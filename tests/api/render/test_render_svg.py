"""Every SVG POST /diagrams/render returns is inert, whatever the backend drew: no scripts, event
attributes, javascript: links or references to other hosts, and a policy that forbids them anyway."""
import time
import xml.etree.ElementTree as ET

import pytest

from ...helpers import error_detail

POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:"
SVG = "{http://www.w3.org/2000/svg}"
XHTML = "{http://www.w3.org/1999/xhtml}"
XLINK_HREF = "{http://www.w3.org/1999/xlink}href"

HOSTILE = """<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" onload="alert(1)"
     width="200" height="100">
  <script>alert(2)</script>
  <style>@import url(http://evil.example/x.css);
    .node { fill: url(#shade); stroke: url('http://evil.example/s') }</style>
  <image xlink:href="http://evil.example/track.png" width="1" height="1"/>
  <image href="data:image/png;base64,iVBORw0KGgo=" width="1" height="1"/>
  <a xlink:href=" java&#9;script:alert(3)"><text onclick="alert(4)" x="10" y="20">login</text></a>
  <set attributeName="xlink:href" to="javascript:alert(5)"/>
  <rect width="10" height="10" fill="url(http://evil.example/#p)" stroke="url(#shade)"/>
  <foreignObject width="100" height="20">
    <div xmlns="http://www.w3.org/1999/xhtml" onmouseover="alert(6)">dashboard<script>alert(7)</script></div>
  </foreignObject>
</svg>
"""
BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>
<svg xmlns="http://www.w3.org/2000/svg"><text>&b;</text></svg>
"""


def _render(client, source, diagram_type="graphviz", **kwargs):
    return client.post("/diagrams/render", json={"source": source, "diagram_type": diagram_type}, **kwargs)


def _svg(response):
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    assert response.mimetype == "image/svg+xml"
    assert response.headers["Content-Security-Policy"] == POLICY
    return ET.fromstring(response.get_data())


def _no_active_content(root):
    for element in root.iter():
        assert not element.tag.endswith("}script")
        assert not any(name.lower().startswith("on") for name in element.attrib), element.attrib
        for name in ("href", XLINK_HREF, "src"):
            value = element.get(name)
            assert value is None or value.startswith(("#", "data:image/png")), value
    assert "evil.example" not in ET.tostring(root, encoding="unicode")


@pytest.mark.usefixtures("local_backend")
def test_a_graphviz_javascript_link_is_removed_from_a_local_render(client):
    source = 'digraph { login [URL="javascript:alert(1)"]; dashboard [URL="#dashboard"]; login -> dashboard }'
    for _ in range(2):  # rendered, then from the cache
        root = _svg(_render(client, source))
        _no_active_content(root)
        links = [element.get(XLINK_HREF) for element in root.iter(f"{SVG}a")]
        assert "#dashboard" in links and not any(link and "javascript" in link for link in links)
        assert {"login", "dashboard"} <= {element.text for element in root.iter(f"{SVG}text")}


def test_a_hostile_kroki_svg_is_cleaned(client, kroki):
    kroki.svg = HOSTILE
    root = _svg(_render(client, "digraph { a }"))
    _no_active_content(root)
    assert root.get("width") == "200"
    style = root.find(f"{SVG}style").text
    assert "@import" not in style and "url(#shade)" in style and "http" not in style
    assert [image.get("href") for image in root.iter(f"{SVG}image")] == [None, "data:image/png;base64,iVBORw0KGgo="]
    assert [text.text for text in root.iter(f"{SVG}text")] == ["login"]
    assert root.find(f"{SVG}set") is None
    assert root.find(f"{SVG}rect").attrib == {"width": "10", "height": "10", "stroke": "url(#shade)"}
    label = root.find(f"{SVG}foreignObject/{XHTML}div")
    assert label.text == "dashboard" and list(label) == [] and label.attrib == {}


def test_a_kroki_svg_declaring_entities_is_refused(client, kroki):
    kroki.svg = BILLION_LAUGHS
    assert error_detail(_render(client, "digraph { a }"), 502).startswith("The rendering service failed")


@pytest.mark.parametrize("opening", ["url(", "@import "])
def test_a_kroki_style_sheet_of_unclosed_references_is_emptied_in_linear_time(client, kroki, opening):
    kroki.svg = f'<svg xmlns="http://www.w3.org/2000/svg"><style>{opening * 200_000}</style></svg>'
    started = time.thread_time()
    root = _svg(_render(client, "digraph { a }"))
    assert time.thread_time() - started < 1  # quadratic patterns took over 60 s on this input
    assert not root.find(f"{SVG}style").text


def test_a_url_hidden_behind_a_parenthesis_empties_the_style_sheet(client, kroki):
    kroki.svg = ('<svg xmlns="http://www.w3.org/2000/svg"><style>a { fill: url(#ok) } '
                 'b { background: url(http://evil.example/(x)) }</style></svg>')
    root = _svg(_render(client, "digraph { a }"))
    assert not root.find(f"{SVG}style").text


@pytest.mark.parametrize("spelling", [
    r"u\72l(http://evil.example/x)",
    r"\75rl(http://evil.example/x)",
    r"u\000072l(http://evil.example/x)",
    r"U\52L(http://evil.example/x)",
    r"url\28 http://evil.example/x)",
    r"u/**/rl(http://evil.example/x)",
    r"u/* a comment */\72l(http://evil.example/x)",
    "u&#92;72l(http://evil.example/x)",  # an XML character reference the parser decodes into a CSS escape
])
def test_an_escaped_or_commented_url_never_survives_and_a_local_one_does(client, kroki, spelling):
    kroki.svg = (f'<svg xmlns="http://www.w3.org/2000/svg"><style>.n {{ fill: {spelling} }} .m {{ fill: url(#grad) }}'
                 f'</style><rect id="hostile" fill="{spelling}" stroke="url(#grad)" width="1" height="1"/>'
                 f'<rect id="styled" style="fill: {spelling}" width="1" height="1"/>'
                 f'<rect id="local" fill="url(#grad)" style="stroke: url(&quot;#grad&quot;)" width="1" height="1"/>'
                 '</svg>')
    root = _svg(_render(client, "digraph { a }"))
    rects = {rect.get("id"): rect.attrib for rect in root.iter(f"{SVG}rect")}
    assert "evil.example" not in ET.tostring(root, encoding="unicode")
    assert rects["hostile"] == {"id": "hostile", "stroke": "url(#grad)", "width": "1", "height": "1"}
    assert not rects["styled"].get("style")
    assert rects["local"] == {"id": "local", "fill": "url(#grad)", "style": 'stroke: url("#grad")', "width": "1",
                              "height": "1"}
    assert not root.find(f"{SVG}style").text
