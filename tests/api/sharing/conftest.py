"""Fixtures of the sharing area: content made over HTTP, a Kroki-protocol server, render backends."""
import pytest

from trazo.services.render import cache as render_cache
from trazo.services.render import raster

from ...helpers import create_diagram, create_project
from .kroki_server import KrokiServer


def share(client, diagram_id, **fields):
    response = client.post("/shared-links", json={"diagram_id": diagram_id, **fields})
    assert response.status_code == 201, response.json
    return response.json


@pytest.fixture
def project(user):
    return create_project(user, name="Arquitectura")


@pytest.fixture
def diagram(user, project):
    return create_diagram(user, project["id"], title="Login flow", description="How we log in",
                          content="graph TD\n  A --> B")


@pytest.fixture
def settings(configure):
    """Change settings for this test only: settings(RENDER_BACKEND="local")."""
    return configure


@pytest.fixture(autouse=True)
def empty_render_cache(app):
    yield
    render_cache.clear(app.config.get("REDIS_URL"))
    raster.forget()


@pytest.fixture(scope="session")
def kroki_server():
    server = KrokiServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def kroki(kroki_server, settings):
    """RENDER_BACKEND=kroki pointed at the fake Kroki server."""
    kroki_server.reset()
    settings(RENDER_BACKEND="kroki", KROKI_URL=kroki_server.url, RENDER_TIMEOUT=5)
    return kroki_server


@pytest.fixture
def local_backend(settings):
    settings(RENDER_BACKEND="local", RENDER_TIMEOUT=10)
