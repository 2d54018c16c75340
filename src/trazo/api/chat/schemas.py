"""Chat sessions and messages schemas, one per direction."""
import marshmallow as ma
from flask_babel import gettext as _

from ...models.chat import IMPROVEMENT_STATUSES
from ...services.ai.catalog import PROVIDER_NAMES
from ..common import BaseSchema, Timestamp, not_blank
from ..fields import DiagramType

PRESET_ACTIONS = ("explain", "improve_ui", "improve_process", "fix")
LANGUAGES = ("es", "en")
MAX_CONTENT_CHARS = 5000
MAX_DIAGRAM_CHARS = 1_000_000


class Language(ma.fields.String):
    """The language of the AI's answer: `es`, `en` or a tag of them (`es-ES`); others mean "as the request"."""

    def _deserialize(self, value, attr, data, **kwargs):
        primary = super()._deserialize(value, attr, data, **kwargs).strip().lower()[:2]
        return primary if primary in LANGUAGES else None


class SessionQuerySchema(BaseSchema):
    diagram_id = ma.fields.String(required=True, validate=ma.validate.Length(min=1, max=64))


class SessionCreateSchema(BaseSchema):
    diagram_id = ma.fields.String(required=True, validate=ma.validate.Length(min=1, max=64))
    title = ma.fields.String(allow_none=True, load_default=None, validate=ma.validate.Length(max=200))


class SessionUpdateSchema(BaseSchema):
    title = ma.fields.String(required=True, validate=[ma.validate.Length(min=1, max=200), not_blank])


class ModelChoiceSchema(BaseSchema):
    provider = ma.fields.String(required=True, validate=ma.validate.OneOf(PROVIDER_NAMES))
    model = ma.fields.String(required=True, validate=[ma.validate.Length(min=1, max=200), not_blank])


class SendMessageSchema(BaseSchema):
    content = ma.fields.String(required=True, validate=[ma.validate.Length(min=1, max=MAX_CONTENT_CHARS),
                                                        not_blank])
    diagram_code = ma.fields.String(required=True, validate=ma.validate.Length(max=MAX_DIAGRAM_CHARS))
    diagram_type = DiagramType(required=True)
    provider = ma.fields.String(allow_none=True, load_default=None, validate=ma.validate.OneOf(PROVIDER_NAMES))
    model = ma.fields.String(allow_none=True, load_default=None, validate=ma.validate.Length(max=200))
    language = Language(allow_none=True, load_default=None)
    preset_action = ma.fields.String(allow_none=True, load_default=None,
                                     validate=ma.validate.OneOf(PRESET_ACTIONS))


class MessageStatusSchema(BaseSchema):
    status = ma.fields.String(required=True, validate=ma.validate.OneOf(IMPROVEMENT_STATUSES))


class SessionTitle(ma.fields.String):
    """A session's title; an untitled session reads as the localized "New session"."""

    def _serialize(self, value, attr, obj, **kwargs):
        return super()._serialize(value or _("New session"), attr, obj, **kwargs)


class ChatSessionSchema(BaseSchema):
    """Dumps a CountedSession: the session and its message count."""

    id = ma.fields.String(required=True, attribute="session.id")
    diagram_id = ma.fields.String(required=True, attribute="session.diagram_id")
    title = SessionTitle(required=True, attribute="session.title")
    status = ma.fields.String(required=True, attribute="session.status")
    parent_session_id = ma.fields.String(allow_none=True, attribute="session.parent_session_id")
    last_provider = ma.fields.String(allow_none=True, attribute="session.last_provider")
    last_model = ma.fields.String(allow_none=True, attribute="session.last_model")
    created_at = Timestamp(attribute="session.created_at")
    updated_at = Timestamp(attribute="session.updated_at")
    message_count = ma.fields.Integer(required=True)


class ChatMessageSchema(BaseSchema):
    id = ma.fields.String(required=True)
    session_id = ma.fields.String(required=True)
    role = ma.fields.String(required=True)
    content = ma.fields.String(required=True)
    improved_code = ma.fields.String(allow_none=True)
    improvement_status = ma.fields.String(allow_none=True)
    provider_used = ma.fields.String(allow_none=True)
    model_used = ma.fields.String(allow_none=True)
    generation_time = ma.fields.Float(allow_none=True)
    created_at = Timestamp()


class SessionDetailSchema(BaseSchema):
    session = ma.fields.Nested(ChatSessionSchema, required=True)
    messages = ma.fields.List(ma.fields.Nested(ChatMessageSchema), required=True)


class SessionDeletedSchema(BaseSchema):
    message = ma.fields.String(required=True)
    deleted_messages = ma.fields.Integer(required=True)


class ProviderUsageSchema(BaseSchema):
    provider_counts = ma.fields.Dict(keys=ma.fields.String(), values=ma.fields.Integer(), required=True)
    total_messages = ma.fields.Integer(required=True)

