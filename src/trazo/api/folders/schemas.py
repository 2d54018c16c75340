"""Folder schemas, one per direction."""
import marshmallow as ma

from ...models.content import DEFAULT_FOLDER_COLOR
from ..common import BaseSchema, Timestamp
from ..diagrams.schemas import DiagramSchema
from ..fields import HexColor, Name


class FolderCreateSchema(BaseSchema):
    name = Name(required=True)
    color = HexColor(load_default=DEFAULT_FOLDER_COLOR)


class FolderUpdateSchema(BaseSchema):
    name = Name()
    color = HexColor()


class FolderDeleteQuerySchema(BaseSchema):
    delete_diagrams = ma.fields.Boolean(load_default=False)


class FolderSchema(BaseSchema):
    id = ma.fields.String()
    name = ma.fields.String()
    color = ma.fields.String()
    project_id = ma.fields.String()
    created_at = Timestamp()
    updated_at = Timestamp()


class FolderWithDiagramsSchema(FolderSchema):
    diagrams = ma.fields.List(ma.fields.Nested(DiagramSchema))
