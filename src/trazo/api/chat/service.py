"""Chat sessions and messages: ownership, listing, renaming, deletion, review status, usage stats."""
from dataclasses import dataclass

from flask_babel import gettext as _
from sqlalchemy import and_, delete, func, select

from ...core.content import access
from ...errors import N_, BadRequest, found_or_404
from ...extensions import db
from ...models.chat import ROLE_ASSISTANT, ChatMessage, ChatSession
from ...models.content import Diagram, Project
from ...models.workspaces import VIEWER, Membership


@dataclass(frozen=True)
class CountedSession:
    """A chat session and the number of messages it holds."""

    session: ChatSession
    message_count: int


@dataclass(frozen=True)
class SessionDetail:
    """A chat session (counted) and its messages, oldest first."""

    session: CountedSession
    messages: list


def owned_session(user, session_id):
    """The caller's chat session `session_id` while they still read its diagram (a member of its workspace:
    every role includes viewer), or NotFound (another user's session, or one whose access ended)."""
    return found_or_404(db.session.scalar(select(ChatSession)
                                          .join(Diagram, Diagram.id == ChatSession.diagram_id)
                                          .join(Project, Project.id == Diagram.project_id)
                                          .join(Membership, and_(Membership.workspace_id == Project.workspace_id,
                                                                 Membership.user_id == user.id))
                                          .where(ChatSession.id == str(session_id), ChatSession.user_id == user.id)),
                        N_("Chat session not found"))


def may_follow(user_id, session_id):
    """Whether the chat session `session_id` is still `user_id`'s and they are still a member of its diagram's
    workspace (every role reads), in one statement: an open stream's access check (pipeline.py)."""
    return db.session.scalar(select(ChatSession.id)
                             .join(Diagram, Diagram.id == ChatSession.diagram_id)
                             .join(Project, Project.id == Diagram.project_id)
                             .join(Membership, and_(Membership.workspace_id == Project.workspace_id,
                                                    Membership.user_id == ChatSession.user_id))
                             .where(ChatSession.id == session_id, ChatSession.user_id == user_id)) is not None


def owned_message(user, session_id, message_id):
    """A message of the caller's session `session_id`; a message of any other session is NotFound."""
    session = owned_session(user, session_id)
    return found_or_404(db.session.scalar(select(ChatMessage).where(ChatMessage.id == str(message_id),
                                                                    ChatMessage.session_id == session.id)),
                        N_("Message not found"))


def _message_counts(session_ids):
    if not session_ids:
        return {}
    rows = db.session.execute(select(ChatMessage.session_id, func.count())
                              .where(ChatMessage.session_id.in_(session_ids))
                              .group_by(ChatMessage.session_id))
    return dict(rows.all())


def _counted(session):
    return CountedSession(session, _message_counts([session.id]).get(session.id, 0))


def list_sessions(user, diagram_id):
    """The caller's sessions about one of their diagrams, most recently active first."""
    diagram = access.diagram(user, diagram_id, VIEWER)
    sessions = db.session.scalars(select(ChatSession)
                                  .where(ChatSession.user_id == user.id, ChatSession.diagram_id == diagram.id)
                                  .order_by(ChatSession.updated_at.desc(), ChatSession.created_at.desc())).all()
    counts = _message_counts([session.id for session in sessions])
    return [CountedSession(session, counts.get(session.id, 0)) for session in sessions]


def create_session(user, diagram_id, title=None):
    diagram = access.diagram(user, diagram_id, VIEWER)
    session = ChatSession(user_id=user.id, diagram_id=diagram.id, title=(title or "").strip() or None)
    db.session.add(session)
    db.session.commit()
    return CountedSession(session, 0)


def session_messages(session):
    return db.session.scalars(select(ChatMessage).where(ChatMessage.session_id == session.id)
                              .order_by(ChatMessage.created_at, ChatMessage.id)).all()


def session_detail(user, session_id):
    """The session with every one of its messages, oldest first."""
    session = owned_session(user, session_id)
    messages = session_messages(session)
    return SessionDetail(CountedSession(session, len(messages)), messages)


def rename_session(user, session_id, title):
    session = owned_session(user, session_id)
    session.title = title.strip()
    db.session.commit()
    return _counted(session)


def choose_model(user, session_id, provider, model):
    """Remember the provider and model the session's next messages use."""
    session = owned_session(user, session_id)
    session.last_provider = provider
    session.last_model = model.strip()
    db.session.commit()
    return _counted(session)


def delete_session(user, session_id):
    session = owned_session(user, session_id)
    deleted = db.session.execute(delete(ChatMessage).where(ChatMessage.session_id == session.id)).rowcount
    db.session.delete(session)
    db.session.commit()
    return {"message": _("Session deleted"), "deleted_messages": deleted}


def delete_message(user, session_id, message_id):
    db.session.delete(owned_message(user, session_id, message_id))
    db.session.commit()
    return {"message": _("Message deleted")}


def set_improvement_status(user, session_id, message_id, status):
    """Record whether the user applied a proposed diagram; only a pending proposal can change."""
    message = owned_message(user, session_id, message_id)
    if not message.improved_code:
        raise BadRequest(_("The message has no improved code"))
    if message.improvement_status == "accepted":
        raise BadRequest(_("The message was already accepted"))
    if message.improvement_status == "rejected":
        raise BadRequest(_("The message was already rejected"))
    message.improvement_status = status
    db.session.commit()
    return message


def provider_usage(user):
    """How many replies each provider gave across all of the caller's sessions."""
    rows = db.session.execute(select(ChatMessage.provider_used, func.count())
                              .join(ChatSession, ChatSession.id == ChatMessage.session_id)
                              .where(ChatSession.user_id == user.id, ChatMessage.role == ROLE_ASSISTANT,
                                     ChatMessage.provider_used.is_not(None))
                              .group_by(ChatMessage.provider_used)).all()
    counts = {provider: count for provider, count in sorted(rows)}
    return {"provider_counts": counts, "total_messages": sum(counts.values())}
