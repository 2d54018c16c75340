"""Project schemas, one per direction, and those of the export and the import."""
import marshmallow as ma
from flask_smorest.fields import Upload

from ..common import BaseSchema, Timestamp
from ..compiled_dump import CompiledDump
from ..content_schemas import DiagramSchema, FolderWithDiagramsSchema
from ..fields import Name

PROJECT_DESCRIPTION_MAX = 500
EMOJI_MAX = 10


class ProjectCreateSchema(BaseSchema):
    name = Name(required=True)
    workspace_id = ma.fields.String(load_default=None, metadata={
        "description": "The workspace to create it in (editor or above); by default the caller's personal one"})
    description = ma.fields.String(allow_none=True, load_default=None,
                                   validate=ma.validate.Length(max=PROJECT_DESCRIPTION_MAX))
    emoji = ma.fields.String(allow_none=True, load_default=None, validate=ma.validate.Length(max=EMOJI_MAX))


class ProjectUpdateSchema(BaseSchema):
    name = Name()
    description = ma.fields.String(allow_none=True, validate=ma.validate.Length(max=PROJECT_DESCRIPTION_MAX))
    emoji = ma.fields.String(validate=ma.validate.Length(max=EMOJI_MAX))


class ProjectSchema(CompiledDump, BaseSchema):
    id = ma.fields.String()
    name = ma.fields.String()
    description = ma.fields.String(allow_none=True)
    emoji = ma.fields.String()
    user_id = ma.fields.String(allow_none=True, metadata={"description": "Who created it (null once gone)"})
    workspace_id = ma.fields.String()
    role = ma.fields.String(metadata={"description": "The caller's role in the project's workspace"})
    diagram_count = ma.fields.Integer()
    diagram_type_counts = ma.fields.Dict(keys=ma.fields.String(), values=ma.fields.Integer())
    created_at = Timestamp()
    updated_at = Timestamp()


class ProjectWithDiagramsSchema(ProjectSchema):
    diagrams = ma.fields.List(ma.fields.Nested(DiagramSchema))
    folders = ma.fields.List(ma.fields.Nested(FolderWithDiagramsSchema))


class ProjectTransferSchema(BaseSchema):
    workspace_id = ma.fields.String(required=True, validate=ma.validate.Length(min=1, max=36), metadata={
        "description": "The workspace to move the project to (editor or above there)"})


class ProjectListQuerySchema(BaseSchema):
    workspace_id = ma.fields.String(load_default=None, metadata={"description": "Only this workspace's projects"})


class ExportQuerySchema(BaseSchema):
    format = ma.fields.String(load_default="zip", validate=ma.validate.OneOf(("zip", "markdown")))
    variant = ma.fields.String(load_default="ai", validate=ma.validate.OneOf(("ai", "standard")))
    descriptions = ma.fields.Boolean(load_default=True)
    folder_id = ma.fields.String(load_default=None)
    include_history = ma.fields.Boolean(load_default=False, metadata={
        "description": "ZIP only: add each diagram's revisions (docs/export-format.md, History)"})
    include_images = ma.fields.Boolean(load_default=False, metadata={
        "description": "ZIP only: add each diagram's SVG, drawn within a time and drawing budget "
                       "(docs/export-format.md, Images); limited by RATE_LIMIT_EXPORT_IMAGES"})


class ExportSummarySchema(BaseSchema):
    diagram_count = ma.fields.Integer()
    folder_count = ma.fields.Integer()
    size_bytes = ma.fields.Integer()
    size_is_upper_bound = ma.fields.Boolean()
    estimated_tokens = ma.fields.Integer(allow_none=True)
    filename = ma.fields.String()
    history_omitted = ma.fields.Integer(metadata={
        "description": "With include_history: the oldest revisions the export leaves out so that an import "
                       "accepts the archive (docs/export-format.md, History); 0 when it holds them all"})


class ImportQuerySchema(BaseSchema):
    dry_run = ma.fields.Boolean(load_default=False)


class ImportUploadSchema(BaseSchema):
    files = ma.fields.List(Upload(), load_default=list, metadata={"description": "One part per file"})
    folder_id = ma.fields.String(load_default=None, metadata={"description": "Import everything into this folder"})


class ImportedDiagramSchema(BaseSchema):
    title = ma.fields.String()
    diagram_type = ma.fields.String()
    folder = ma.fields.String(allow_none=True, attribute="folder_name")
    source = ma.fields.String()
    has_description = ma.fields.Boolean()
    revision_count = ma.fields.Integer(metadata={
        "description": "Revisions it gets: those of the archive's history (within the plan's limit), and one "
                       "of source import when the newest of them does not hold the imported state"})
    warnings = ma.fields.List(ma.fields.String())


class SkippedFileSchema(BaseSchema):
    source = ma.fields.String()
    reason = ma.fields.String()


class ImportResultSchema(BaseSchema):
    """The preview of a dry run, or the result of an import (with the ids it created)."""

    diagram_count = ma.fields.Integer()
    folder_count = ma.fields.Integer()
    folders = ma.fields.List(ma.fields.String())
    diagrams = ma.fields.List(ma.fields.Nested(ImportedDiagramSchema))
    skipped = ma.fields.List(ma.fields.Nested(SkippedFileSchema))
    current_usage = ma.fields.Integer()
    limit = ma.fields.Integer(allow_none=True)
    allowed = ma.fields.Boolean()
    target_folder = ma.fields.String(allow_none=True)
    created_diagram_ids = ma.fields.List(ma.fields.String())
    created_folder_ids = ma.fields.List(ma.fields.String())
