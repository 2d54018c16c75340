"""Search schemas, one per direction (docs/search.md). The rules of each parameter are core/search's (its
refusals name the parameter), so that every caller of `find` gets the same answers."""
import marshmallow as ma

from ...core.search.query import LIMIT_DEFAULT, LIMIT_MAX, LIMIT_MIN, QUERY_MAX
from ..common import BaseSchema, Timestamp


class SearchQuerySchema(BaseSchema):
    q = ma.fields.String(required=True, metadata={
        "description": f"the search, at most {QUERY_MAX} characters: words (all must match), \"exact phrases\", "
                       "prefixes (pay*); identifiers match their camelCase, snake_case and dotted parts; accents "
                       "and case do not count (docs/search.md)", "maxLength": QUERY_MAX})
    workspace_id = ma.fields.String(load_default=None, metadata={
        "description": "only this workspace (404 when the caller is not a member)"})
    project_id = ma.fields.String(load_default=None, metadata={
        "description": "only this project (404 when it is not in a workspace of the caller)"})
    diagram_type = ma.fields.String(load_default=None, metadata={"description": "only diagrams of this type"})
    limit = ma.fields.Integer(load_default=LIMIT_DEFAULT, metadata={
        "description": "hits per page", "minimum": LIMIT_MIN, "maximum": LIMIT_MAX})
    cursor = ma.fields.String(load_default=None, metadata={
        "description": "the next_cursor of the previous page of the same search"})


class MatchSchema(BaseSchema):
    start = ma.fields.Integer()
    end = ma.fields.Integer()


class HitSchema(BaseSchema):
    diagram_id = ma.fields.String()
    project_id = ma.fields.String()
    workspace_id = ma.fields.String()
    title = ma.fields.String()
    diagram_type = ma.fields.String()
    path = ma.fields.String(allow_none=True, metadata={
        "description": "the diagram's path in the files API (docs/files-api.md); null when its title or folder "
                       "cannot be written as one"})
    snippet = ma.fields.String(metadata={
        "description": "plain text around the first match (at most about 200 characters; … marks a cut)"})
    matches = ma.fields.List(ma.fields.Nested(MatchSchema), metadata={
        "description": "[start, end) offsets in characters of each match inside the snippet"})
    score = ma.fields.Float(metadata={
        "description": "relevance, higher first: 1 and more for a title hit; compare within one search only"})
    updated_at = Timestamp()


class SearchPageSchema(BaseSchema):
    items = ma.fields.List(ma.fields.Nested(HitSchema))
    next_cursor = ma.fields.String(allow_none=True, metadata={"description": "null on the last page"})
