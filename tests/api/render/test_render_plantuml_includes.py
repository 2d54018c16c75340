"""PlantUML includes (docs/rendering.md, "Includes mapped"): an `!include` of the URL of a library the
PlantUML jar bundles (C4-PlantUML and its themes, the tupadr3 icon sprites, the AWS, Azure, Kubernetes...
icons) draws from the bundled copy, never fetched; any other URL or a file answers a clear 400 naming the
line, and nothing reaches the network: a listener on 127.0.0.1 sees no connection."""
import os
import re
import threading
from pathlib import Path

import pytest

from ...fakes.base import TcpServer
from ...helpers import error_detail
from .test_render_engines import require

ROOT = Path(__file__).resolve().parents[3]
CORPUS_DIR = Path(os.environ.get("CORPUS_DIR") or ROOT.parent / "shared" / "corpus")
C4_RAW = "https://raw.githubusercontent.com/plantuml-stdlib/C4-PlantUML"
ICONS_RAW = "https://raw.githubusercontent.com/tupadr3/plantuml-icon-font-sprites"


class Listener(TcpServer):
    """Counts the connections it is offered (and closes them): a fetch of any of its URLs shows here."""

    def __init__(self):
        super().__init__()
        self.connections = 0
        self.lock = threading.Lock()

    def serve(self, connection):
        with self.lock:
            self.connections += 1
        connection.close()


@pytest.fixture
def listener():
    server = Listener().start()
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def plantuml_here(settings):
    """This host's engines only (auto, no Kroki), with room for a JVM and the C4 library."""
    require("plantuml")
    settings(RENDER_BACKEND="auto", KROKI_URL="", RENDER_TIMEOUT=60, RENDER_CPU_SECONDS=30, RENDER_MEMORY_MB=512)


def _render(client, source, diagram_type="c4plantuml", **kwargs):
    return client.post("/diagrams/render", json={"source": source, "diagram_type": diagram_type}, **kwargs)


def _drawn(response, *labels):
    """The SVG drawn, with each label among its texts (PlantUML writes a text element per word)."""
    assert response.status_code == 200, response.get_data(as_text=True)[:500]
    assert response.mimetype == "image/svg+xml"
    text = response.get_data(as_text=True)
    words = " ".join(" ".join(re.findall(r"<text[^>]*>([^<]*)</text>", text)).split())  # \xa0 included
    for label in labels:
        assert label in words, (label, words[:500])
    return text


def _refused(line, target):
    return (f"Line {line} includes {target}, which this server cannot read: it reads no URLs or files while "
            f"drawing. Use a library bundled with PlantUML in the !include <...> form instead, e.g. "
            f"!include <C4/C4_Container>.")


def _refused_es(line, target):
    return (f"La línea {line} incluye {target}, que este servidor no puede leer: no lee URL ni archivos al "
            f"dibujar. Usa en su lugar una biblioteca incluida en PlantUML con la forma !include <...>, p. ej. "
            f"!include <C4/C4_Container>.")


# -- mapped to the bundled copy -----------------------------------------------------------------

@pytest.mark.parametrize(("case", "labels"), [
    ("c4plantuml/sample-container-bigbankplc",
     ("Internet Banking System", "Mainframe Banking System", "Single-Page App")),
    ("c4plantuml/readme-02", ("Label", "Optional Description", "Technology")),
])
def test_an_upstream_c4_sample_including_c4_by_url_draws(client, case, labels):
    path = CORPUS_DIR / "cases" / f"{case}.puml"
    if not path.is_file():
        pytest.skip(f"no corpus at {CORPUS_DIR} (set CORPUS_DIR)")
    _drawn(_render(client, path.read_text(encoding="utf-8")), *labels)


def test_c4_its_themes_and_the_icon_sprites_included_by_url_draw_from_the_bundled_copies(client, listener):
    source = (
        "@startuml\n"
        f"!theme C4_united from {C4_RAW}/v2.10.0/themes\n"
        f"!include {C4_RAW}/refs/heads/master/C4_Container.puml\n"
        f"!define DEVICONS {ICONS_RAW}/master/devicons\n"
        f"!$fa = \"{ICONS_RAW}/v3.0.0/icons/font-awesome-5\"\n"
        "!include DEVICONS/angular.puml\n"
        "!includeurl $fa/users.puml\n"
        f"!include_once https://github.com/plantuml-stdlib/C4-PlantUML/raw/master/C4_Context.puml\n"
        'Person(buyer, "Buyer", $sprite="users")\n'
        'Container(shop, "Storefront", "Angular", $sprite="angular")\n'
        'Rel(buyer, shop, "Orders from")\n'
        "@enduml\n")
    _drawn(_render(client, source), "Buyer", "Storefront", "Orders from")
    assert listener.connections == 0


