"""What the SVG sanitizer keeps of a drawing, through POST /diagrams/render: the fonts an engine embeds as
`data:` URLs in `@font-face` (D2's), `data:` images (raster as they are, SVG cleaned by the same sanitizer,
nested at most 3 deep: PlantUML's sub-diagrams), and `http(s)`/`mailto` links (Mermaid `click ... href`,
D2 `link:`, Graphviz `URL=`, PlantUML `[[...]]`); never a script, an event attribute, an external picture or
a link to another scheme, however spelled. The SVG's Content-Security-Policy lets a browser show inline
fonts and pictures (`img-src data:; font-src data:`) and nothing else. docs/security.md, "Every SVG we
return"."""
import base64
import time
import xml.etree.ElementTree as ET
from urllib.parse import quote

import pytest

from ...helpers import create_diagram, share
from .test_render_engines import require
from .test_render_svg import POLICY, SVG, XLINK_HREF, _render, _svg

FONT = "d09GRgABAAAAAA1IAAoAAAAAFEwAAguFAAAAAAAAAAAAAAAAAAAAAAAAAABPUy8yAAAA9AAAAGAAAABg=="
FONT_TYPES = ["application/font-woff", "application/font-woff2", "font/woff", "font/woff2", "font/ttf",
              "font/otf", "application/x-font-ttf", "application/x-font-opentype"]
PNG = "data:image/png;base64,iVBORw0KGgo="
INNER = ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="194" '
         'height="79" onload="alert(1)"><script>alert(2)</script><text x="6" y="31">Do you want to continue?</text>'
         '<image href="http://evil.example/track.png" width="1" height="1"/>'
         '<a href="javascript:alert(3)"><text>Yes</text></a></svg>')


def _document(body, head=""):
    return (f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="300" '
            f'height="200">{head}{body}</svg>')


def _style(root):
    return "".join(style.text or "" for style in root.iter(f"{SVG}style"))


def _b64(text):
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def _decoded(url):
    """The SVG document a kept data:image/svg+xml URL holds (it is always re-encoded as base64)."""
    prefix = "data:image/svg+xml;base64,"
    assert url.startswith(prefix), url[:60]
    return ET.fromstring(base64.b64decode(url[len(prefix):]))


def _attr(value):
    """`value` written as an XML attribute's value."""
    return value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")


def _texts(root):
    return [text.strip() for text in root.itertext() if text.strip()]


# Item 2: fonts.

def test_every_data_font_in_a_font_face_src_is_kept(client, kroki):
    faces = "".join(f'@font-face {{ font-family: f{index}; src: url("data:{kind};base64,{FONT}") format("woff"); }}\n'
                    for index, kind in enumerate(FONT_TYPES))
    sheet = f"<style><![CDATA[{faces}.a {{ fill: url(#g) }}]]></style>"
    kroki.svg = _document('<text class="a">dashboard</text>', sheet)
    style = _style(_svg(_render(client, "digraph { a }")))
    for kind in FONT_TYPES:
        assert f'url("data:{kind};base64,{FONT}")' in style
    assert "url(#g)" in style and style.count("@font-face") == len(FONT_TYPES)


def test_a_font_face_keeps_its_other_sources_order_and_a_local_one(client, kroki):
    face = (f"@font-face {{ font-family: x; src: local(Arial), url(data:font/woff2;base64,{FONT}) format('woff2'),"
            f" url(data:font/ttf;base64,{FONT}); font-weight: 700 }}")
    kroki.svg = _document("", f"<style>{face}</style>")
    style = _style(_svg(_render(client, "digraph { a }")))
    assert style == face


@pytest.mark.parametrize("sheet", [
    f".n {{ background: url(data:font/woff;base64,{FONT}) }}",  # a data font outside @font-face
    f"@font-face {{ font-family: x; unicode-range: url(data:font/woff;base64,{FONT}) }}",  # not in src
    f"@font-face {{ src: url(data:text/html;base64,{FONT}) }}",  # not a font type
    "@font-face { src: url(http://evil.example/font.woff) }",  # an external font
    "@font-face { src: url(//evil.example/font.woff) }",
    "@font-face { src: url(font.woff) }",
])
def test_a_data_font_anywhere_else_or_an_external_font_is_dropped(client, kroki, sheet):
    kroki.svg = _document("<text>a</text>", f"<style>{sheet}</style>")
    style = _style(_svg(_render(client, "digraph { a }")))
    assert "data:" not in style and "evil.example" not in style and "font.woff" not in style


