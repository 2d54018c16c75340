"""The open comment count of a diagram answer (`open_comment_count`: its open threads, docs/comments.md): a
correlated count read in the statement that reads the diagrams (the comments index on diagram_id, parent_id
answers it), or one count for a single diagram after a write."""
from sqlalchemy import false, func, select

from ...extensions import db
from ...models.comments import Comment
from ...models.content import Diagram

OPEN_COMMENT_COUNT = (select(func.count(Comment.id))
                      .where(Comment.diagram_id == Diagram.id, Comment.parent_id.is_(None), Comment.resolved == false())
                      .correlate(Diagram).scalar_subquery().label("open_comment_count"))


# Whether the diagram has any comment: a save reads it in its one statement and looks for anchors to move
# only then (core/history/changes.py), so saves of uncommented diagrams cost no statement more.
COMMENTED = (select(Comment.id).where(Comment.diagram_id == Diagram.id).correlate(Diagram).exists()
             .label("commented"))


def counted(rows):
    """The diagrams of (Diagram, count, ...) rows, each given its `open_comment_count`."""
    diagrams = []
    for row in rows:
        row[0].open_comment_count = row.open_comment_count
        diagrams.append(row[0])
    return diagrams


def open_comment_count(diagram_id):
    return db.session.scalar(select(func.count(Comment.id)).where(
        Comment.diagram_id == diagram_id, Comment.parent_id.is_(None), Comment.resolved == false()))
