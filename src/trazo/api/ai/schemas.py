"""AI settings and provider schemas, one per direction, and the fields shared by the AI routes."""
from urllib.parse import urlsplit

import marshmallow as ma
from flask_babel import gettext as _
from marshmallow import ValidationError, validates_schema

from ...services.ai.catalog import PROVIDER_NAMES, PROVIDER_TYPES
from ...services.ai.validator import code_language
from ..common import BaseSchema, Timestamp
from ..fields import DiagramType

MIN_KEY_LENGTH = 10
MAX_KEY_LENGTH = 500
LANGUAGES = ("en", "es")


def _known_provider(value):
    if value not in PROVIDER_TYPES:
        raise ValidationError(_("Unknown provider. Supported providers: %(names)s.",
                                names=", ".join(PROVIDER_NAMES)))


class ProviderName(ma.fields.String):
    def __init__(self, **kwargs):
        super().__init__(validate=_known_provider, **kwargs)


class Language(ma.fields.String):
    """The language of the AI content: `en` or `es` (a regional tag such as es-MX counts as es)."""

    def _deserialize(self, value, attr, data, **kwargs):
        primary = super()._deserialize(value, attr, data, **kwargs).strip().lower().replace("_", "-")
        primary = primary.split("-")[0]
        if primary not in LANGUAGES:
            raise ValidationError(_("Must be one of: en, es."))
        return primary


def _http_url(value):
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValidationError(_("Must be an http or https URL."))
    if "@" in parts.netloc:  # a user name or password would be sent on as Basic auth
        raise ValidationError(_("The URL must not contain a user name or password."))


class BaseUrl(ma.fields.String):
    def __init__(self, **kwargs):
        super().__init__(validate=[ma.validate.Length(max=500), _http_url], **kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        return super()._deserialize(value, attr, data, **kwargs).strip().rstrip("/")


def _code_language_type(value):
    if code_language(value) is None:
        raise ValidationError(_("AI can write mermaid, plantuml, d2 and dbml diagrams."))


class CodeDiagramType(DiagramType):
    """A known diagram type written in Mermaid, PlantUML, D2 or DBML."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.validators.append(_code_language_type)


class ProviderChoice(BaseSchema):
    """Which configured provider answers: `provider_index`, else the first of type `provider`,
    else the default one."""

    provider = ProviderName(allow_none=True, load_default=None)
    provider_index = ma.fields.Integer(allow_none=True, load_default=None, strict=True)
    language = Language(allow_none=True, load_default=None)


# -- settings ------------------------------------------------------------------------------

class ProviderParametersSchema(BaseSchema):
    max_tokens = ma.fields.Integer(validate=ma.validate.Range(min=1, max=1_000_000))
    max_output_tokens = ma.fields.Integer(validate=ma.validate.Range(min=1, max=1_000_000))
    temperature = ma.fields.Float(validate=ma.validate.Range(min=0, max=2))
    top_p = ma.fields.Float(validate=ma.validate.Range(min=0, max=1))


def _check_provider_fields(data):
    """A key where the provider needs one; a server and a model for self-hosted providers."""
    spec = PROVIDER_TYPES.get(data.get("provider"))
    if spec is None:
        return
    if spec.key_required and len(data.get("api_key") or "") < MIN_KEY_LENGTH:
        raise ValidationError(_("The API key must have at least %(count)s characters.", count=MIN_KEY_LENGTH),
                              field_name="api_key")
    if spec.base_url_setting is None and not data.get("base_url"):
        raise ValidationError(_("A base URL is required for this provider."), field_name="base_url")
    if spec.recommended_model is None and not data.get("model"):
        raise ValidationError(_("A model is required for this provider."), field_name="model")


class ProviderCreateSchema(BaseSchema):
    provider = ProviderName(required=True)
    api_key = ma.fields.String(load_default="", validate=ma.validate.Length(max=MAX_KEY_LENGTH), load_only=True)
    model = ma.fields.String(allow_none=True, load_default=None, validate=ma.validate.Length(max=200))
    base_url = BaseUrl(allow_none=True, load_default=None)
    display_name = ma.fields.String(allow_none=True, load_default=None, validate=ma.validate.Length(max=100))
    parameters = ma.fields.Nested(ProviderParametersSchema, load_default=dict)
    is_default = ma.fields.Boolean(load_default=False)
    is_active = ma.fields.Boolean(load_default=True)

    @validates_schema
    def provider_fields(self, data, **_kwargs):
        _check_provider_fields(data)


class ProviderUpdateSchema(BaseSchema):
    """Only the sent fields change; an empty `model` keeps the current one."""

    api_key = ma.fields.String(validate=ma.validate.Length(min=1, max=MAX_KEY_LENGTH), load_only=True)
    model = ma.fields.String(validate=ma.validate.Length(max=200))
    base_url = BaseUrl()
    display_name = ma.fields.String(allow_none=True, validate=ma.validate.Length(max=100))
    parameters = ma.fields.Nested(ProviderParametersSchema, allow_none=True)
    is_active = ma.fields.Boolean()
    is_default = ma.fields.Boolean()


class DefaultProviderSchema(BaseSchema):
    provider = ProviderName(required=True)


class AutoFixSchema(BaseSchema):
    enabled = ma.fields.Boolean(required=True)


class TestProviderSchema(BaseSchema):
    provider = ProviderName(required=True)
    api_key = ma.fields.String(load_default="", validate=ma.validate.Length(max=MAX_KEY_LENGTH), load_only=True)
    model = ma.fields.String(allow_none=True, load_default=None, validate=ma.validate.Length(max=200))
    base_url = BaseUrl(allow_none=True, load_default=None)

    @validates_schema
    def provider_fields(self, data, **_kwargs):
        _check_provider_fields(data)


class ProviderEntrySchema(BaseSchema):
    index = ma.fields.Integer(required=True)
    provider = ma.fields.String(required=True)
    api_key = ma.fields.String(required=True, metadata={"description": "Masked key (`sk-a...xyz`)"})
    model = ma.fields.String(required=True)
    base_url = ma.fields.String(allow_none=True)
    is_active = ma.fields.Boolean(required=True)
    is_default = ma.fields.Boolean(required=True)
    parameters = ma.fields.Dict(required=True)
    display_name = ma.fields.String(allow_none=True)
    created_at = Timestamp(required=True)
    updated_at = Timestamp(required=True)


class AISettingsSchema(BaseSchema):
    user_id = ma.fields.String(required=True)
    providers = ma.fields.List(ma.fields.Nested(ProviderEntrySchema), required=True)
    auto_generate_on_save = ma.fields.Boolean(required=True)
    auto_fix_generated = ma.fields.Boolean(required=True)
    default_provider = ma.fields.String(allow_none=True)
    created_at = Timestamp(required=True)
    updated_at = Timestamp(required=True)


class TestProviderResultSchema(BaseSchema):
    valid = ma.fields.Boolean(required=True)
    message = ma.fields.String(required=True)
    provider_name = ma.fields.String(required=True)
    error_code = ma.fields.String(allow_none=True)