def test_a_font_hidden_behind_an_escaped_at_rule_is_dropped(client, kroki):
    kroki.svg = _document("", f"<style>@font-fac\\65 {{ src: url(data:font/woff;base64,{FONT}) }}</style>")
    assert "data:" not in _style(_svg(_render(client, "digraph { a }")))


def test_megabytes_of_font_are_kept_in_linear_time(client, kroki, settings):
    settings(RENDER_MAX_SVG_BYTES=20 * 1024 * 1024)
    payload = "AAAA" * 1_000_000  # 4 MB of base64, as a large embedded font
    faces = "".join(f"@font-face {{ font-family: f{index}; src: url(data:font/woff2;base64,{payload}) }}"
                    for index in range(2))
    kroki.svg = _document("<text>a</text>", f"<style>{faces} .x {{ fill: u\\72l(#g) }} {'url(' * 1000}</style>")
    started = time.thread_time()
    response = _render(client, "digraph { a }")
    elapsed = time.thread_time() - started
    assert not _style(_svg(response))  # the unclosed url( empties the sheet, however large
    kroki.svg = _document("<text>a</text>", f"<style>{faces}</style>")
    assert _style(_svg(_render(client, "digraph { b }"))).count(payload) == 2
    assert elapsed < 10  # a pattern that backtracks on the payload takes minutes on 8 MB


def test_a_shared_image_link_keeps_the_fonts_and_lets_a_browser_show_them(client, kroki, user, project):
    kroki.svg = _document("<text>dashboard</text>", f"<style>@font-face {{ src: url(data:font/woff;base64,{FONT}) }}"
                          "</style>")
    diagram = create_diagram(user, project["id"], diagram_type="d2", content="a -> b")
    response = client.get(f"/shared/{share(user, diagram['id'])['token']}/image.svg")
    assert response.status_code == 200 and response.mimetype == "image/svg+xml"
    assert response.headers["Content-Security-Policy"] == POLICY
    assert f"url(data:font/woff;base64,{FONT})" in _style(ET.fromstring(response.get_data()))


def test_a_local_d2_drawing_keeps_its_fonts(client, local_backend):
    require("d2")
    root = _svg(_render(client, "login -> dashboard: signs in", "d2"))
    style = _style(root)
    assert style.count("@font-face") >= 2
    assert 'src: url("data:application/font-woff;base64,' in style
    assert {"login", "dashboard", "signs in"} <= set(_texts(root))


# Item 3: data images.

@pytest.mark.parametrize("encoding", ["base64", "percent", "plain"])
def test_an_embedded_svg_picture_is_kept_cleaned(client, kroki, encoding):
    url = {"base64": f"data:image/svg+xml;base64,{_b64(INNER)}",
           "percent": f"data:image/svg+xml;charset=utf-8,{quote(INNER)}",
           "plain": f"data:image/svg+xml;utf8,{INNER}"}[encoding]
    kroki.svg = _document(f'<image width="194" height="79" xlink:href="{_attr(url)}"/>'
                          f'<image href="{PNG}" width="1" height="1"/>')
    root = _svg(_render(client, "digraph { a }"))
    images = list(root.iter(f"{SVG}image"))
    assert images[1].get("href") == PNG
    inner = _decoded(images[0].get(XLINK_HREF))
    assert _texts(inner) == ["Do you want to continue?", "Yes"]
    assert inner.get("onload") is None and inner.find(f"{SVG}script") is None
    assert inner.find(f"{SVG}image").attrib == {"width": "1", "height": "1"}
    assert inner.find(f"{SVG}a").attrib == {}


def test_svg_pictures_nest_three_deep_and_no_deeper(client, kroki):
    document = '<svg xmlns="http://www.w3.org/2000/svg"><text>level 5</text></svg>'
    for level in (4, 3, 2, 1):
        document = (f'<svg xmlns="http://www.w3.org/2000/svg"><text>level {level}</text>'
                    f'<image href="data:image/svg+xml;base64,{_b64(document)}"/></svg>')
    kroki.svg = _document(f'<image href="data:image/svg+xml;base64,{_b64(document)}"/>')
    found, image = [], _svg(_render(client, "digraph { a }")).find(f"{SVG}image")
    while image is not None and image.get("href"):
        inner = _decoded(image.get("href"))
        found.append(_texts(inner)[0])
        image = inner.find(f"{SVG}image")
    assert found == ["level 1", "level 2", "level 3"]
    assert image is not None and image.get("href") is None  # the 4th level's picture is dropped


