"""A project's diagrams read as files (docs/files-api.md, "Cost"): the index of paths, versions and hashes, and
the rows a write by path adds.

The listing reads no diagram's content: each file's hash is the one its newest revision keeps (the newest
revision always holds the diagram's current state, docs/history.md); only a diagram without history has
its hash computed, its content read about 4 MiB at a time.
"""
from dataclasses import dataclass, field
from datetime import datetime

from flask_babel import gettext as _
from sqlalchemy import and_, bindparam, func, select

from ...errors import Conflict, NotFound
from ...extensions import db
from ...models.base import new_id
from ...models.content import (
    DEFAULT_FOLDER_COLOR,
    Diagram,
    Folder,
    default_diagram_config,
    default_user_preferences,
)
from ...models.history import SOURCE_API, DiagramRevision
from ...models.workspaces import VIEWER
from ..content import access
from ..history.revisions import content_hash, start_history
from .paths import EXTENSIONS, path_key, path_of

HASH_BATCH_BYTES = 4 * 1024 * 1024  # content of diagrams without history a listing reads at once
_NEWEST = (select(func.max(DiagramRevision.number)).where(DiagramRevision.diagram_id == Diagram.id)
           .correlate(Diagram).scalar_subquery())
INDEX = (select(Diagram.id, Diagram.title, Diagram.diagram_type, Diagram.version, Diagram.content_size,
                Diagram.description_size, Diagram.history_size, Diagram.updated_at, Folder.name.label("folder"),
                DiagramRevision.content_hash, DiagramRevision.content_size.label("revision_size"))
         .outerjoin(Folder, Folder.id == Diagram.folder_id)
         .outerjoin(DiagramRevision, and_(DiagramRevision.diagram_id == Diagram.id, DiagramRevision.number == _NEWEST))
         .where(Diagram.project_id == bindparam("project_id")))


@dataclass
class Entry:
    """One diagram of the index: what the listing shows, without its content."""

    diagram_id: str
    title: str
    diagram_type: str
    version: int
    size: int
    stored: int  # what it weighs toward the storage quota
    updated_at: datetime
    folder: str | None
    sha256: str | None
    path: str | None = None
    recorded: bool = False  # its newest revision holds its current content (else it has no history)


@dataclass
class Index:
    """A project's diagrams by path key; the ones that cannot be addressed are set apart with a reason."""

    files: dict = field(default_factory=dict)  # key -> Entry
    unaddressable: list = field(default_factory=list)  # {diagram_id, title, folder, reason}
    ambiguous: set = field(default_factory=set)  # keys several diagrams answer to

    def find(self, target):
        """The entry at `target`, None when there is none; 409 when several diagrams answer to it."""
        if target.key in self.ambiguous:
            raise ambiguous_path([target.path])
        return self.files.get(target.key)

    def found(self, target):
        """The entry at `target`; 404 "File not found" when there is none, 409 when several answer to it."""
        entry = self.find(target)
        if entry is None:
            raise NotFound(_("File not found"))
        return entry


def ambiguous_path(paths):
    return Conflict(_("Several diagrams answer to this path (their titles differ only in case, or their folders "
                      "do): rename one of them first."), error_code="ambiguous_path", extra={"paths": paths})


def read_index(project_id, with_hashes=True):
    """The project's index in one statement (and, `with_hashes`, one more for diagrams without history)."""
    entries = []
    for row in db.session.execute(INDEX, {"project_id": project_id}):
        recorded = row.content_hash is not None and row.revision_size == row.content_size
        entries.append(Entry(row.id, row.title, row.diagram_type, row.version, row.content_size,
                             row.content_size + row.description_size + row.history_size, row.updated_at,
                             row.folder, row.content_hash if recorded else None, recorded=recorded))
    if with_hashes:
        _hash_the_rest([entry for entry in entries if entry.sha256 is None])
    index, keyed = Index(), {}
    for entry in entries:
        entry.path = path_of(entry.folder, entry.title, entry.diagram_type)
        if entry.path is None:
            index.unaddressable.append(_unaddressable(entry, "invalid_name"))
            continue
        keyed.setdefault(path_key(entry.folder, entry.title, _extension(entry.path)), []).append(entry)
    for key, same in keyed.items():
        if len(same) == 1:
            index.files[key] = same[0]
        else:
            index.ambiguous.add(key)
            index.unaddressable.extend(_unaddressable(entry, "same_path") for entry in same)
    return index


def _extension(path):
    return next(ext for ext in EXTENSIONS if path.endswith(ext))


def _unaddressable(entry, reason):
    return {"diagram_id": entry.diagram_id, "title": entry.title, "folder": entry.folder,
            "type": entry.diagram_type, "reason": reason}


def _hash_the_rest(entries):
    """Hash the contents of diagrams whose newest revision does not give it (diagrams from before history),
    about HASH_BATCH_BYTES of content per statement: one statement unless they are large."""
    batch, size = {}, 0
    for entry in entries:
        batch[entry.diagram_id], size = entry, size + entry.size
        if size >= HASH_BATCH_BYTES or entry is entries[-1]:
            for diagram_id, content in db.session.execute(select(Diagram.id, Diagram.content)
                                                          .where(Diagram.id.in_(list(batch)))):
                batch[diagram_id].sha256 = content_hash(content or "")
            batch, size = {}, 0


def _file(entry):
    return {"path": entry.path, "type": entry.diagram_type, "size": entry.size, "sha256": entry.sha256,
            "version": entry.version, "diagram_id": entry.diagram_id, "updated_at": entry.updated_at}


def list_files(user, project_id):
    """Every addressable diagram of the project as a file, sorted by path, and the others apart."""
    project = access.project(user, project_id, VIEWER)
    index = read_index(project.id)
    files = sorted(index.files.values(), key=lambda entry: (entry.path.lower(), entry.path))
    return {"files": [_file(entry) for entry in files], "unaddressable": index.unaddressable}


def find_file(user, project_id, target, need=VIEWER):
    """The index entry at `target` in the caller's project (404 "File not found", 409 when ambiguous)."""
    project = access.project(user, project_id, need)
    return read_index(project.id, with_hashes=False).found(target)


def folder_key_map(project_id):
    """{folder key: id} of the project's folders; of several whose names differ only in case, the oldest."""
    found = {}
    for row in db.session.execute(select(Folder.id, Folder.name).where(Folder.project_id == project_id)
                                  .order_by(Folder.created_at.desc(), Folder.id.desc())):
        found[path_key(row.name, "", "")[0]] = row.id
    return found


def new_folder(project_id, name, now):
    return Folder(id=new_id(), project_id=project_id, name=name, color=DEFAULT_FOLDER_COLOR, created_at=now,
                  updated_at=now)


def new_diagram(user, project_id, folder_id, title, diagram_type, content, description, now, source=SOURCE_API):
    """A diagram written by path and its first revision (`source`: `api`, or `mcp` for the MCP tools), neither
    added to the session."""
    diagram = Diagram(id=new_id(), project_id=project_id, folder_id=folder_id, title=title, content=content,
                      description=description, diagram_type=diagram_type, config=default_diagram_config(),
                      user_preferences=default_user_preferences(), created_at=now, updated_at=now)
    return diagram, start_history(diagram, user.id, source, now)


def diagram_path(diagram):
    """The path of a diagram already reached (its folder's name read by primary key), or None when no path
    can address it (docs/files-api.md, "Diagrams no path addresses")."""
    folder = db.session.get(Folder, diagram.folder_id) if diagram.folder_id else None
    return path_of(folder.name if folder is not None else None, diagram.title, diagram.diagram_type)
