"""Render request schema (the source's size is checked against RENDER_MAX_SOURCE_BYTES by the service), and
the engines listing."""
import marshmallow as ma

from ..common import BaseSchema, not_blank


class RenderSchema(BaseSchema):
    source = ma.fields.String(required=True, validate=not_blank)
    diagram_type = ma.fields.String(required=True, validate=ma.validate.Length(min=1, max=50))


class EngineSchema(BaseSchema):
    type = ma.fields.String(required=True, metadata={"description": "A diagram type POST /diagrams/render draws"})
    engine = ma.fields.String(required=True, metadata={"description": "What draws it: graphviz, plantuml, d2, "
                                                                      "dbml-renderer, ... or kroki"})
    version = ma.fields.String(allow_none=True, metadata={"description": "The engine's version; null when "
                                                                         "unknown (always for Kroki)"})
    backend = ma.fields.String(required=True, validate=ma.validate.OneOf(("local", "kroki")),
                               metadata={"description": "local: an engine on this host; kroki: the "
                                                        "configured Kroki server"})