def test_embedded_svg_pictures_stop_at_the_size_bound(client, kroki, settings):
    settings(RENDER_MAX_SVG_BYTES=20 * 1024 * 1024)
    picture = '<svg xmlns="http://www.w3.org/2000/svg"><text>' + "x" * 1_000_000 + "</text></svg>"
    kroki.svg = _document(f'<image href="data:image/svg+xml;base64,{_b64(picture)}"/>' * 6)
    hrefs = [image.get("href") for image in _svg(_render(client, "digraph { a }")).iter(f"{SVG}image")]
    assert len(hrefs) == 6 and sum(1 for href in hrefs if href) == 4 and not hrefs[-1]


@pytest.mark.parametrize("url", [
    "http://evil.example/a.svg", "https://evil.example/a.png", "//evil.example/a.png", "file:///etc/passwd",
    "a.png", "../a.svg", "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
    "data:image/svg+xml;base64,not base64 at all!", "data:image/svg+xml,<html>not svg</html>",
    "data:image/svg+xml,%3Csvg",
])
def test_an_external_or_broken_picture_is_dropped(client, kroki, url):
    kroki.svg = _document(f'<image href="{_attr(url)}" width="1" height="1"/><text>kept</text>')
    root = _svg(_render(client, "digraph { a }"))
    assert root.find(f"{SVG}image").attrib == {"width": "1", "height": "1"}
    assert _texts(root) == ["kept"]


def test_an_svg_picture_is_only_kept_where_a_picture_is_drawn(client, kroki):
    url = f"data:image/svg+xml;base64,{_b64(INNER)}"
    kroki.svg = _document(f'<use href="{url}"/><feImage href="{url}"/><a href="{url}"><text>t</text></a>')
    root = _svg(_render(client, "digraph { a }"))
    assert root.find(f"{SVG}use").attrib == {} and root.find(f"{SVG}a").attrib == {}
    assert root.find(f"{SVG}feImage").get("href").startswith("data:image/svg+xml;base64,")


def test_a_plantuml_sub_diagram_is_kept(client, local_backend):
    require("plantuml")
    source = ('@startuml\nstart\nrepeat :read data;\n  :generate diagrams;\nrepeat while (\\n{{salt\\n{^"Next step"'
              '\\n  Do you want to continue? \\n[Yes]|[No]\\n}\\n}}\\n)\nstop\n@enduml\n')
    images = list(_svg(_render(client, source, "plantuml")).iter(f"{SVG}image"))
    assert len(images) == 1
    inner = _decoded(images[0].get(XLINK_HREF))
    assert _texts(inner) == ["Do you want to continue?", "Yes", "No", "Next step"]


# Item 9: links.

KEPT_LINKS = ["https://example.com/a?b=1#c", "http://example.com/", "mailto:team@example.com", "HTTPS://EXAMPLE.COM",
              "#node1"]
DROPPED_LINKS = [
    "javascript:alert(1)", "JaVaScRiPt:alert(1)", "java&#9;script:alert(1)", "java&#x0A;script:alert(1)",
    "&#x20;&#x0D;javascript:alert(1)", "&#106;avascript:alert(1)",
    "javascript&#x3A;alert(1)", "vbscript:msgbox(1)", "data:text/html,%3Cscript%3Ealert(1)%3C/script%3E", PNG,
    "file:///etc/passwd", "ftp://example.com/", "tel:123", "//evil.example/", "page.html", "&#x200B;javascript:x",
    "jav&#x09;ascript&#x0A;:alert(1)",
]


def _links(root):
    return [(link.get("href"), link.get(XLINK_HREF)) for link in root.iter(f"{SVG}a")]


def test_http_and_mailto_links_are_kept_and_every_other_scheme_is_dropped(client, kroki):
    anchors = "".join(f'<a href="{url}" xlink:href="{url}"><text>{index}</text></a>'
                      for index, url in enumerate(KEPT_LINKS + DROPPED_LINKS))
    kroki.svg = _document(anchors)
    root = _svg(_render(client, "digraph { a }"))
    kept = [(url, url) for url in KEPT_LINKS]
    assert _links(root) == kept + [(None, None)] * len(DROPPED_LINKS)
    assert _texts(root) == [str(index) for index in range(len(KEPT_LINKS) + len(DROPPED_LINKS))]


