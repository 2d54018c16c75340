"""What an import would create: folders and diagrams, plus what is skipped and why (docs/export-format.md,
"Reading an archive back")."""
from dataclasses import dataclass, field

from ..core.content.diagram_types import DIAGRAM_TYPES, FREEHAND
from ..core.content.limits import HEX_COLOR, NAME_MAX, ContentCaps
from .history import is_history_path, read_history
from .layout import FORMAT, IMAGE_EXTENSION, MANIFEST, README
from .parse import (
    EXTENSION_TYPES,
    MARKDOWN_EXTENSIONS,
    PlannedDiagram,
    PlannedFolder,
    decode,
    detect_type,
    normalize_newlines,
    parse_file,
    split_extension,
    title_from_name,
)
from .sketch import NotImportable, is_sketch, load_json


@dataclass
class ImportPlan:
    caps: ContentCaps  # a diagram over the cap of its type is skipped as too large
    folders: dict = field(default_factory=dict)  # lower-cased name -> PlannedFolder, in upload order
    diagrams: list = field(default_factory=list)
    skipped: list = field(default_factory=list)  # {"source", "reason"}
    revision_budget: int = 0  # revisions still to be taken from archives' histories

    def folder(self, name, color=None):
        """The plan folder named `name` (case-insensitively), created on first use."""
        key = name.lower()
        folder = self.folders.setdefault(key, PlannedFolder(key, name, color))
        folder.color = folder.color or color
        return folder

    def skip(self, source, reason):
        self.skipped.append({"source": source, "reason": reason})

    def add(self, diagram):
        """Keep the diagram, or skip it as too large when its content is over the cap of its type."""
        if self.caps.fits(diagram.content, diagram.diagram_type):
            self.diagrams.append(diagram)
            return True
        self.skip(diagram.source, "too_large")
        return False

    def take_history(self, diagram, history, index_path, title):
        """The revisions of a restored diagram, from the history files its manifest entry names."""
        diagram.revisions, warnings, diagram.comments = read_history(history, index_path, self.caps,
                                                                     self.revision_budget, title)
        self.revision_budget -= len(diagram.revisions)
        diagram.warnings += warnings

    def flatten(self):
        """Everything into the destination root (an import into one folder)."""
        self.folders = {}
        for diagram in self.diagrams:
            diagram.folder = None


def _clean_name(value, fallback):
    text = value.strip()[:NAME_MAX].strip() if isinstance(value, str) else ""
    return text or fallback


def _color(value):
    return value if isinstance(value, str) and HEX_COLOR.match(value) else None


def _unwrap(files):
    """Our exports hold everything in one directory next to the manifest: drop that level."""
    tops = {path.split("/", 1)[0] for path in files}
    if len(tops) == 1 and all("/" in path for path in files):
        top = tops.pop()
        if f"{top}/{MANIFEST}" in files:
            return {path.split("/", 1)[1]: data for path, data in files.items()}
    return files


def _manifest(files):
    if MANIFEST not in files:
        return None
    try:
        data = load_json(decode(files[MANIFEST])[0])
    except NotImportable:
        return None
    return data if isinstance(data, dict) and data.get("format") == FORMAT else None


def _description_text(data, title):
    text = normalize_newlines(decode(data)[0])
    heading = f"# {title}\n\n"
    if text.startswith(heading):
        return text[len(heading):]
    lines = text.strip().split("\n")
    if lines and lines[0].startswith("# "):
        lines = lines[1:]
    return "\n".join(lines).strip()


def _listed(manifest, key):
    """The objects of one of the manifest's lists (anything else in it is ignored)."""
    value = manifest.get(key)
    return [entry for entry in value if isinstance(entry, dict)] if isinstance(value, list) else []


def _manifest_folders(plan, manifest):
    """Archive directory -> plan folder, for the folders the manifest lists (named and colored as listed)."""
    folders = {}
    for entry in _listed(manifest, "folders"):
        if isinstance(entry.get("path"), str):
            name = _clean_name(entry.get("name"), _clean_name(entry["path"], "Folder"))
            folders[entry["path"]] = plan.folder(name, _color(entry.get("color")))
    return folders


def _path_folder(plan, folders, path):
    """The plan folder of an archive path: its first level (deeper levels are flattened into it), named
    as the manifest names that directory, else after the directory; None for the top level."""
    parts = path.split("/")
    if len(parts) == 1:
        return None
    return folders.get(parts[0]) or plan.folder(_clean_name(parts[0], "Folder"))


