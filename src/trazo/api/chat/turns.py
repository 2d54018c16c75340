"""The database side of sending a message: the checks and the user message before the call, the
reply (or the failure) after it, and moving a long conversation into a fresh session.

Each function is one short transaction, so the streamed path holds no connection while it waits
for the provider.
"""
from dataclasses import dataclass, field, replace

from flask_babel import get_locale
from flask_babel import gettext as _
from sqlalchemy import select

from ...core.ai.providers import NoActiveProvider, auto_fix_enabled, resolve_provider
from ...errors import AppError, BadRequest, NotFound
from ...extensions import db
from ...models.base import utcnow
from ...models.chat import ROLE_ASSISTANT, ROLE_ERROR, ROLE_USER, SESSION_FINALIZED, ChatMessage, ChatSession
from .context import guess_mode, rolling_summary
from .service import owned_session

TRANSCRIPT_MESSAGES = 20
TITLE_CHARS = 50


@dataclass
class Turn:
    """Everything the reply needs, copied out of the database before the provider is called."""

    user_id: str
    session_id: str
    user_message_id: str
    content: str
    diagram_code: str
    diagram_type: str
    preset_action: str | None
    language: str
    locale: str
    config: object  # None when no provider can answer; `missing_provider` then says why
    auto_fix: bool
    mode: str
    summary: str | None
    transcript: list = field(default_factory=list)  # earlier user/assistant messages, oldest first
    missing_provider: str | None = None


def _provider_config(user, session, data):
    """The body's provider, else the session's chosen one (while configured), else the default."""
    provider = data.get("provider")
    if provider is None and session.last_provider:
        try:
            config = resolve_provider(user, provider=session.last_provider)
        except AppError:
            config = resolve_provider(user)
    else:
        config = resolve_provider(user, provider=provider)
    model = data.get("model") or (session.last_model if session.last_provider == config.provider else None)
    return replace(config, model=model.strip()) if model and model.strip() else config


def _auto_title(content):
    first_line = content.strip().splitlines()[0].strip()
    if len(first_line) <= TITLE_CHARS:
        return first_line
    cut = first_line[:TITLE_CHARS].rsplit(" ", 1)[0] or first_line[:TITLE_CHARS]
    return cut.rstrip() + "…"


def _transcript(session_id):
    rows = db.session.scalars(select(ChatMessage)
                              .where(ChatMessage.session_id == session_id, ChatMessage.role != ROLE_ERROR)
                              .order_by(ChatMessage.created_at.desc(), ChatMessage.id)
                              .limit(TRANSCRIPT_MESSAGES)).all()
    return [{"role": row.role, "content": row.content} for row in reversed(rows) if row.content]


def _configured_provider(user, session, data):
    """(config, None), or (None, the reason) when no provider can answer."""
    try:
        return _provider_config(user, session, data), None
    except NoActiveProvider as missing:
        return None, _("No AI provider is configured.") if missing.provider is None else missing.detail


def start_turn(user, session_id, data):
    """Check the session, save the user's message (kept even when no provider can answer), find the
    provider, and copy what the reply needs."""
    session = owned_session(user, session_id)
    if session.status == SESSION_FINALIZED:
        raise BadRequest(_("Messages can't be sent to a finished session"))
    transcript = _transcript(session.id)
    message = ChatMessage(session_id=session.id, role=ROLE_USER, content=data["content"])
    db.session.add(message)
    if session.title is None and not transcript:
        session.title = _auto_title(data["content"])
    session.updated_at = utcnow()
    db.session.commit()
    config, missing_provider = _configured_provider(user, session, data)
    locale = str(get_locale() or "en")
    return Turn(user_id=user.id, session_id=session.id, user_message_id=message.id, content=data["content"],
                diagram_code=data["diagram_code"], diagram_type=data["diagram_type"],
                preset_action=data.get("preset_action"), language=data.get("language") or locale,
                locale=locale, config=config, auto_fix=auto_fix_enabled(user),
                mode=guess_mode(data["content"], data.get("preset_action")), summary=session.summary,
                transcript=transcript, missing_provider=missing_provider)


def _live_session(turn):
    session = db.session.get(ChatSession, turn.session_id)
    if session is None or session.user_id != turn.user_id:
        raise NotFound(_("Chat session not found"))  # deleted while the reply was being written
    return session


def save_reply(turn, text, code, generation_time):
    """Store the assistant's message and fold the exchange into the session's rolling summary."""
    session = _live_session(turn)
    message = ChatMessage(session_id=session.id, role=ROLE_ASSISTANT, content=text, improved_code=code,
                          improvement_status="pending" if code else None, provider_used=turn.config.provider,
                          model_used=turn.config.model, generation_time=round(generation_time, 2))
    db.session.add(message)
    session.summary = rolling_summary(session.summary, turn.content, text, bool(code))
    session.last_provider, session.last_model = turn.config.provider, turn.config.model
    session.updated_at = utcnow()
    db.session.commit()
    return message


def save_failure(turn, text):
    """Store an error-role message with the (localized) reason the reply failed."""
    session = _live_session(turn)
    message = ChatMessage(session_id=session.id, role=ROLE_ERROR, content=text)
    db.session.add(message)
    session.updated_at = utcnow()
    db.session.commit()
    return message


def move_to_new_session(turn, summary):
    """Finish the session and continue in a new one that starts from `summary` (context compaction).

    The user's message moves along, so it is stored once, in the session the reply goes to.
    """
    old = _live_session(turn)
    new = ChatSession(user_id=old.user_id, diagram_id=old.diagram_id, title=old.title,
                      parent_session_id=old.id, summary=summary, last_provider=old.last_provider,
                      last_model=old.last_model)
    db.session.add(new)
    old.status = SESSION_FINALIZED
    db.session.flush()
    message = db.session.get(ChatMessage, turn.user_message_id)
    if message is not None:
        message.session_id = new.id
    db.session.commit()
    return new.id
