"""What a PNG image link may cost (docs/image-links.md, "PNG"; docs/security.md, "PNG budget"): a
rasterization the PNG cache cannot answer spends the caller's render-seconds, a failed one is remembered
per ETag (the same error at once, resvg not run again), and an image needing more pixels than
RENDER_MAX_PNG_PIXELS (its canvas, or the regions its filters fill) is refused before resvg starts."""
import pytest
from prometheus_client.parser import text_string_to_metric_families

from ...helpers import ApiClient, create_diagram, error_detail, share
from ..render.test_render_engines import require
from .test_image_links import needs_resvg

METRICS_TOKEN = "metrics-token-0123456789abcdef-0123456789"
TOO_COMPLEX = "The diagram is too large or too complex to render"
pytestmark = [needs_resvg, pytest.mark.usefixtures("local_backend")]


def shadows(count):
    """`count` shadowed 800 x 800 D2 shapes: each shadow is a blur over 1,600 x 1,600 pixels."""
    return "\n".join(f"shape{i}: {{width: 800; height: 800; style.shadow: true}}" for i in range(count)) + "\n"


def resvg_runs(app, settings):
    """trazo_png_rasterizations_total, both outcomes, read from GET /metrics."""
    settings(METRICS_TOKEN=METRICS_TOKEN)
    response = app.test_client().get("/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
    assert response.status_code == 200
    return sum(sample.value for family in text_string_to_metric_families(response.get_data(as_text=True))
               for sample in family.samples if sample.name == "trazo_png_rasterizations_total")


def _png(client, link):
    return client.get(f"/shared/{link['token']}/image.png")


def _drawn_link(user, project, content, diagram_type="d2"):
    """A public link whose SVG is drawn (and cached) already, by its owner."""
    diagram = create_diagram(user, project["id"], title="Shadows", diagram_type=diagram_type, content=content)
    assert user.get(f"/diagrams/{diagram['id']}/image.svg").status_code == 200
    return diagram, share(user, diagram["id"])


def test_a_failed_rasterization_runs_resvg_once_and_answers_its_error_again_at_once(app, client, user, project,
                                                                                     settings):
    require("d2")
    settings(RENDER_CPU_SECONDS=1, RENDER_TIMEOUT=20, RENDER_MAX_PNG_PIXELS=10**12)  # no pixel bound here
    _diagram, link = _drawn_link(user, project, shadows(30))
    before = resvg_runs(app, settings)
    for _ in range(12):
        assert error_detail(_png(client, link), 400) == TOO_COMPLEX
    assert resvg_runs(app, settings) - before == 1  # 12 of 12 runs of resvg, each to its CPU limit, before


def test_a_png_the_cache_cannot_answer_spends_the_render_budget(app, client, user, project, settings):
    first = _drawn_link(user, project, "digraph { first -> png }", "graphviz")[1]
    second = _drawn_link(user, project, "digraph { second -> png }", "graphviz")[1]
    settings(RATE_LIMIT_RENDER_SECONDS="1/minute")
    png = _png(client, first)  # its SVG is cached: only the rasterization is paid
    assert png.status_code == 200 and png.get_data().startswith(b"\x89PNG")
    refused = _png(client, second)
    assert error_detail(refused, 429).startswith("Too many requests")
    assert 1 <= int(refused.headers["Retry-After"]) <= 61
    assert _png(client, first).status_code == 200  # the PNG cache answers: no budget
    other = ApiClient(app.test_client(), "10.84.0.2")  # another address has its own budget
    assert _png(other, second).status_code == 200


def test_an_oversize_image_is_refused_before_resvg_starts(app, client, user, project, settings):
    require("d2")
    diagram, link = _drawn_link(user, project, shadows(30))  # a 25,945 x 1,007 canvas, 30 blurred regions
    before = resvg_runs(app, settings)
    assert error_detail(_png(client, link), 400) == (
        "The image is too large to convert to PNG: it needs 76800000 pixels, at most 16777216. "
        "Use the SVG image instead.")
    assert error_detail(client.get(f"/shared/{link['token']}/image.png", lang="es"), 400) == (
        "La imagen es demasiado grande para convertirla a PNG: necesita 76800000 píxeles, como máximo "
        "16777216. Usa la imagen SVG.")
    assert error_detail(user.get(f"/diagrams/{diagram['id']}/image.png"), 400).startswith(
        "The image is too large to convert to PNG")
    assert resvg_runs(app, settings) == before


def test_a_filter_region_past_the_bound_is_refused_on_a_small_canvas(client, user, project, settings):
    require("d2")
    settings(RENDER_MAX_PNG_PIXELS=5_000_000)
    shadowed = _drawn_link(user, project, shadows(3))[1]  # 2,725 x 1,007 pixels, 3 x 1,600 x 1,600 blurred
    assert error_detail(_png(client, shadowed), 400) == (
        "The image is too large to convert to PNG: it needs 7680000 pixels, at most 5000000. "
        "Use the SVG image instead.")
    plain = _drawn_link(user, project, shadows(3).replace("; style.shadow: true", ""))[1]
    assert _png(client, plain).get_data().startswith(b"\x89PNG")
