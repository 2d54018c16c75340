"""The output schemas the content areas share (a project's tree shows its folders and diagrams, a folder
its diagrams), and the folder-with-diagrams object they dump."""
from dataclasses import dataclass

import marshmallow as ma

from ..models.content import Folder
from .common import BaseSchema, Timestamp
from .compiled_dump import CompiledDump


class DiagramConfigOutSchema(CompiledDump, BaseSchema):
    background_color = ma.fields.String()
    background_pattern = ma.fields.String()


class UserPreferencesOutSchema(CompiledDump, BaseSchema):
    description_pinned = ma.fields.Boolean()
    description_font_size = ma.fields.Integer(allow_none=True)
    description_panel_width = ma.fields.Integer(allow_none=True)
    chat_panel_width = ma.fields.Integer(allow_none=True)
    preferred_provider = ma.fields.String(allow_none=True)
    preferred_model = ma.fields.String(allow_none=True)


class DiagramSchema(CompiledDump, BaseSchema):
    id = ma.fields.String()
    title = ma.fields.String()
    content = ma.fields.String()
    description = ma.fields.String(allow_none=True)
    diagram_type = ma.fields.String()
    config = ma.fields.Nested(DiagramConfigOutSchema)
    user_preferences = ma.fields.Nested(UserPreferencesOutSchema)
    project_id = ma.fields.String()
    folder_id = ma.fields.String(allow_none=True)
    viewport_zoom = ma.fields.Float()
    viewport_x = ma.fields.Float()
    viewport_y = ma.fields.Float()
    version = ma.fields.Integer(metadata={"description": "bumped by every save that changes more than the view; "
                                                         "the ETag of GET and PUT /diagrams/{id}"})
    created_at = Timestamp()
    updated_at = Timestamp()
    open_comment_count = ma.fields.Integer(metadata={"description": "open comment threads on the diagram "
                                                                    "(docs/comments.md)"})


class FolderSchema(CompiledDump, BaseSchema):
    id = ma.fields.String()
    name = ma.fields.String()
    color = ma.fields.String()
    project_id = ma.fields.String()
    created_at = Timestamp()
    updated_at = Timestamp()


class FolderWithDiagramsSchema(FolderSchema):
    diagrams = ma.fields.List(ma.fields.Nested(DiagramSchema))


@dataclass(frozen=True)
class FolderContents:
    """A folder row and the diagrams it holds (FolderWithDiagramsSchema); the row's columns read through."""

    folder: Folder
    diagrams: list

    def __getattr__(self, name):  # called only for names the dataclass lacks
        return getattr(self.folder, name)
