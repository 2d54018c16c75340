"""The MCP tools this server offers (docs/mcp.md): names (the contract), descriptions for the model, JSON Schemas
and hints, in a fixed order (tools/list answers them in it, so clients may cache the list)."""
from dataclasses import dataclass
from typing import Any

from . import drawing, reading, schemas, writing


@dataclass(frozen=True)
class Tool:
    name: str
    title: str
    description: str
    run: Any  # (caller, arguments) -> dict (the structured result) or outcomes.Outcome
    input_schema: dict
    output_schema: dict
    writes: bool = False
    idempotent: bool = True

    def listed(self):
        """The tool as tools/list shows it."""
        return {"name": self.name, "title": self.title, "description": self.description,
                "inputSchema": self.input_schema, "outputSchema": self.output_schema,
                "annotations": {"title": self.title, "readOnlyHint": not self.writes, "destructiveHint": False,
                                "idempotentHint": self.idempotent, "openWorldHint": False}}


TOOLS = (
    Tool("search_diagrams", "Search diagrams",
         "Find diagrams by words in their title, description or source, across every workspace the token's user "
         "belongs to (or one workspace or project). Answers matching diagrams and, when there are more, a "
         "next_cursor to pass back.", reading.search_diagrams, schemas.SEARCH_IN, schemas.SEARCH_OUT),
    Tool("list_workspaces", "List workspaces",
         "The workspaces the token's user belongs to, with the user's role in each (viewer, commenter, editor, "
         "admin, owner).", reading.list_workspaces, schemas.NO_ARGUMENTS, schemas.WORKSPACES_OUT),
    Tool("list_projects", "List projects",
         "The projects of every workspace of the user (or of one), with diagram counts per type and the user's "
         "role.", reading.list_projects, schemas.PROJECTS_IN, schemas.PROJECTS_OUT),
    Tool("list_files", "List a project's files",
         "A project's diagrams as files: path, type, size, SHA-256 and version of each, sorted by path. Diagrams "
         "no path can address are listed apart.", reading.list_files, schemas.FILES_IN, schemas.FILES_OUT),
    Tool("read_diagram", "Read a diagram",
         "A diagram's source, type, title, description, version and path, by diagram_id or by project_id and "
         "path.", reading.read_diagram, schemas.READ_IN, schemas.READ_OUT),
    Tool("write_diagram", "Write a diagram",
         "Create or update the diagram at a path of a project (folders are created as needed), then draw it: the "
         "answer says whether it draws and, if not, the error and its line. Pass expected_version (the version "
         "read) to refuse the write when someone changed the diagram meanwhile. Needs a write token and the "
         "editor role; recorded in the diagram's history.", writing.write_diagram, schemas.WRITE_IN,
         schemas.WRITE_OUT, writes=True, idempotent=False),
    Tool("validate_diagram", "Check that a source draws",
         "Draw a source with this server's engines without storing anything: valid, or the error and its line.",
         drawing.validate_diagram, schemas.VALIDATE_IN, schemas.VALIDATE_OUT),
    Tool("render_diagram", "Render a diagram",
         "A stored diagram (diagram_id) or a source (diagram_type and source) as an image: SVG (as text) or PNG.",
         drawing.render_diagram, schemas.RENDER_IN, schemas.RENDER_OUT),
    Tool("list_revisions", "List a diagram's revisions",
         "A diagram's history, newest first: number, source, label, author and line counts of each revision.",
         reading.list_revisions, schemas.REVISIONS_IN, schemas.REVISIONS_OUT),
    Tool("diff_revisions", "Compare revisions",
         "A unified diff between revision `from` and revision `to`, or the diagram as it is now when `to` is "
         "left out.", reading.diff_revisions, schemas.DIFF_IN, schemas.DIFF_OUT),
    Tool("restore_revision", "Restore a revision",
         "Give the diagram a revision's title, type and source again, recorded as a new revision (nothing is "
         "lost). Needs a write token and the editor role.", writing.restore_revision, schemas.RESTORE_IN,
         schemas.RESTORE_OUT, writes=True),
    Tool("list_comments", "List a diagram's comments",
         "A diagram's comment threads, newest first, each with its replies.", reading.list_comments,
         schemas.COMMENTS_IN, schemas.COMMENTS_OUT),
    Tool("add_comment", "Comment on a diagram",
         "Open a comment thread on a diagram, on some of its lines or on one of its elements. Needs a write token "
         "and the commenter role.", writing.add_comment, schemas.COMMENT_IN, schemas.COMMENT_OUT, writes=True,
         idempotent=False),
    Tool("diagram_types", "Diagram languages",
         "The diagram languages this server draws, each engine's version, the file extension and a short syntax "
         "reminder.", drawing.diagram_types, schemas.NO_ARGUMENTS, schemas.TYPES_OUT),
)
BY_NAME = {tool.name: tool for tool in TOOLS}
