"""The MCP tools that read (docs/mcp.md): search, workspaces, projects, files, a diagram, its history and its
comments. Each calls the rule the REST route calls (core/), with the caller's roles (core/content/access.py: a
diagram of a workspace the caller is not a member of is "not found")."""
from ...core.comments import threads
from ...core.comments.answers import shown
from ...core.content import access
from ...core.content.projects import counted_projects
from ...core.files import index
from ...core.files.paths import BadPath, parse_path
from ...core.history import browse
from ...core.search.find import find
from ...core.workspaces.listing import listed
from ...models.workspaces import VIEWER
from ..common import page_envelope
from .arguments import InvalidArguments
from .outcomes import iso

DEFAULT_PAGE_SIZE = 20


def search_diagrams(caller, arguments):
    found = find(caller.user, arguments["query"], workspace_id=arguments.get("workspace_id"),
                 project_id=arguments.get("project_id"), diagram_type=arguments.get("diagram_type"),
                 limit=arguments.get("limit", 20), cursor=arguments.get("cursor"))
    return {"items": [{**hit, "updated_at": iso(hit["updated_at"])} for hit in found["items"]],
            "next_cursor": found["next_cursor"]}


def list_workspaces(caller, _arguments):
    return {"workspaces": [{"id": workspace.id, "name": workspace.name, "kind": workspace.kind,
                            "role": workspace.role, "member_count": workspace.member_count,
                            "created_at": iso(workspace.created_at)} for workspace in listed(caller.user)]}


def list_projects(caller, arguments):
    keys = ("id", "name", "description", "emoji", "workspace_id", "role", "diagram_count", "diagram_type_counts")
    return {"projects": [
        {**{key: project[key] for key in keys}, "created_at": iso(project["created_at"]),
         "updated_at": iso(project["updated_at"])}
        for project in counted_projects(caller.user.id, workspace_id=arguments.get("workspace_id"))]}


def list_files(caller, arguments):
    listing = index.list_files(caller.user, arguments["project_id"])
    return {"files": [{**file, "updated_at": iso(file["updated_at"])} for file in listing["files"]],
            "unaddressable": listing["unaddressable"]}


def target(path, name="path"):
    """The parsed `path` argument; a path the files API refuses is an invalid argument, with its reason."""
    try:
        return parse_path(path)
    except BadPath as error:
        raise InvalidArguments([f"arguments.{name}: {error.message}"]) from None


def read_diagram(caller, arguments):
    if "diagram_id" in arguments:
        diagram = access.diagram(caller.user, arguments["diagram_id"], VIEWER)
    else:
        entry = index.find_file(caller.user, arguments["project_id"], target(arguments["path"]))
        diagram = access.diagram(caller.user, entry.diagram_id, VIEWER)
    return {"id": diagram.id, "project_id": diagram.project_id, "folder_id": diagram.folder_id,
            "title": diagram.title, "diagram_type": diagram.diagram_type, "description": diagram.description,
            "content": diagram.content or "", "version": diagram.version, "path": index.diagram_path(diagram),
            "created_at": iso(diagram.created_at), "updated_at": iso(diagram.updated_at)}


def _page(arguments):
    return arguments.get("page", 1), arguments.get("page_size", DEFAULT_PAGE_SIZE)


def list_revisions(caller, arguments):
    page, page_size = _page(arguments)
    rows, total = browse.list_revisions(caller.user, arguments["diagram_id"], page, page_size)
    items = [{"number": row.number, "title": row.title, "diagram_type": row.diagram_type, "source": row.source,
              "label": row.label,
              "author": {"id": row.author_id, "full_name": row.author_name} if row.author_id else None,
              "size": row.content_size, "lines_added": row.lines_added, "lines_removed": row.lines_removed,
              "created_at": iso(row.created_at), "updated_at": iso(row.updated_at)} for row in rows]
    return page_envelope(items, total, page, page_size)


def diff_revisions(caller, arguments):
    caller.spend("REVISION_DIFF")
    return browse.diff_revision(caller.user, arguments["diagram_id"], arguments["from"],
                                arguments.get("to", browse.CURRENT))


def comment(answer):
    """A comment's answer (core/comments/answers.shown) with its times as ISO 8601 text."""
    return {**answer, **{name: iso(answer[name]) for name in ("created_at", "updated_at", "resolved_at")}}


def list_comments(caller, arguments):
    page, page_size = _page(arguments)
    listed_threads, total, names = threads.list_threads(caller.user, arguments["diagram_id"],
                                                        arguments.get("status", threads.OPEN), page, page_size)
    items = [{**comment(shown(root, names)), "replies": [comment(shown(reply, names)) for reply in replies]}
             for root, replies in listed_threads]
    return page_envelope(items, total, page, page_size)
