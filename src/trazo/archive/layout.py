"""What an export holds: the project (or one folder), where each file goes, and the names both the writer
and the reader of an archive use (docs/export-format.md).

The snapshot carries the diagrams' metadata only; their texts come from `read_texts(diagrams,
with_content=True)`, given by the caller, which yields (diagram, content, description) in the order of
`diagrams` (content None without content), so an export never holds the whole project in memory. With
history, `read_history(diagrams, with_content=True)` likewise yields (diagram, ExportRevision, content)
for the diagrams that have revisions, by diagram then number (archive/history.py), limited to what an
import accepts: `newest_revisions(limit)` lists their metadata newest first for that choice
(archive/history_bound.py).
"""
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from ..core.content.diagram_types import FREEHAND, PLAIN_TEXT_EXTENSION, SOURCE_EXTENSIONS
from ..models.base import utcnow
from .history import HISTORY_DIR, HISTORY_INDEX
from .naming import sanitize, unique

# The name the product we replace gave its archives, kept so archives move both ways: docs/export-format.md.
FORMAT = "diagramahub-export"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
README = "README.md"
DESCRIPTION_EXTENSION = ".md"
IMAGE_EXTENSION = ".svg"  # appended to the source's path: "Flow.mmd.svg" never meets another entry
TYPE_LABELS = {"mermaid": "Mermaid", "flowchart": "Mermaid", "plantuml": "PlantUML", "c4plantuml": "C4-PlantUML",
               "d2": "D2", "dbml": "DBML", "graphviz": "Graphviz"}


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
    revision_count: int = 0  # read only for an export with history
    history_dir: str | None = None  # where its revisions go, when it has some and history was asked for
    history_path: str | None = None  # its revisions.json
    kept_history: object | None = None  # history_bound.KeptHistory: the revisions the export holds
    history_omitted: int = 0  # its oldest revisions left out to stay within what an import accepts
    image_path: str | None = None  # its SVG, when images were asked for (None again when it was not drawn)
    image_skipped: dict | None = None  # why it has no image: {"reason", "detail"?}
    comments: list = field(default_factory=list)  # its comments' archive entries (archive/comments.py), with history


@dataclass
class ExportSnapshot:
    """The project (`{id, name, emoji, description}`), its folders (or the one exported) and the metadata
    of the diagrams to export, each given its path on creation."""

    project: dict
    scope_folder: ExportFolder | None
    folders: list
    diagrams: list
    with_descriptions: bool
    read_texts: Callable
    exported_at: datetime = field(default_factory=utcnow)
    root: str = ""
    with_history: bool = False
    read_history: Callable | None = None
    newest_revisions: Callable | None = None
    history_limits: object | None = None  # history_bound.HistoryLimits
    history_note: dict | None = None  # {"revisions", "detail"} when revisions were left out
    with_images: bool = False
    read_images: Callable | None = None

    def __post_init__(self):
        _assign_paths(self)

    @property
    def title(self):
        return self.scope_folder.name if self.scope_folder else self.project["name"]

    def folder_by_id(self):
        return {folder.id: folder for folder in self.folders}

    def file_name(self, extension):
        fallback = "folder" if self.scope_folder else "project"
        return f"{sanitize(self.title, fallback)}-{self.exported_at:%Y%m%d}{extension}"


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
    if snapshot.with_history:
        _assign_history_paths(snapshot)
    if snapshot.with_images:
        _assign_image_paths(snapshot)


def _assign_history_paths(snapshot):
    """`.history/<diagram path>/` for each diagram with revisions. A root diagram whose file name is also a
    folder's directory name (a folder called "Overview.mmd") takes another one, so no history directory
    holds another's."""
    taken = {folder.path.lower() for folder in snapshot.folders}
    for diagram in snapshot.diagrams:
        if not diagram.revision_count:
            continue
        name = diagram.path
        if "/" not in name and name.lower() in taken:
            name = unique(name, taken, len(name) + 8)
        diagram.history_dir = f"{HISTORY_DIR}/{name}"
        diagram.history_path = f"{diagram.history_dir}/{HISTORY_INDEX}"


def _assign_image_paths(snapshot):
    """`<source path>.svg` beside each diagram's source; a root diagram whose image would have the name of
    a folder's directory (a folder called "Overview.mmd.svg") gets "Overview.mmd (2).svg"."""
    taken = {name[:-len(IMAGE_EXTENSION)] for name in (folder.path.lower() for folder in snapshot.folders)
             if name.endswith(IMAGE_EXTENSION)}
    for diagram in snapshot.diagrams:
        stem = diagram.path if "/" in diagram.path else unique(diagram.path, taken, len(diagram.path) + 8)
        diagram.image_path = stem + IMAGE_EXTENSION


def image_diagrams(snapshot):
    """The diagrams whose images the export holds or tries to."""
    return [diagram for diagram in snapshot.diagrams if diagram.image_path]


def history_diagrams(snapshot):
    """The diagrams whose revisions the export holds."""
    return [diagram for diagram in snapshot.diagrams if diagram.history_path]


def mark_descriptions(snapshot):
    """Give a description file to the diagrams with a non-blank description (read without content)."""
    if not snapshot.with_descriptions:
        return
    described = [diagram for diagram in snapshot.diagrams if diagram.description_size]
    for diagram, _content, description in snapshot.read_texts(described, with_content=False):
        if description.strip():
            diagram.description_path = diagram.stem + DESCRIPTION_EXTENSION


def assume_descriptions(snapshot):
    """Every diagram with a stored description gets a file: the most an export can hold (for its size)."""
    if snapshot.with_descriptions:
        for diagram in snapshot.diagrams:
            if diagram.description_size:
                diagram.description_path = diagram.stem + DESCRIPTION_EXTENSION


def description_file(diagram, description):
    """The sibling Markdown file of a diagram: its title as a heading, then the description."""
    return f"# {diagram.title}\n\n{description}"


def type_label(diagram_type, gettext):
    """The language's name, as the README and the Markdown export show it."""
    if diagram_type == FREEHAND:
        return gettext("Freehand sketch")
    return TYPE_LABELS.get(diagram_type, diagram_type)
