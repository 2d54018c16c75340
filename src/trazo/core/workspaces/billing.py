"""Whose plan limits a workspace's content: its billing owner (docs/teams.md, "Limits and billing owner").

Projects, diagrams and storage count across every workspace a user is billing owner of (core/billing/
quotas.py); each write checks the limits of the billing owner of the workspace it writes to.
"""
from sqlalchemy import select

from ...errors import Conflict
from ...extensions import db
from ...models import User
from ...models.content import Diagram, Project
from ...models.workspaces import Workspace


def payer(user, billing_owner_id):
    """The account whose plan limits a write of `user` to a workspace billed to `billing_owner_id` (the
    caller itself, without a statement, in their personal workspace)."""
    if billing_owner_id == user.id:
        return user
    owner = db.session.get(User, billing_owner_id) if billing_owner_id else None
    if owner is None:  # only between an account's deletion and the hand-over it makes
        raise Conflict("This workspace has no billing owner")
    return owner


def workspace_payer(user, workspace_id):
    """`payer` of the workspace `workspace_id`."""
    return payer(user, db.session.scalar(select(Workspace.billing_owner_id).where(Workspace.id == workspace_id)))


def diagram_payer(user, diagram_id):
    """`payer` of the workspace of the diagram `diagram_id`."""
    return payer(user, db.session.scalar(select(Workspace.billing_owner_id)
                                         .join(Project, Project.workspace_id == Workspace.id)
                                         .join(Diagram, Diagram.project_id == Project.id)
                                         .where(Diagram.id == diagram_id)))


def project_payer(user, project):
    """`payer` of the workspace of `project`."""
    return workspace_payer(user, project.workspace_id)
