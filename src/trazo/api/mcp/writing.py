"""The MCP tools that write (docs/mcp.md, "Writes"): a diagram by path, a revision taken back, a comment. Each needs
a token with the write scope and the role the REST route needs (editor; commenter for a comment), records its
revision with source `mcp` (docs/history.md), commits here, and leaves an `mcp_write` entry in the security audit
log naming the tool and the token."""
from flask_babel import gettext as _

from ...core.comments import threads
from ...core.comments.answers import published, shown
from ...core.files import writes
from ...core.history import browse
from ...core.history.changes import retrying
from ...extensions import db
from ...models.comments import ANCHOR_ELEMENT, ANCHOR_LINES
from ...models.history import SOURCE_MCP
from .arguments import InvalidArguments
from .drawing import drawing
from .reading import comment, target


def write_diagram(caller, arguments):
    caller.ensure_can_write()
    path = target(arguments["path"])
    body = {"content": arguments["content"], "type": arguments.get("diagram_type"),
            "description": arguments.get("description")}

    def attempt():
        answer = writes.write(caller.user, arguments["project_id"], path, body,
                              expected_version=arguments.get("expected_version"), source=SOURCE_MCP)
        db.session.commit()
        return answer

    written = retrying(attempt)
    caller.audited("write_diagram", project_id=arguments["project_id"], diagram_id=written["diagram_id"],
                   path=written["path"], version=written["version"], created=written["created"])
    return {**written, **drawing(written["type"], arguments["content"])}


def restore_revision(caller, arguments):
    caller.ensure_can_write()
    caller.spend("REVISION_RESTORE")
    number = arguments["number"]

    def attempt():
        saved = browse.restore(caller.user, arguments["diagram_id"], number, source=SOURCE_MCP)
        diagram = saved.diagram
        answer = {"diagram_id": diagram.id, "version": diagram.version, "title": diagram.title,
                  "diagram_type": diagram.diagram_type, "number": number, "restored": saved.history is not None}
        if saved.history is not None:  # else it already is the current state
            db.session.commit()
        return answer

    restored = retrying(attempt)
    if restored["restored"]:
        caller.audited("restore_revision", diagram_id=restored["diagram_id"], number=number,
                       version=restored["version"])
    return restored


def _anchor(anchor):
    """The anchor as the comment rules take it; the combinations its schema cannot say are invalid arguments."""
    if anchor is None:
        return None
    kind = anchor.get("type")
    if kind == ANCHOR_LINES:
        if "start_line" not in anchor or "end_line" not in anchor:
            raise InvalidArguments([_("A lines anchor needs start_line and end_line.")])
        if anchor["start_line"] > anchor["end_line"]:
            raise InvalidArguments([_("The anchor's end_line must not be before its start_line.")])
    if kind == ANCHOR_ELEMENT and "element_id" not in anchor:
        raise InvalidArguments([_("An element anchor needs element_id.")])
    return anchor


def add_comment(caller, arguments):
    caller.ensure_can_write()
    if not arguments["body"].strip():
        raise InvalidArguments([_("The comment must not be blank.")])
    anchor = _anchor(arguments.get("anchor"))
    caller.spend("COMMENTS")
    made = threads.create(caller.user, arguments["diagram_id"], arguments["body"], anchor)
    answer = shown(made, threads.names_of(made))
    published(caller.user, "created", made, answer)
    db.session.commit()
    caller.audited("add_comment", diagram_id=answer["diagram_id"], comment_id=answer["id"])
    return comment(answer)
