"""Render fairness (docs/security.md, "Render fairness"): a client (an address, and a user on any address)
holds at most its share of a worker's engine slots and Mermaid pages, so another client's render starts at
once while it draws; past its share a client gets 503 with Retry-After at once; the render budget is
charged by the seconds a render held, not by starts."""
import json
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from ...helpers import ApiClient, error_detail
from ..shares.test_image_links import needs_mermaid
from .test_render_engines import require

TRIVIAL = "digraph { login -> dashboard }"
OWN_SHARE = "Your other renders are still running. Try again when they finish."


def recursive_plantuml(tag):
    """160 bytes asking PlantUML's preprocessor for 2^26 calls: it runs until its time or CPU limit."""
    text = ("@startuml\n!function $f($n)\n!if $n == 0\n!return 1\n!endif\n!return $f($n - 1) + $f($n - 1)\n"
            "!endfunction\nAlice -> Bob : $f(26)\n@enduml\n")
    return "' " + tag.ljust(160 - len(text) - 3, ".") + "\n" + text


def costly_flowchart(tag):
    """A valid Mermaid flowchart of 1,990 edges over 300 nodes (~26 KB) that lays out for tens of seconds."""
    pick, edges = random.Random(7), set()
    while len(edges) < 1990:
        a, b = pick.randrange(300), pick.randrange(300)
        if a != b:
            edges.add((a, b))
    return "flowchart TD\n  %% " + tag + "\n" + "\n".join(f"n{a} --> n{b}" for a, b in sorted(edges)) + "\n"


def _render(client, source, diagram_type="graphviz"):
    return client.post("/diagrams/render", json={"source": source, "diagram_type": diagram_type})


class Attack:
    """Renders sent at once from threads; `answers` in the order they came back."""

    def __init__(self):
        self.answers = []
        self.threads = []
        self.lock = threading.Lock()

    def send(self, client, source, diagram_type):
        def run():
            response = _render(client, source, diagram_type)
            with self.lock:
                self.answers.append(response)
        thread = threading.Thread(target=run)
        thread.start()
        self.threads.append(thread)

    def held(self):
        """The answers of renders that were drawn (or stopped), not refused at once."""
        with self.lock:
            return [answer for answer in self.answers if answer.status_code != 503]

    def join(self):
        for thread in self.threads:
            thread.join(120)
        return self.answers


def _refused_for_its_share(answer):
    assert error_detail(answer, 503) == OWN_SHARE
    assert 1 <= int(answer.headers["Retry-After"]) <= 30


def test_one_address_with_six_costly_plantuml_sources_leaves_a_slot_for_another(app, client, settings):
    require("plantuml")
    settings(RENDER_BACKEND="local", RENDER_TIMEOUT=6, RENDER_CPU_SECONDS=30)
    attacker, attack = ApiClient(app.test_client(), "10.80.0.1"), Attack()
    for number in range(6):
        attack.send(attacker, recursive_plantuml(f"attack {number}"), "plantuml")
    time.sleep(1)  # the attack has taken what it can
    victim = _render(client, TRIVIAL)
    assert victim.status_code == 200 and "dashboard" in victim.get_data(as_text=True)
    assert attack.held() == []  # drawn while the attack still ran: it waited for the attack's timeout before
    answers = sorted(attack.join(), key=lambda answer: answer.status_code)
    for answer in answers[:4]:  # past its two slots, at once
        _refused_for_its_share(answer)
    assert [answer.status_code for answer in answers[4:]] == [504, 504]


@pytest.mark.parametrize("who", ["a user on three addresses", "three users on one address"])
def test_a_client_past_its_share_is_refused_at_once_by_user_and_by_address(app, make_user, settings, who):
    require("plantuml")
    settings(RENDER_BACKEND="local", RENDER_TIMEOUT=4, RENDER_CPU_SECONDS=30)
    if who == "a user on three addresses":
        token = make_user().token
        clients = [ApiClient(app.test_client(), f"10.81.0.{number}", token) for number in (1, 2, 3)]
    else:
        clients = [ApiClient(app.test_client(), "10.81.1.1", make_user().token) for _ in range(3)]
    attack = Attack()
    for number, client in enumerate(clients[:2]):
        attack.send(client, recursive_plantuml(f"{who} {number}"), "plantuml")
    time.sleep(1)
    _refused_for_its_share(_render(clients[2], TRIVIAL))  # it waited for a slot and was drawn before
    assert [answer.status_code for answer in attack.join()] == [504, 504]


