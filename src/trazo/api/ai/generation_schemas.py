"""Request and response schemas of the stateless generation routes."""
import marshmallow as ma

from ..common import BaseSchema
from ..fields import DESCRIPTION_MAX, DiagramType
from .schemas import CodeDiagramType, ProviderChoice

MAX_CODE = 200_000
MAX_REQUEST = 5_000


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