def test_a_link_with_whitespace_around_it_is_kept_trimmed(client, kroki):
    kroki.svg = _document('<a href=" &#9;https://exa&#10;mple.com/ "><text>x</text></a>')
    assert _links(_svg(_render(client, "digraph { a }"))) == [("https://example.com/", None)]


def test_a_link_opening_a_new_tab_gets_noopener_and_other_targets_are_dropped(client, kroki):
    kroki.svg = _document('<a href="https://example.com/" target="_blank" rel="opener"><text>new</text></a>'
                          '<a href="https://example.com/" target="_top"><text>top</text></a>'
                          '<a href="https://example.com/" rel="opener"><text>same</text></a>'
                          '<a href="javascript:alert(1)" target="_blank"><text>none</text></a>'
                          '<a xlink:href="https://example.com/" xlink:show="new" onclick="alert(1)"><text>x</text></a>')
    links = [link.attrib for link in _svg(_render(client, "digraph { a }")).iter(f"{SVG}a")]
    assert links == [{"href": "https://example.com/", "target": "_blank", "rel": "noopener noreferrer"},
                     {"href": "https://example.com/"}, {"href": "https://example.com/"}, {},
                     {XLINK_HREF: "https://example.com/"}]


def test_a_link_on_anything_but_an_anchor_is_dropped(client, kroki):
    kroki.svg = _document('<use href="https://example.com/x.svg#a"/><image href="https://example.com/x.png"/>'
                          '<set attributeName="href" to="https://example.com/"/>')
    root = _svg(_render(client, "digraph { a }"))
    assert root.find(f"{SVG}use").attrib == {} and root.find(f"{SVG}image").attrib == {}
    assert root.find(f"{SVG}set") is None


def test_a_link_in_a_foreign_object_label_follows_the_same_rule(client, kroki):
    kroki.svg = _document('<foreignObject width="100" height="20"><div xmlns="http://www.w3.org/1999/xhtml">'
                          '<a href="https://example.com/" target="_blank">docs</a><a href="javascript:alert(1)">x</a>'
                          '</div></foreignObject>')
    xhtml = "{http://www.w3.org/1999/xhtml}"
    links = [link.attrib for link in _svg(_render(client, "digraph { a }")).iter(f"{xhtml}a")]
    assert links == [{"href": "https://example.com/", "target": "_blank", "rel": "noopener noreferrer"}, {}]


def test_a_graphviz_url_is_kept_as_a_link(client, local_backend):
    source = 'digraph { docs [URL="https://example.com/docs" target="_blank"]; bad [URL="javascript:alert(1)"] }'
    root = _svg(_render(client, source))
    links = [link.attrib for link in root.iter(f"{SVG}a") if link.get(XLINK_HREF)]
    assert [link[XLINK_HREF] for link in links] == ["https://example.com/docs"]
    assert links[0]["target"] == "_blank" and links[0]["rel"] == "noopener noreferrer"


def test_a_d2_link_is_kept(client, local_backend):
    require("d2")
    source = "x: Mac {\n  link: https://apple.com\n}\ny: PC {\n  link: javascript:alert(1)\n}\nx -> y"
    root = _svg(_render(client, source, "d2"))
    assert [href for href, _ in _links(root) if href] == ["https://apple.com"]


def test_a_plantuml_link_is_kept(client, local_backend):
    require("plantuml")
    root = _svg(_render(client, "@startuml\nAlice -> Bob: [[https://example.com/login login]]\n@enduml\n", "plantuml"))
    assert "https://example.com/login" in [link.get(XLINK_HREF) or link.get("href") for link in root.iter(f"{SVG}a")]


def test_a_mermaid_click_href_is_kept(client, local_backend):
    require("mermaid")
    source = 'flowchart LR\n  A-->B\n  click A href "https://www.github.com" _blank\n  click B call alert(1)\n'
    root = _svg(_render(client, source, "mermaid"))
    links = [link.get(XLINK_HREF) or link.get("href") for link in root.iter(f"{SVG}a")]
    assert links == ["https://www.github.com/"]