def test_the_aws_icons_included_by_url_draw_from_the_bundled_library(client):
    source = (
        "@startuml\n"
        "!define AWSPuml https://raw.githubusercontent.com/awslabs/aws-icons-for-plantuml/v19.0/dist\n"
        "!include AWSPuml/AWSCommon.puml\n"
        "!include AWSPuml/Compute/EC2.puml\n"
        'EC2(web, "Web tier", "instances")\n'
        "@enduml\n")
    _drawn(_render(client, source, "plantuml"), "Web tier")


# -- anything else is refused, and nothing is fetched -----------------------------------------------

UNMAPPED = [
    # (source with {url} for a URL of the listener, the line refused, the target named)
    ("@startuml\nAlice -> Bob\n!include {url}/x.puml\n@enduml\n", 3, "{url}/x.puml"),
    ("@startuml\n!includeurl {url}/x.puml\nAlice -> Bob\n@enduml\n", 2, "{url}/x.puml"),
    ("@startuml\n!include_many {url}/x.puml\n@enduml\n", 2, "{url}/x.puml"),
    ("@startuml\n!include_once {url}/x.puml\n@enduml\n", 2, "{url}/x.puml"),
    ("@startuml\nAlice -> Bob\n!includesub {url}/x.puml!PART\n@enduml\n", 3, "{url}/x.puml!PART"),
    ('@startuml\n!$base = "{url}"\n!include $base/x.puml\n@enduml\n', 3, "{url}/x.puml"),
    ("@startuml\n!define BASE {url}\n\n!include BASE/x.puml\n@enduml\n", 4, "{url}/x.puml"),
    ("@startuml\n!theme spacelab from {url}/themes\nAlice -> Bob\n@enduml\n", 2, "{url}/themes"),
    ("@startuml\n!import {url}/lib.zip\n@enduml\n", 2, "{url}/lib.zip"),
    ("@startuml\n!procedure $p()\n!include {url}/x.puml\n!endprocedure\nAlice -> Bob\n$p()\n@enduml\n", 3,
     "{url}/x.puml"),
    # A C4 file the jar does not bundle, at its real URL.
    (f"@startuml\n!include {C4_RAW}/master/percy/TestAllElementsWithLegend.puml\n@enduml\n", 2,
     f"{C4_RAW}/master/percy/TestAllElementsWithLegend.puml"),
    # A theme of C4-PlantUML's folder that the bundled copy lacks (its test theme).
    (f"@startuml\n!theme C4_FirstTest from {C4_RAW}/master/themes\nAlice -> Bob\n@enduml\n", 2,
     f"{C4_RAW}/master/themes/puml-theme-C4_FirstTest.puml"),
]


@pytest.mark.parametrize(("source", "line", "target"), UNMAPPED)
def test_an_include_of_an_unbundled_url_is_refused_naming_its_line_and_fetches_nothing(client, listener, source,
                                                                                         line, target):
    url = f"http://127.0.0.1:{listener.port}"
    source, target = source.format(url=url), target.format(url=url)
    assert error_detail(_render(client, source, "plantuml"), 400) == _refused(line, target)
    assert error_detail(_render(client, source, "plantuml", lang="es"), 400) == _refused_es(line, target)
    assert listener.connections == 0


def test_a_preprocessor_function_reading_a_url_reaches_nothing(client, listener):
    url = f"http://127.0.0.1:{listener.port}"
    source = (f'@startuml\n!$data = %load_json("{url}/data.json")\n!$text = %getenv("HOME")\n'
              "Alice -> Bob: hello\n@enduml\n")
    _render(client, source, "plantuml")
    assert listener.connections == 0


def test_a_file_include_is_refused_and_its_content_never_shown(client, tmp_path):
    secret = tmp_path / "secret.puml"
    secret.write_text("Alice -> Bob: TOPSECRET\n")
    for target in (str(secret), "secret.puml", f"file://{secret}"):
        detail = error_detail(_render(client, f"@startuml\nAlice -> Bob\n!include {target}\n@enduml\n",
                                      "plantuml"), 400)
        assert detail == _refused(3, target) and "TOPSECRET" not in detail


def test_an_include_in_a_branch_not_taken_does_not_refuse_the_diagram(client):
    source = ('@startuml\n!if %variable_exists("LOCAL")\n  !include ./C4_Container.puml\n!else\n'
              '  !include <C4/C4_Container>\n!endif\nPerson(user, "Customer")\n@enduml\n')
    _drawn(_render(client, source), "Customer")
