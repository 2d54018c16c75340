"""Files API schemas, one per direction, and the reading of a PUT body (raw text, or a JSON envelope)."""
import marshmallow as ma
from flask import request
from flask_babel import gettext as _
from marshmallow import ValidationError

from ...core.content.limits import content_caps
from ...core.content.paths import BadPath, parse_path
from ...errors import AppError, ValidationFailed, validation_detail
from ..common import BaseSchema, Timestamp
from ..fields import DESCRIPTION_MAX, DiagramType, IfMatch
from .paths import EXTENSION_TYPES

PATH_DOC = "a path such as architecture/backend.mmd: the directory part is the folder, the name the title"


def file_target(file_path):
    """The parsed path parameter, or a 422 on path.file_path."""
    try:
        return parse_path(file_path)
    except BadPath as error:
        raise ValidationFailed("file_path", error.message, error.kind, location="path") from None


class FileSchema(BaseSchema):
    path = ma.fields.String(metadata={"description": PATH_DOC})
    type = ma.fields.String(metadata={"description": "the diagram type"})
    size = ma.fields.Integer(metadata={"description": "bytes of the content (UTF-8)"})
    sha256 = ma.fields.String(metadata={"description": "SHA-256 of the content (UTF-8), hex"})
    version = ma.fields.Integer(metadata={"description": "the diagram's version (the file's ETag)"})
    diagram_id = ma.fields.String()
    updated_at = Timestamp()


class UnaddressableSchema(BaseSchema):
    diagram_id = ma.fields.String()
    title = ma.fields.String()
    folder = ma.fields.String(allow_none=True)
    type = ma.fields.String()
    reason = ma.fields.String(metadata={"description": "invalid_name (its title or folder cannot be written as a "
                                                       "path) or same_path (other diagrams have its path)"})


class FileListingSchema(BaseSchema):
    files = ma.fields.List(ma.fields.Nested(FileSchema))
    unaddressable = ma.fields.List(ma.fields.Nested(UnaddressableSchema), metadata={
        "description": "diagrams no path addresses: never listed, written or deleted by the files API"})


class FileWrittenSchema(BaseSchema):
    path = ma.fields.String()
    type = ma.fields.String()
    size = ma.fields.Integer()
    sha256 = ma.fields.String()
    version = ma.fields.Integer()
    diagram_id = ma.fields.String()
    created = ma.fields.Boolean()


class FileBodySchema(BaseSchema):
    """The JSON envelope of a PUT."""

    content = ma.fields.String(required=True)
    type = DiagramType(metadata={"description": "needed for .txt; must be written with the path's extension"})
    description = ma.fields.String(allow_none=True, validate=ma.validate.Length(max=DESCRIPTION_MAX))


class WriteHeadersSchema(BaseSchema):
    if_match = IfMatch(data_key="If-Match", load_default=None,
                       metadata={"description": 'the version read (e.g. "7"), or *: 412 when it differs'})
    if_none_match = ma.fields.String(data_key="If-None-Match", load_default=None,
                                     metadata={"description": "*: create only (412 when the file exists)"})


PUT_BODY = {"required": True, "content": {
    "text/plain": {"schema": {"type": "string"}},
    "application/json": {"schema": FileBodySchema},
}}


def file_body(target):
    """{content, type?, description?} of a PUT: a JSON body is the envelope (on a .freehand.json path, an
    object without `content` is the sketch itself); any other body is the content, UTF-8. A raw body past
    the content cap is refused from its Content-Length, before it is read."""
    if request.is_json:
        data = request.get_json(silent=True)
        if target.extension == ".freehand.json" and isinstance(data, dict) and "content" not in data:
            return {"content": request.get_data(as_text=True)}
        try:
            return FileBodySchema().load(data if data is not None else {})
        except ValidationError as error:
            raise AppError(validation_detail({"json": error.messages}), status=422) from None
    limit = content_caps().limit(EXTENSION_TYPES.get(target.extension))
    if request.content_length is not None and request.content_length > limit:
        raise ValidationFailed("content", _("The content is too large: %(size)s bytes, at most %(limit)s bytes for "
                                            "this diagram type.", size=request.content_length, limit=limit),
                               "string_too_long")
    try:
        return {"content": request.get_data(cache=False).decode("utf-8")}
    except UnicodeDecodeError:
        raise ValidationFailed("content", _("The body must be UTF-8 text."), "value_error.encoding") from None


class SyncFileSchema(BaseSchema):
    path = ma.fields.String(required=True, metadata={"description": PATH_DOC})
    content = ma.fields.String(required=True)
    type = DiagramType(metadata={"description": "needed for a new .txt file"})


class SyncSchema(BaseSchema):
    files = ma.fields.List(ma.fields.Nested(SyncFileSchema), required=True)
    delete_missing = ma.fields.Boolean(load_default=False, metadata={
        "description": "delete the project's files the tree does not hold (unaddressable diagrams stay)"})
    dry_run = ma.fields.Boolean(load_default=False, metadata={"description": "answer without writing anything"})


class SyncQuerySchema(BaseSchema):
    dry_run = ma.fields.Boolean(load_default=False)


class SyncResultSchema(BaseSchema):
    dry_run = ma.fields.Boolean()
    created = ma.fields.List(ma.fields.String())
    updated = ma.fields.List(ma.fields.String())
    unchanged = ma.fields.List(ma.fields.String())
    deleted = ma.fields.List(ma.fields.String())
    unaddressable = ma.fields.List(ma.fields.Nested(UnaddressableSchema))


