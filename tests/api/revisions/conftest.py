"""Fixtures of the history tests: a diagram with some history, direct access to revision rows."""
import pytest
from sqlalchemy import select, update

from trazo.extensions import db
from trazo.models.history import DiagramRevision

from ...helpers import create_diagram, create_project


@pytest.fixture
def project(user):
    return create_project(user, name="Historia")


@pytest.fixture
def diagram(user, project):
    return create_diagram(user, project["id"], title="Flow", diagram_type="mermaid", content="graph TD\nA-->B\n")


@pytest.fixture
def rows(app):
    """The revision rows of a diagram, oldest first (read from the database)."""

    def read(diagram_id):
        with app.app_context():
            found = db.session.scalars(select(DiagramRevision).where(DiagramRevision.diagram_id == diagram_id)
                                       .order_by(DiagramRevision.number)).all()
            db.session.expunge_all()
            return found

    return read


@pytest.fixture
def age_revisions(app):
    """Move a diagram's revisions `seconds` into the past (as if they were saved that long ago)."""

    def move(diagram_id, seconds, **values):
        with app.app_context():
            for revision in db.session.scalars(select(DiagramRevision)
                                               .where(DiagramRevision.diagram_id == diagram_id)):
                revision.created_at = revision.created_at.__class__.fromtimestamp(
                    revision.created_at.timestamp() - seconds, revision.created_at.tzinfo)
            if values:
                db.session.execute(update(DiagramRevision).where(DiagramRevision.diagram_id == diagram_id)
                                   .values(**values))
            db.session.commit()

    return move
