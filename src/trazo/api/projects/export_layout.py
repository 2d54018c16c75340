"""What an export holds: a snapshot of the project (or one folder) and where each file goes."""
from dataclasses import dataclass, field
from datetime import datetime

from flask_babel import gettext as _
from sqlalchemy import func, select

from ...errors import NotFound
from ...extensions import db
from ...models.base import utcnow
from ...models.content import Diagram, Folder
from ..diagrams.types import PLAIN_TEXT_EXTENSION, SOURCE_EXTENSIONS
from .access import owned_project
from .naming import sanitize, unique

MANIFEST = "manifest.json"
README = "README.md"
DESCRIPTION_EXTENSION = ".md"


@dataclass
class ExportFolder:
    id: str
    name: str
    color: str
    path: str = ""


@dataclass
class ExportDiagram:
    id: str
    title: str
    diagram_type: str
    content: str
    description: str
    folder_id: str | None
    created_at: datetime
    updated_at: datetime
    path: str = ""
    description_path: str | None = None


@dataclass
class ExportSnapshot:
    """Everything the export writes, loaded once, so the file can be streamed without the database."""

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


def load_snapshot(user, project_id, folder_id, with_descriptions):
    """The caller's project (or one of its folders) with the diagrams to export."""
    project = owned_project(user, project_id)
    folders = select(Folder).where(Folder.project_id == project.id)
    diagrams = select(Diagram).where(Diagram.project_id == project.id)
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
        diagrams=[ExportDiagram(d.id, d.title, d.diagram_type, d.content or "", d.description or "", d.folder_id,
                                d.created_at, d.updated_at)
                  for d in db.session.scalars(diagrams.order_by(Diagram.created_at, Diagram.id))],
        with_descriptions=with_descriptions)
    if folder_id:
        snapshot.scope_folder = snapshot.folders[0]
    _assign_paths(snapshot)
    return snapshot


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
        diagram.path = directory + base + SOURCE_EXTENSIONS.get(diagram.diagram_type, PLAIN_TEXT_EXTENSION)
        if snapshot.with_descriptions and diagram.description.strip():
            diagram.description_path = directory + base + DESCRIPTION_EXTENSION


def description_file(diagram):
    """The sibling Markdown file of a diagram: its title as a heading, then the description."""
    return f"# {diagram.title}\n\n{diagram.description}"
