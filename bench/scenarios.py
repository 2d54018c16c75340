"""The wrk scenarios of `make bench` (bench/run.py), and the four DB-backed reads that bench/floor.py answers
too, which bench/compare.py also measures (a module of its own: run.py imports compare.py)."""
from contextlib import contextmanager

import requests

from . import autosave, images, load, seed
from .service import Gunicorn, free_port

FLOOR_WARM_SECONDS = 2
# The DB-backed reads bench/floor.py answers by hand.
FLOOR_ROUTES = ("GET /projects", "GET /projects/{id}", "GET /diagrams/{id}", "GET /shared/{token}/diagram")
IMAGE_HIT, IMAGE_304 = "GET /shared/{token}/image.svg (cached)", "GET /shared/{token}/image.svg (304)"


def floor_reads(seeded):
    """The reads of FLOOR_ROUTES, in that order, as [(name, wrk spec)]. They need no big project."""
    project, diagram = seeded.project_ids[0], seeded.diagram_ids[0]
    return [
        ("GET /projects", dict(path="/api/v1/projects", token=seeded.token)),
        ("GET /projects/{id}", dict(path=f"/api/v1/projects/{project}", token=seeded.token)),
        ("GET /diagrams/{id}", dict(path=f"/api/v1/diagrams/{diagram}", token=seeded.token)),
        ("GET /shared/{token}/diagram", dict(path=f"/api/v1/shared/{seeded.share_token}/diagram")),
    ]


def scenarios(seeded, connections=16):
    """Every wrk row of the service, as [(name, wrk spec)]; a spec may hold `prepare(base_url)` to call first."""
    reads = dict(floor_reads(seeded))
    login = {"email": seeded.email, "password": seed.PASSWORD}
    update = {"title": "Renamed by the benchmark", "content": seed.MERMAID}
    render = {"source": seed.GRAPHVIZ, "diagram_type": "graphviz"}
    diagram = seeded.diagram_ids[0]
    return [
        ("GET /health", dict(path="/health")),
        ("POST /users/login", dict(path="/api/v1/users/login", method="POST", body=login)),
        ("GET /projects", reads["GET /projects"]),
        ("GET /projects/{id}", reads["GET /projects/{id}"]),
        ("GET /diagrams/{id}", reads["GET /diagrams/{id}"]),
        ("PUT /diagrams/{id}", dict(path=f"/api/v1/diagrams/{diagram}", method="PUT", body=update,
                                    token=seeded.token)),
        # Each connection edits its own diagram (not the first, which the other rows read and share).
        (autosave.ENDPOINT, autosave.scenario(seeded.token, seeded.diagram_ids[1:], connections)),
        ("GET /shared/{token}/diagram", reads["GET /shared/{token}/diagram"]),
        ("POST /diagrams/render (cached)", dict(path="/api/v1/diagrams/render", method="POST", body=render)),
        ("GET /projects/{400}/export", dict(path=f"/api/v1/projects/{seeded.big_project_id}/export",
                                            token=seeded.token, connections=4)),
        (IMAGE_HIT, dict(path=image_path(seeded))),
        (IMAGE_304, dict(path=image_path(seeded), prepare=images.etag_of(image_path(seeded)))),
    ]


def image_path(seeded):
    return f"/api/v1/shared/{seeded.image_token}/image.svg"


def check_floor(base_url, reads):
    """Ask the floor at `base_url` each read once: any answer but 200 (its statements do not fit the schema, or
    the seeded data is missing) raises RuntimeError."""
    for name, spec in reads:
        probe = requests.get(base_url + spec["path"], timeout=10,
                             headers={"Authorization": f"Bearer {spec['token']}"} if spec.get("token") else {})
        if probe.status_code != 200:
            raise RuntimeError(f"the floor answered {name} with {probe.status_code}: {probe.text[:300]}")


FLOOR, STACK_FLOOR = "bench.floor:app", "bench.stack_floor:app"


@contextmanager
def ready_floor(env, seeded, connections, target=FLOOR, **gunicorn):
    """bench/floor.py (or `target`: STACK_FLOOR, bench/stack_floor.py) under gunicorn on `env`'s database and
    secrets (`gunicorn`: Gunicorn's other arguments), each read answered once (check_floor) and the first warmed:
    yields (floor, the reads); stopped on leaving, in any case."""
    floor = Gunicorn({**env, "PORT": str(free_port())}, target=target, **gunicorn)
    try:
        reads = floor_reads(seeded)
        check_floor(floor.base_url, reads)
        load.wrk(floor.base_url, **{**reads[0][1], "connections": connections, "duration": FLOOR_WARM_SECONDS})
        yield floor, reads
    finally:
        floor.stop()
