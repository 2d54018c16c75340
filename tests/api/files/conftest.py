"""Fixtures of the files API tests: a project of the signed-in user, and helpers to write and read files."""
import pytest

from ...helpers import create_project


@pytest.fixture
def project(user):
    return create_project(user, name="Repo")


@pytest.fixture
def files_of(user):
    """The listing of a project: {path: file}."""

    def read(project_id, web=user):
        response = web.get(f"/projects/{project_id}/files")
        assert response.status_code == 200, response.json
        return {item["path"]: item for item in response.json["files"]}

    return read


def free_plan(web):
    return next(plan for plan in web.get("/plans").json if plan["code"] == "FREE")
