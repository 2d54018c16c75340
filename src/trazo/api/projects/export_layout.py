"""What an export holds: the project (or one folder), where each file goes, and the diagrams' texts
read a batch at a time."""
from dataclasses import dataclass, field
from datetime import datetime

from flask_babel import gettext as _
from sqlalchemy import func, null, select

from ...core.diagram_types import PLAIN_TEXT_EXTENSION, SOURCE_EXTENSIONS
from ...core.ownership import owned_project
from ...errors import NotFound
from ...extensions import db
from ...models.base import utcnow
from ...models.content import Diagram, Folder
from .naming import sanitize, unique

MANIFEST = "manifest.json"
README = "README.md"
DESCRIPTION_EXTENSION = ".md"
# Texts are read in batches of about this many bytes (one diagram when it is larger) or rows.
BATCH_BYTES = 4 * 1024 * 1024
BATCH_ROWS = 200


@dataclass
class ExportFolder:
    id: str
    name: str
    color: str
    path: str = ""


@dataclass
class ExportDiagram:
    """A diagram's metadata; its content and description are read a few diagrams at a time."""

    id: str
    title: str
    diagram_type: str
    folder_id: str | None
    created_at: datetime
    updated_at: datetime
    content_size: int
    description_size: int
    stem: str = ""  # the path without the extension
    path: str = ""
    description_path: str | None = None


@dataclass
class ExportSnapshot:
    """The project, its folders and the metadata of the diagrams to export (no texts)."""

    project: dict
    scope_folder: ExportFolder | None
    folders: list
    diagrams: list
    with_descriptions: bool
    exported_at: datetime = field(default_factory=utcnow)
    root: str = ""

    @property
    def title(self):
        return self.scope_folder.name if self.scope_folder else self.project["name"]

    def folder_by_id(self):
        return {folder.id: folder for folder in self.folders}

    def file_name(self, extension):
        fallback = "folder" if self.scope_folder else "project"
        return f"{sanitize(self.title, fallback)}-{self.exported_at:%Y%m%d}{extension}"


METADATA = (Diagram.id, Diagram.title, Diagram.diagram_type, Diagram.folder_id, Diagram.created_at,
            Diagram.updated_at, Diagram.content_size, Diagram.description_size)


def load_snapshot(user, project_id, folder_id, with_descriptions):
    """The caller's project (or one of its folders) with the diagrams to export."""
    project = owned_project(user, project_id)
    folders = select(Folder).where(Folder.project_id == project.id)
    diagrams = select(*METADATA).where(Diagram.project_id == project.id)
    if folder_id:
        folders = folders.where(Folder.id == str(folder_id))
        diagrams = diagrams.where(Diagram.folder_id == str(folder_id))
    folder_rows = db.session.scalars(folders.order_by(func.lower(Folder.name), Folder.id)).all()
    if folder_id and not folder_rows:
        raise NotFound(_("Folder not found"))
    snapshot = ExportSnapshot(
        project={"id": project.id, "name": project.name, "emoji": project.emoji, "description": project.description},
        scope_folder=None,
        folders=[ExportFolder(f.id, f.name, f.color) for f in folder_rows],
        diagrams=[ExportDiagram(*row) for row in db.session.execute(diagrams.order_by(Diagram.created_at, Diagram.id))],
        with_descriptions=with_descriptions)
    if folder_id:
        snapshot.scope_folder = snapshot.folders[0]
    _assign_paths(snapshot)
    return snapshot


def _batches(diagrams, size):
    batch, total = [], 0
    for diagram in diagrams:
        if batch and (total + size(diagram) > BATCH_BYTES or len(batch) >= BATCH_ROWS):
            yield batch
            batch, total = [], 0
        batch.append(diagram)
        total += size(diagram)
    if batch:
        yield batch


def diagram_texts(diagrams, with_content=True):
    """(diagram, content, description) in the order of `diagrams`, loaded a batch of about BATCH_BYTES
    at a time, so an export holds a few diagrams in memory, never the whole project. A diagram deleted
    meanwhile comes out empty. Without content, content is None."""
    columns = (Diagram.id, Diagram.content if with_content else null(), Diagram.description)

    def size(diagram):
        return diagram.description_size + (diagram.content_size if with_content else 0)

    for batch in _batches(diagrams, size):
        rows = {row[0]: row[1:] for row in db.session.execute(
            select(*columns).where(Diagram.id.in_([diagram.id for diagram in batch])))}
        for diagram in batch:
            content, description = rows.get(diagram.id, ("", ""))
            yield diagram, (content or "") if with_content else None, description or ""


def mark_descriptions(snapshot):
    """Give a description file to the diagrams with a non-blank description (read without content)."""
    if not snapshot.with_descriptions:
        return
    described = [diagram for diagram in snapshot.diagrams if diagram.description_size]
    for diagram, _content, description in diagram_texts(described, with_content=False):
        if description.strip():
            diagram.description_path = diagram.stem + DESCRIPTION_EXTENSION


def assume_descriptions(snapshot):
    """Every diagram with a stored description gets a file: the most an export can hold (for its size)."""
    if snapshot.with_descriptions:
        for diagram in snapshot.diagrams:
            if diagram.description_size:
                diagram.description_path = diagram.stem + DESCRIPTION_EXTENSION


def _assign_paths(snapshot):
    """Unique, safe paths: one directory per folder, one source file (and description) per diagram."""
    snapshot.root = sanitize(snapshot.title, "folder" if snapshot.scope_folder else "project")
    root_taken = {"readme", "manifest"}
    folder_names = set()
    for folder in snapshot.folders:
        folder.path = unique(sanitize(folder.name, "folder"), folder_names)
    taken = {folder.id: set() for folder in snapshot.folders}
    folders = snapshot.folder_by_id()
    for diagram in snapshot.diagrams:
        folder = folders.get(diagram.folder_id)
        base = unique(sanitize(diagram.title, "diagram"), taken[folder.id] if folder else root_taken)
        directory = f"{folder.path}/" if folder else ""
        diagram.stem = directory + base
        diagram.path = diagram.stem + SOURCE_EXTENSIONS.get(diagram.diagram_type, PLAIN_TEXT_EXTENSION)


def description_file(diagram, description):
    """The sibling Markdown file of a diagram: its title as a heading, then the description."""
    return f"# {diagram.title}\n\n{description}"
