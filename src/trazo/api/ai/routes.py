"""AI settings, provider entries and stateless generation routes (/api/v1/ai)."""
from flask.views import MethodView
from flask_smorest import Blueprint

from ...auth import current_user, login_required
from ...extensions import limiter
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
PROVIDER_FAILURES = "Provider failure: {'error': code, 'message'} (invalid_key, no_credits, rate_limited, ...)"


def documents_provider_failures(view):
    """The statuses a provider call can answer besides success."""
    for status in (400, 402, 404, 422, 429, 502, 504):
        view = blp.alt_response(status, "DEFAULT_ERROR", description=PROVIDER_FAILURES)(view)
    return view


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
@documents_provider_failures
def add_provider(data):
    """Add an AI provider (its key is checked with the provider first)"""
    return settings_service.add_provider(current_user, data)


@blp.route("/providers/<provider_index>")
class ProviderEntry(MethodView):
    decorators = [login_required]

    @limiter.limit(limit("AI"), **AI_LIMIT)
    @blp.arguments(ProviderUpdateSchema)
    @blp.response(200, AISettingsSchema)
    @documents_provider_failures
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
@login_required
@limiter.limit(limit("AI"), **AI_LIMIT)
@blp.arguments(GenerateDiagramSchema)
@blp.response(200, DiagramCodeSchema)
@documents_provider_failures
def generate_diagram(data):
    """Write diagram code from a description"""
    return generation_service.generate_diagram(current_user, data)


@blp.route("/improve-diagram", methods=["POST"])
@login_required
@limiter.limit(limit("AI"), **AI_LIMIT)
@blp.arguments(ImproveDiagramSchema)
@blp.response(200, ImprovedDiagramSchema)
@documents_provider_failures
def improve_diagram(data):
    """Apply a requested change to diagram code"""
    return generation_service.improve_diagram(current_user, data)


@blp.route("/generate-description", methods=["POST"])
@login_required
@limiter.limit(limit("AI"), **AI_LIMIT)
@blp.arguments(GenerateDescriptionSchema)
@blp.response(200, DescriptionSchema)
@documents_provider_failures
def generate_description(data):
    """Write the documentation of a diagram"""
    return generation_service.generate_description(current_user, data)


@blp.route("/refine-description", methods=["POST"])
@login_required
@limiter.limit(limit("AI"), **AI_LIMIT)
@blp.arguments(RefineDescriptionSchema)
@blp.response(200, DescriptionSchema)
@documents_provider_failures
def refine_description(data):
    """Rewrite the documentation of a diagram following an instruction"""
    return generation_service.refine_description(current_user, data)
