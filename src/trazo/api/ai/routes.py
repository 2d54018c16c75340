"""AI routes: provider settings and stateless generation (`blp`, /api/v1/ai), and the AI repair and
conversion of diagrams (`diagram_blp`, /api/v1/diagrams/{id}/fix and /api/v1/diagrams/convert)."""
from flask.views import MethodView

from ...auth import current_user, user_or_address
from ...errors import CodedErrorSchema, ObjectErrorSchema, ValidationErrorSchema, error_doc
from ...extensions import limiter
from ...i18n import language_from_body
from ...models.workspaces import EDITOR
from ...ratelimit import limit
from ..blueprint import Blueprint
from . import service, settings
from .schemas import (
    AISettingsSchema,
    AutoFixSchema,
    ConvertRequestSchema,
    ConvertResultSchema,
    DefaultProviderSchema,
    DescriptionSchema,
    DiagramCodeSchema,
    FixRequestSchema,
    FixResultSchema,
    GenerateDescriptionSchema,
    GenerateDiagramSchema,
    ImprovedDiagramSchema,
    ImproveDiagramSchema,
    ProviderCreateSchema,
    ProviderUpdateSchema,
    RefineDescriptionSchema,
    TestProviderResultSchema,
    TestProviderSchema,
)

blp = Blueprint("ai", __name__, description="AI providers and generation")
diagram_blp = Blueprint("diagram_ai", __name__, description="AI repair and conversion of diagrams")
AI_LIMIT = {"key_func": user_or_address}
PROVIDER_FAILURES = "Provider failure: a text `detail` and its `error_code` (invalid_key, no_credits, ...)"
UNUSABLE_RESULT = "or an object detail {error: response_truncated | empty_response, message}"
NO_PROVIDER = "No active AI provider (of the requested type), or no provider at the requested index"
NO_ENTRY = "No provider at this index"
# Repair without any provider at all is a 400; a missing provider of the requested type is a 404.
NO_DIAGRAM_OR_PROVIDER = "Diagram not found, no active provider of the requested type, or no provider at that index"


def provider_failures(code_result=False):
    """Document the statuses a provider call can answer besides success. With `code_result`, a
    reply cut off (422) or without code (502) answers an object detail."""
    unusable = (ObjectErrorSchema,) if code_result else ()
    suffix = f", {UNUSABLE_RESULT}" if code_result else ""
    docs = {400: (CodedErrorSchema,), 402: (CodedErrorSchema,),
            422: (ValidationErrorSchema, CodedErrorSchema, *unusable), 429: (CodedErrorSchema,),
            502: (CodedErrorSchema, *unusable), 504: (CodedErrorSchema,)}

    def decorate(view):
        for status, schemas in docs.items():
            described = PROVIDER_FAILURES + (suffix if status in (422, 502) else "")
            view = blp.alt_response(status, schema=error_doc(*schemas), description=described)(view)
        return view

    return decorate


def provider_call(target, body, answer, *, code_result=False):
    """The one declaration of a route that asks the user's provider (generation, fix, convert): the answer's
    language from the body, the AI rate limit, `body` and `answer` schemas on `target` (the blueprint),
    and the provider failures (see `provider_failures`)."""

    def decorate(view):
        view = provider_failures(code_result)(view)
        view = target.response(200, answer)(view)
        view = target.arguments(body)(view)
        view = limiter.limit(limit("AI"), **AI_LIMIT)(view)
        return language_from_body(view)

    return decorate


# -- provider settings --------------------------------------------------------------------

@blp.route("/settings", transaction=True)  # creates the settings row on first read
@blp.response(200, AISettingsSchema)
def get_settings():
    """Read my AI settings and providers"""
    return settings.read_settings(current_user)


@blp.route("/settings/default-provider", methods=["PUT"], not_found="No provider of that type is configured")
@blp.arguments(DefaultProviderSchema)
@blp.response(200, AISettingsSchema)
def set_default_provider(data):
    """Make a provider type my default"""
    return settings.set_default_provider(current_user, data["provider"])


@blp.route("/settings/auto-fix", methods=["PUT"])
@blp.arguments(AutoFixSchema)
@blp.response(200, AISettingsSchema)
def set_auto_fix(data):
    """Turn the automatic repair of generated code on or off"""
    return settings.set_auto_fix(current_user, data["enabled"])


@blp.route("/providers", methods=["POST"])
@limiter.limit(limit("AI"), **AI_LIMIT)
@blp.arguments(ProviderCreateSchema)
@blp.response(201, AISettingsSchema)
@provider_failures()
def add_provider(data):
    """Add an AI provider (its key is checked with the provider first)"""
    return settings.add_provider(current_user, data)


@blp.route("/providers/<provider_index>", not_found=NO_ENTRY)
class ProviderEntry(MethodView):
    @limiter.limit(limit("AI"), **AI_LIMIT)
    @blp.arguments(ProviderUpdateSchema)
    @blp.response(200, AISettingsSchema)
    @provider_failures()
    def put(self, data, provider_index):
        """Change an AI provider (a new key, model or server is checked first)"""
        return settings.update_provider(current_user, provider_index, data)

    @blp.response(200, AISettingsSchema)
    def delete(self, provider_index):
        """Remove an AI provider"""
        return settings.delete_provider(current_user, provider_index)


@blp.route("/test-provider", methods=["POST"])
@limiter.limit(limit("AI"), **AI_LIMIT)
@blp.arguments(TestProviderSchema)
@blp.response(200, TestProviderResultSchema)
def test_provider(data):
    """Check an API key with its provider without saving it"""
    return settings.test_provider(data)


# -- generation ------------------------------------------------------------------------------

@blp.route("/generate-diagram", methods=["POST"], not_found=NO_PROVIDER)
@provider_call(blp, GenerateDiagramSchema, DiagramCodeSchema, code_result=True)
def generate_diagram(data):
    """Write diagram code from a description"""
    return service.generate_diagram(current_user, data)


@blp.route("/improve-diagram", methods=["POST"], not_found=NO_PROVIDER)
@provider_call(blp, ImproveDiagramSchema, ImprovedDiagramSchema, code_result=True)
def improve_diagram(data):
    """Apply a requested change to diagram code"""
    return service.improve_diagram(current_user, data)


@blp.route("/generate-description", methods=["POST"], not_found=NO_PROVIDER)
@provider_call(blp, GenerateDescriptionSchema, DescriptionSchema)
def generate_description(data):
    """Write the documentation of a diagram"""
    return service.generate_description(current_user, data)


@blp.route("/refine-description", methods=["POST"], not_found=NO_PROVIDER)
@provider_call(blp, RefineDescriptionSchema, DescriptionSchema)
def refine_description(data):
    """Rewrite the documentation of a diagram following an instruction"""
    return service.refine_description(current_user, data)


# -- fix and convert (mounted on /diagrams) ---------------------------------------------------

@diagram_blp.route("/<diagram_id>/fix", methods=["POST"], not_found=NO_DIAGRAM_OR_PROVIDER, role=EDITOR)
@provider_call(diagram_blp, FixRequestSchema, FixResultSchema, code_result=True)
def fix_diagram(data, diagram_id):
    """Repair the syntax of a diagram with AI (nothing is saved)"""
    return service.fix_diagram(current_user, diagram_id, data)


@diagram_blp.route("/convert", methods=["POST"], not_found=NO_PROVIDER)
@provider_call(diagram_blp, ConvertRequestSchema, ConvertResultSchema, code_result=True)
def convert_diagram(data):
    """Convert diagram code to another diagram language (a preview, nothing is saved)"""
    return service.convert_diagram(current_user, data)