@needs_mermaid
def test_one_address_with_two_costly_flowcharts_leaves_a_mermaid_page_for_another(app, client, settings):
    settings(RENDER_BACKEND="local", RENDER_TIMEOUT=5, RENDER_MAX_GRAPH_EDGES=2000)
    warm = ApiClient(app.test_client(), "10.82.0.9")
    assert _render(warm, "flowchart LR\n  warm --> up", "mermaid").status_code == 200  # the browser is up
    attacker, attack = ApiClient(app.test_client(), "10.82.0.1"), Attack()
    for number in range(2):
        attack.send(attacker, costly_flowchart(f"attack {number}"), "mermaid")
    time.sleep(1)
    victim = _render(client, "flowchart LR\n  victim --> served", "mermaid")
    assert victim.status_code == 200 and "served" in victim.get_data(as_text=True)
    assert attack.held() == []  # drawn on the other page: it waited for the attack and got 504 before
    answers = attack.join()
    refused = [answer for answer in answers if answer.get_json(silent=True) == {"detail": OWN_SHARE}]
    assert len(refused) == 1  # its second flowchart, at once: one page per client
    _refused_for_its_share(refused[0])
    drawn = next(answer for answer in answers if answer is not refused[0])
    # The page's CPU or memory bound, the timeout, or (on a machine loaded enough that its page could not
    # be had in time) busy: never drawn, never a second page.
    assert drawn.status_code in (400, 503, 504)


def test_the_render_budget_is_charged_by_the_seconds_a_render_held(app, client, kroki, settings):
    settings(RATE_LIMIT_RENDER_SECONDS="4/minute")
    quick = ApiClient(app.test_client(), "10.83.0.1")
    for number in range(4):  # four quick renders: a second each
        assert _render(quick, f"digraph {{ quick{number} -> done }}").status_code == 200
    kroki.mode, kroki.slow_seconds = "slow", 3
    assert _render(client, "digraph { slow -> done }").status_code == 200  # held 3 s and more: 4 seconds
    kroki.mode = "ok"
    calls = len(kroki.requests)
    refused = _render(client, "digraph { next -> one }")
    assert error_detail(refused, 429).startswith("Too many requests")
    assert 1 <= int(refused.headers["Retry-After"]) <= 61
    assert len(kroki.requests) == calls  # refused before it started
    cached = _render(client, "digraph { slow -> done }")  # the cache answers: no engine time
    assert cached.status_code == 200 and "slow" in cached.get_data(as_text=True)
    assert error_detail(_render(quick, "digraph { fifth -> one }"), 429).startswith("Too many requests")


ROOT = Path(__file__).resolve().parents[3]
# A process of its own: the suite's limiter is initialized once per process, which hides the bug.
UNLIMITED_RENDER = """
import json, sys
from trazo import create_app
app = create_app(env=json.loads(sys.stdin.read()))
drawn = app.test_client().post("/api/v1/diagrams/render", environ_base={"REMOTE_ADDR": "10.83.0.9"},
                               json={"source": "digraph { unlimited -> slow }", "diagram_type": "graphviz"})
print(drawn.status_code)
"""


def test_a_slow_render_is_answered_with_rate_limits_switched_off(app_env, kroki_server):
    """The seconds a render held are charged to a budget that does not exist then: a 500 before, for an
    operator's RATELIMIT_ENABLED=false (as `make bench` runs the service)."""
    kroki_server.reset()
    kroki_server.mode, kroki_server.slow_seconds = "slow", 1.5
    env = {**app_env, "RATELIMIT_ENABLED": "false", "RENDER_BACKEND": "kroki", "KROKI_URL": kroki_server.url,
           "RENDER_TIMEOUT": "5"}
    try:
        run = subprocess.run([sys.executable, "-c", UNLIMITED_RENDER], input=json.dumps(env), cwd=ROOT,
                             capture_output=True, text=True, timeout=60)
    finally:
        kroki_server.mode = "ok"
    assert run.stdout.strip().splitlines()[-1:] == ["200"], run.stdout + run.stderr
