"""Fixtures of the render area: content made over HTTP and the render caches emptied after each test (the
Kroki-protocol server, `kroki`, `local_backend` and `settings`: tests/conftest.py)."""
import pytest

from ...helpers import create_diagram, create_project


@pytest.fixture
def project(user):
    return create_project(user, name="Arquitectura")


@pytest.fixture
def diagram(user, project):
    return create_diagram(user, project["id"], title="Login flow", description="How we log in",
                          content="graph TD\n  A --> B")


@pytest.fixture(autouse=True)
def emptied_render_cache(empty_render_cache):
    """Every test of this area ends with the render and PNG caches emptied."""
