"""Folder input schemas; the folder output shared with projects is in api/content_schemas.py."""
import marshmallow as ma

from ...models.content import DEFAULT_FOLDER_COLOR
from ..common import BaseSchema
from ..fields import HexColor, Name


class FolderCreateSchema(BaseSchema):
    name = Name(required=True)
    color = HexColor(load_default=DEFAULT_FOLDER_COLOR)


class FolderUpdateSchema(BaseSchema):
    name = Name()
    color = HexColor()


class FolderDeleteQuerySchema(BaseSchema):
    delete_diagrams = ma.fields.Boolean(load_default=False)
