"""Schemas of the AI routes, one per direction: provider settings, generation, fix and convert."""
from urllib.parse import urlsplit

import marshmallow as ma
from flask_babel import gettext as _
from marshmallow import ValidationError, validates_schema

from ...core.content.validation import code_language
from ...services.ai.catalog import PROVIDER_NAMES, PROVIDER_TYPES
from ..common import BaseSchema, Timestamp
from ..fields import DESCRIPTION_MAX, DiagramType

MIN_KEY_LENGTH = 10
MAX_KEY_LENGTH = 500
LANGUAGES = ("en", "es")
MAX_CODE = 200_000
MAX_REQUEST = 5_000


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


class EntryParameters(ma.fields.Dict):
    """A provider entry's parameters; none stored reads as {}."""

    def _serialize(self, value, attr, obj, **kwargs):
        return super()._serialize(value or {}, attr, obj, **kwargs)


class ProviderEntrySchema(BaseSchema):
    """Dumps a ListedProvider: the entry's index in the list, and the entry with its key masked."""

    index = ma.fields.Integer(required=True)
    provider = ma.fields.String(required=True, attribute="entry.provider")
    api_key = ma.fields.String(required=True, attribute="entry.api_key_mask",
                               metadata={"description": "Masked key (`sk-a...xyz`)"})
    model = ma.fields.String(required=True, attribute="entry.model")
    base_url = ma.fields.String(allow_none=True, attribute="entry.base_url")
    is_active = ma.fields.Boolean(required=True, attribute="entry.is_active")
    is_default = ma.fields.Boolean(required=True, attribute="entry.is_default")
    parameters = EntryParameters(required=True, attribute="entry.parameters")
    display_name = ma.fields.String(allow_none=True, attribute="entry.display_name")
    created_at = Timestamp(required=True, attribute="entry.created_at")
    updated_at = Timestamp(required=True, attribute="entry.updated_at")


class AISettingsSchema(BaseSchema):
    """Dumps ProviderSettings: the settings row, the listed providers and the default provider type."""

    user_id = ma.fields.String(required=True, attribute="settings.user_id")
    providers = ma.fields.List(ma.fields.Nested(ProviderEntrySchema), required=True)
    auto_generate_on_save = ma.fields.Boolean(required=True, attribute="settings.auto_generate_on_save")
    auto_fix_generated = ma.fields.Boolean(required=True, attribute="settings.auto_fix_generated")
    default_provider = ma.fields.String(allow_none=True)
    created_at = Timestamp(required=True, attribute="settings.created_at")
    updated_at = Timestamp(required=True, attribute="settings.updated_at")


class TestProviderResultSchema(BaseSchema):
    valid = ma.fields.Boolean(required=True)
    message = ma.fields.String(required=True)
    provider_name = ma.fields.String(required=True)
    error_code = ma.fields.String(allow_none=True)


# -- generation ----------------------------------------------------------------------------

def code_field(**kwargs):
    return ma.fields.String(validate=ma.validate.Length(min=1, max=MAX_CODE), **kwargs)


class GenerateDiagramSchema(ProviderChoice):
    description = ma.fields.String(required=True, validate=ma.validate.Length(min=10, max=20_000))
    diagram_type = CodeDiagramType(load_default="mermaid")


class ImproveDiagramSchema(ProviderChoice):
    # May be empty: the editor generates a first diagram through this route.
    diagram_code = ma.fields.String(required=True, validate=ma.validate.Length(max=MAX_CODE))
    improvement_request = ma.fields.String(required=True, validate=ma.validate.Length(min=5, max=MAX_REQUEST))
    diagram_type = CodeDiagramType(required=True)


class GenerateDescriptionSchema(ProviderChoice):
    diagram_code = code_field(required=True)
    diagram_type = DiagramType(required=True)


class RefineDescriptionSchema(GenerateDescriptionSchema):
    current_description = ma.fields.String(required=True,
                                           validate=ma.validate.Length(min=1, max=DESCRIPTION_MAX))
    refinement_request = ma.fields.String(required=True, validate=ma.validate.Length(min=3, max=MAX_REQUEST))


class GenerationResultSchema(BaseSchema):
    provider_used = ma.fields.String(required=True)
    model_used = ma.fields.String(required=True)
    generation_time = ma.fields.Float(required=True, metadata={"description": "Seconds, 2 decimals"})


class DiagramCodeSchema(GenerationResultSchema):
    diagram_code = ma.fields.String(required=True)


class ImprovedDiagramSchema(DiagramCodeSchema):
    original_code = ma.fields.String(required=True)
    improvement_applied = ma.fields.String(required=True)


class DescriptionSchema(GenerationResultSchema):
    description = ma.fields.String(required=True)
    tokens_used = ma.fields.Integer(allow_none=True)


# -- fix and convert -------------------------------------------------------------------------

class FixRequestSchema(ProviderChoice):
    error_context = ma.fields.String(allow_none=True, load_default=None,
                                     validate=ma.validate.Length(max=5_000))
    diagram_code = ma.fields.String(allow_none=True, load_default=None, validate=ma.validate.Length(max=MAX_CODE),
                                    metadata={"description": "Code to repair instead of the stored one "
                                                             "(e.g. unsaved editor text)"})


class FixResultSchema(BaseSchema):
    original_code = ma.fields.String(required=True)
    corrected_code = ma.fields.String(required=True)
    explanation = ma.fields.String(required=True)
    changes_summary = ma.fields.String(required=True)
    diff = ma.fields.String(required=True, metadata={"description": "Unified diff original -> corrected"})
    provider_used = ma.fields.String(required=True)
    model_used = ma.fields.String(required=True)
    generation_time = ma.fields.Float(required=True)
    validation_passed = ma.fields.Boolean(required=True)


class ConvertRequestSchema(ProviderChoice):
    diagram_code = code_field(required=True)
    source_type = ma.fields.String(required=True, validate=ma.validate.Length(min=1, max=32))
    target_type = ma.fields.String(required=True, validate=ma.validate.Length(min=1, max=32))
    model = ma.fields.String(allow_none=True, load_default=None, validate=ma.validate.Length(min=1, max=200))


class ConvertResultSchema(BaseSchema):
    original_code = ma.fields.String(required=True)
    converted_code = ma.fields.String(required=True)
    source_type = ma.fields.String(required=True)
    target_type = ma.fields.String(required=True)
    provider_used = ma.fields.String(required=True)
    model_used = ma.fields.String(required=True)
    generation_time = ma.fields.Float(required=True)
    warning = ma.fields.String(allow_none=True)
