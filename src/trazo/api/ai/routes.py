"""AI settings, provider entries and stateless generation routes (/api/v1/ai)."""
from flask.views import MethodView
from flask_smorest import Blueprint

from ...auth import current_user, login_required
from ...errors import CodedErrorSchema, ErrorSchema, ObjectErrorSchema, ValidationErrorSchema, error_doc
from ...extensions import limiter
from ...i18n import language_from_body
from ...ratelimit import limit, user_or_address
from . import generation_service, settings_service
from .generation_schemas import (
    DescriptionSchema,
    DiagramCodeSchema,
    GenerateDescriptionSchema,
    GenerateDiagramSchema,
    ImprovedDiagramSchema,
    ImproveDiagramSchema,
    RefineDescriptionSchema,
)
from .schemas import (
    AISettingsSchema,
    AutoFixSchema,
    DefaultProviderSchema,
    ProviderCreateSchema,
    ProviderUpdateSchema,
    TestProviderResultSchema,
    TestProviderSchema,
)

blp = Blueprint("ai", __name__, description="AI providers and generation")
AI_LIMIT = {"key_func": user_or_address}
PROVIDER_FAILURES = "Provider failure: a text `detail` and its `error_code` (invalid_key, no_credits, ...)"
UNUSABLE_RESULT = "or an object detail {error: response_truncated | empty_response, message}"


def provider_failures(code_result=False):
    """Document the statuses a provider call can answer besides success. With `code_result`, a
    reply cut off (422) or without code (502) answers an object detail."""
    unusable = (ObjectErrorSchema,) if code_result else ()
    suffix = f", {UNUSABLE_RESULT}" if code_result else ""
    docs = {400: (CodedErrorSchema,), 402: (CodedErrorSchema,), 404: (ErrorSchema,),
            422: (ValidationErrorSchema, CodedErrorSchema, *unusable), 429: (CodedErrorSchema,),
            502: (CodedErrorSchema, *unusable), 504: (CodedErrorSchema,)}

    def decorate(view):
        for status, schemas in docs.items():
            described = PROVIDER_FAILURES + (suffix if status in (422, 502) else "")
            view = blp.alt_response(status, schema=error_doc(*schemas), description=described)(view)
        return view

    return decorate


@blp.route("/settings")
@login_required
@blp.response(200, AISettingsSchema)
def get_settings():
    """Read my AI settings and providers"""
    return settings_service.settings_view(current_user)


@blp.route("/settings/default-provider", methods=["PUT"])
@login_required
@blp.arguments(DefaultProviderSchema)
@blp.response(200, AISettingsSchema)
@blp.alt_response(404, "DEFAULT_ERROR", description="No provider of that type is configured")
def set_default_provider(data):
    """Make a provider type my default"""
    return settings_service.set_default_provider(current_user, data["provider"])


@blp.route("/settings/auto-fix", methods=["PUT"])
@login_required
@blp.arguments(AutoFixSchema)
@blp.response(200, AISettingsSchema)
def set_auto_fix(data):
    """Turn the automatic repair of generated code on or off"""
    return settings_service.set_auto_fix(current_user, data["enabled"])


@blp.route("/providers", methods=["POST"])
@login_required
@limiter.limit(limit("AI"), **AI_LIMIT)
@blp.arguments(ProviderCreateSchema)
@blp.response(201, AISettingsSchema)
@provider_failures()
def add_provider(data):
    """Add an AI provider (its key is checked with the provider first)"""
    return settings_service.add_provider(current_user, data)


@blp.route("/providers/<provider_index>")
class ProviderEntry(MethodView):
    decorators = [login_required]

    @limiter.limit(limit("AI"), **AI_LIMIT)
    @blp.arguments(ProviderUpdateSchema)
    @blp.response(200, AISettingsSchema)
    @provider_failures()
    def put(self, data, provider_index):
        """Change an AI provider (a new key, model or server is checked first)"""
        return settings_service.update_provider(current_user, provider_index, data)

    @blp.response(200, AISettingsSchema)
    @blp.alt_response(404, "DEFAULT_ERROR", description="No provider at this index")
    def delete(self, provider_index):
        """Remove an AI provider"""
        return settings_service.delete_provider(current_user, provider_index)


@blp.route("/test-provider", methods=["POST"])
@login_required
@limiter.limit(limit("AI"), **AI_LIMIT)
@blp.arguments(TestProviderSchema)
@blp.response(200, TestProviderResultSchema)
def test_provider(data):
    """Check an API key with its provider without saving it"""
    return settings_service.test_provider(data)


@blp.route("/generate-diagram", methods=["POST"])
@language_from_body
@login_required
@limiter.limit(limit("AI"), **AI_LIMIT)
@blp.arguments(GenerateDiagramSchema)
@blp.response(200, DiagramCodeSchema)
@provider_failures(code_result=True)
def generate_diagram(data):
    """Write diagram code from a description"""
    return generation_service.generate_diagram(current_user, data)


@blp.route("/improve-diagram", methods=["POST"])
@language_from_body
@login_required
@limiter.limit(limit("AI"), **AI_LIMIT)
@blp.arguments(ImproveDiagramSchema)
@blp.response(200, ImprovedDiagramSchema)
@provider_failures(code_result=True)
def improve_diagram(data):
    """Apply a requested change to diagram code"""
    return generation_service.improve_diagram(current_user, data)


@blp.route("/generate-description", methods=["POST"])
@language_from_body
@login_required
@limiter.limit(limit("AI"), **AI_LIMIT)
@blp.arguments(GenerateDescriptionSchema)
@blp.response(200, DescriptionSchema)
@provider_failures()
def generate_description(data):
    """Write the documentation of a diagram"""
    return generation_service.generate_description(current_user, data)


@blp.route("/refine-description", methods=["POST"])
@language_from_body
@login_required
@limiter.limit(limit("AI"), **AI_LIMIT)
@blp.arguments(RefineDescriptionSchema)
@blp.response(200, DescriptionSchema)
@provider_failures()
def refine_description(data):
    """Rewrite the documentation of a diagram following an instruction"""
    return generation_service.refine_description(current_user, data)
