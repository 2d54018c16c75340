"""Fixtures of the areas whose tests draw (render, shares, prompt history): a project and a Mermaid diagram
made over HTTP, and the render and PNG caches emptied after each test (the Kroki-protocol server, `kroki`,
`local_backend` and `settings`: tests/conftest.py). Each area's conftest imports them."""
import pytest

from ..helpers import create_diagram, create_project


@pytest.fixture
def project(user):
    return create_project(user, name="Arquitectura")


@pytest.fixture
def diagram(user, project):
    return create_diagram(user, project["id"], title="Login flow", description="How we log in",
                          content="graph TD\n  A --> B")


@pytest.fixture(autouse=True)
def emptied_render_cache(empty_render_cache):
    """Every test of these areas ends with the render and PNG caches emptied."""