def _entry_folder(plan, folders, entry, path):
    """The folder an entry names (a folder path, or null for the root); without one, its archive path's."""
    folder_path = entry.get("folder")
    if isinstance(folder_path, str):
        return folders.get(folder_path) or plan.folder(_clean_name(folder_path, "Folder"))
    if "folder" in entry and folder_path is None:
        return None
    return _path_folder(plan, folders, path)


def _markdown_by_stem(paths):
    """Markdown files by their path without the extension."""
    return {split_extension(path)[0]: path for path in paths if split_extension(path)[1] in MARKDOWN_EXTENSIONS}


def _from_manifest(plan, files, manifest, folders, history):
    """Diagrams the manifest lists, restored exactly: title, type, source, description, folder and, from
    the `history` files, revisions. An entry without a description file takes the Markdown file next to
    its source, if any."""
    entries = _listed(manifest, "diagrams")
    listed = {entry["path"] for entry in entries if isinstance(entry.get("path"), str)}
    siblings = _markdown_by_stem(path for path in files if path not in listed)
    used = {MANIFEST, README} | _images(entries)
    for entry in entries:
        path = entry.get("path")
        if not isinstance(path, str) or path not in files or path in used:
            continue
        used.add(path)
        text, replaced = decode(files[path])
        diagram_type = entry.get("type") if entry.get("type") in DIAGRAM_TYPES else None
        diagram_type = diagram_type or EXTENSION_TYPES.get(split_extension(path)[1]) or detect_type(text)
        if diagram_type not in DIAGRAM_TYPES:
            plan.skip(path, "unsupported_type")
            continue
        if diagram_type == FREEHAND:
            try:
                if not is_sketch(load_json(text)):
                    raise NotImportable("not_a_sketch")
            except NotImportable as exc:
                plan.skip(path, str(exc))
                continue
        title = _clean_name(entry.get("title"), title_from_name(path))
        diagram = PlannedDiagram(title, diagram_type, text, source=path, restored=True,
                                 warnings=["replaced_characters"] if replaced else [])
        description_path = entry.get("description_path")
        if not isinstance(description_path, str):
            description_path = siblings.get(split_extension(path)[0])
        if description_path in files and description_path not in used:
            used.add(description_path)
            diagram.description = _description_text(files[description_path], entry.get("title"))
        diagram.folder = _entry_folder(plan, folders, entry, path)
        if plan.add(diagram):
            plan.take_history(diagram, history, entry.get("history_path"), title)
    return used


def _images(entries):
    """The images an export drew (drawn again from the sources, never imported)."""
    return {entry["image_path"] for entry in entries
            if isinstance(entry.get("image_path"), str) and entry["image_path"].lower().endswith(IMAGE_EXTENSION)}


def _description_siblings(paths):
    """`X.md` next to `X.<diagram extension>` describes X."""
    bases = {split_extension(path)[0] for path in paths if split_extension(path)[1] in EXTENSION_TYPES}
    return {stem: path for stem, path in _markdown_by_stem(paths).items() if stem in bases}


def _from_files(plan, files, used, folders, file_bytes):
    """Any other archive entry: folders from the first path level, deeper levels flattened into it."""
    remaining = [path for path in files if path not in used]
    descriptions = _description_siblings(remaining)
    description_paths = set(descriptions.values())
    for path in remaining:
        if path in description_paths:
            continue
        diagram, reason = parse_file(path.split("/")[-1], files[path], file_bytes)
        if diagram is None:
            plan.skip(path, reason)
            continue
        diagram.source = path
        sibling = descriptions.get(split_extension(path)[0])
        if sibling and not diagram.description:
            diagram.description = _description_text(files[sibling], diagram.title)
        diagram.folder = _path_folder(plan, folders, path)
        plan.add(diagram)


def _add_archive(plan, unpacked, file_bytes):
    for path, reason in unpacked.skipped:
        plan.skip(path, reason)
    files = _unwrap(unpacked.files)
    history = {path: data for path, data in files.items() if is_history_path(path)}
    files = {path: data for path, data in files.items() if path not in history}
    manifest = _manifest(files)
    folders = _manifest_folders(plan, manifest) if manifest else {}
    used = _from_manifest(plan, files, manifest, folders, history) if manifest else {MANIFEST, README}
    _from_files(plan, files, used, folders, file_bytes)


def build_plan(uploads, limits):
    """The plan for every file of one request, its archives already read (reader.read_uploads)."""
    plan = ImportPlan(limits.content, revision_budget=limits.history_files)
    for upload in uploads:
        if upload.unpacked is not None:
            _add_archive(plan, upload.unpacked, limits.file_bytes)
            continue
        diagram, reason = parse_file(upload.name, upload.data, limits.file_bytes)
        if diagram is None:
            plan.skip(upload.name, reason)
        else:
            diagram.source = upload.name
            plan.add(diagram)
    return plan
