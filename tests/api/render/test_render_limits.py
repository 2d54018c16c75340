"""POST /diagrams/render under attack: sizes refused before any work, renderer processes held to CPU and
memory limits, a budget of render-seconds for renders the cache cannot answer, and a total deadline on
Kroki."""
import threading
import time

import pytest

from trazo.extensions import db

from ...helpers import ApiClient, error_detail, validation_errors

TRIVIAL = "digraph { login -> dashboard }"


def complete_digraph(nodes):
    """Every node linked to every other: one arrow per node, so a 72 KB source asks for 14,280 edges."""
    names = [f"n{i:03d}" for i in range(nodes)]
    lines = [f"{name} -> {{{' '.join(other for other in names if other != name)}}}" for name in names]
    return "digraph G {\n" + "\n".join(lines) + "\n}\n"


ATTACK = complete_digraph(120)


def _render(client, source, diagram_type="graphviz", **kwargs):
    return client.post("/diagrams/render", json={"source": source, "diagram_type": diagram_type}, **kwargs)


def test_the_attack_source_is_the_72_kb_complete_digraph():
    assert 70_000 < len(ATTACK) < 75_000


@pytest.mark.usefixtures("local_backend")
def test_a_complete_digraph_is_refused_before_it_reaches_a_renderer(client):
    detail = error_detail(_render(client, ATTACK), 400)
    assert detail == "The graph has 14280 edges; at most 2000 can be rendered"
    assert error_detail(_render(client, ATTACK, lang="es"), 400) == (
        "El grafo tiene 14280 aristas; como máximo se pueden renderizar 2000")


def _trivial_render_during(app, client, attack_source, attackers, network, settle=0.0):
    """Render TRIVIAL while `attackers` clients, each from an address of its own, render
    attack_source(number); the trivial render must succeed: (the seconds it took, each attacker's response)."""
    answers = []

    def attack(number):
        attacker = ApiClient(app.test_client(), f"{network}.{number + 1}")
        answers.append(_render(attacker, attack_source(number)))

    threads = [threading.Thread(target=attack, args=(number,)) for number in range(attackers)]
    for thread in threads:
        thread.start()
    time.sleep(settle)
    started = time.monotonic()
    response = _render(client, TRIVIAL)
    waited = time.monotonic() - started
    for thread in threads:
        thread.join()
    assert response.status_code == 200 and "dashboard" in response.get_data(as_text=True)
    return waited, answers


def test_six_concurrent_attacks_do_not_starve_a_trivial_render(app, client, settings):
    settings(RENDER_BACKEND="local", RENDER_TIMEOUT=20)
    waited, answers = _trivial_render_during(app, client, lambda _number: ATTACK, 6, "10.66.0")
    assert waited < 5  # it waited for the attack to time out (20 s) before
    assert [answer.status_code for answer in answers] == [400] * 6


def test_a_flood_of_costly_renders_under_the_caps_does_not_starve_a_trivial_render(app, client, settings):
    # 45 nodes all linked: 1,980 edges (under the cap) that keep dot busy until its CPU limit.
    settings(RENDER_BACKEND="local", RENDER_TIMEOUT=20, RENDER_CPU_SECONDS=3)
    # The costly renders take every shared slot first.
    waited, answers = _trivial_render_during(
        app, client, lambda number: complete_digraph(45) + f"// {number}\n", 4, "10.67.0", settle=0.5)
    assert waited < 3  # it waited for a shared slot, 6 s or more on two cores, before
    answers = [answer.get_json() for answer in answers]
    bounded = ({"detail": "The diagram is too large or too complex to render"},  # at its CPU limit
               {"detail": "The rendering service did not answer in time"})  # a host too loaded to reach it
    assert len(answers) == 4 and all(answer in bounded for answer in answers)


def test_a_dense_graph_under_the_edge_cap_is_stopped_at_the_cpu_limit(client, settings):
    # 45 nodes all linked (1,980 edges) keep dot busy for minutes; the kernel stops it after 1 s of CPU.
    settings(RENDER_BACKEND="local", RENDER_TIMEOUT=20, RENDER_CPU_SECONDS=1)
    assert error_detail(_render(client, complete_digraph(45)), 400) == (
        "The diagram is too large or too complex to render")


def test_a_render_past_its_memory_limit_is_a_clear_400(client, settings):
    settings(RENDER_BACKEND="local", RENDER_TIMEOUT=20, RENDER_MAX_GRAPH_EDGES=100_000, RENDER_MEMORY_MB=80)
    assert error_detail(_render(client, ATTACK, lang="es"), 400) == (
        "El diagrama es demasiado grande o complejo para renderizarlo")
    assert _render(client, TRIVIAL).status_code == 200


@pytest.mark.usefixtures("local_backend")
def test_a_source_larger_than_the_setting_is_refused(client, settings):
    settings(RENDER_MAX_SOURCE_BYTES=1000)
    source = "digraph { a [label=\"" + "é" * 600 + "\"] }"  # under 1000 characters, over 1000 bytes
    detail = validation_errors(_render(client, source), "source")
    assert detail[0]["msg"] == "The source is larger than 1000 bytes"
    assert validation_errors(_render(client, source, lang="es"), "source")[0]["msg"] == (
        "El código fuente ocupa más de 1000 bytes")


@pytest.mark.usefixtures("local_backend")
def test_renders_the_cache_cannot_answer_spend_a_budget_of_render_seconds(client, settings):
    settings(RATE_LIMIT_RENDER="20/minute", RATE_LIMIT_RENDER_SECONDS="2/minute")  # quick renders: 1 s each
    assert _render(client, "digraph { a -> b }").status_code == 200
    assert _render(client, "digraph { c -> d }").status_code == 200
    refused = _render(client, "digraph { e -> f }")
    assert error_detail(refused, 429).startswith("Too many requests")
    assert 1 <= int(refused.headers["Retry-After"]) <= 61
    cached = _render(client, "digraph { a -> b }")
    assert cached.status_code == 200 and "<svg" in cached.get_data(as_text=True)
    assert error_detail(_render(client, "digraph { g -> h }", lang="es"), 429).startswith("Demasiadas")


def test_a_trickling_kroki_is_cut_at_the_render_timeout(client, kroki, settings):
    settings(RENDER_TIMEOUT=1)
    kroki.mode, kroki.slow_seconds = "trickle", 10
    started = time.monotonic()
    response = _render(client, TRIVIAL, lang="es")
    assert time.monotonic() - started < 4  # it read until the server stopped (10 s) before
    assert error_detail(response, 504) == "El servicio de renderizado no respondió a tiempo"


def test_kroki_is_called_with_no_database_connection_held(app, client, kroki):
    with app.app_context():
        pool = db.engine.pool
    kroki.probe = pool.checkedout
    assert _render(client, TRIVIAL).status_code == 200
    assert kroki.probed == [0]
