"""The ZIP export: README, one file per diagram, when asked the diagrams' revisions and images, then the
manifest (last, as it says which images were drawn), written to a file as it is compressed, and the most
it can weigh. The README is localized through the `gettext` function the caller passes."""
import json
import zipfile

from ..core.history import compress_bound
from .history import encode_content, history_index
from .layout import (
    FORMAT,
    FORMAT_VERSION,
    MANIFEST,
    README,
    description_file,
    history_diagrams,
    image_diagrams,
    type_label,
)

# The end of central directory record, plus the ZIP64 records zipfile adds past 65,535 entries.
END_RECORDS = 22 + 56 + 20
# Past 4 GiB of archive, each central directory record carries its offset in a ZIP64 extra field.
ZIP64_LIMIT = (1 << 32) - 1
ZIP64_OFFSET_EXTRA = 4 + 8
ZIP_EARLIEST, ZIP_LATEST = (1980, 1, 1, 0, 0, 0), (2107, 12, 31, 23, 59, 58)


def manifest(snapshot):
    """The machine-readable index an import uses to restore folders, titles and types exactly."""
    folders = snapshot.folder_by_id()
    diagrams = []
    for diagram in snapshot.diagrams:
        folder = folders.get(diagram.folder_id)
        entry = {"id": diagram.id, "title": diagram.title, "type": diagram.diagram_type, "path": diagram.path,
                 "folder": folder.path if folder else None, "folder_id": diagram.folder_id,
                 "created_at": diagram.created_at.isoformat(), "updated_at": diagram.updated_at.isoformat()}
        if diagram.description_path:
            entry["description_path"] = diagram.description_path
        if diagram.history_path:
            entry["history_path"] = diagram.history_path
        if diagram.image_path:
            entry["image_path"] = diagram.image_path
        if diagram.image_skipped:
            entry["image_skipped"] = diagram.image_skipped
        diagrams.append(entry)
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "exported_at": snapshot.exported_at.isoformat(timespec="seconds"),
        "project": snapshot.project,
        "scope": {"folder": snapshot.scope_folder.name if snapshot.scope_folder else None},
        "folders": [{"id": f.id, "name": f.name, "color": f.color, "path": f.path} for f in snapshot.folders],
        "diagrams": diagrams,
    }


def _cell(text):
    return text.replace("|", "\\|").replace("\n", " ")


def readme(snapshot, gettext):
    """A human index of the archive (localized)."""
    lines = [f"# {snapshot.title}", ""]
    if snapshot.scope_folder:
        lines += [gettext('Folder "%(folder)s" of project "%(project)s".', folder=snapshot.scope_folder.name,
                          project=snapshot.project["name"]), ""]
    headings = (gettext("File"), gettext("Diagram"), gettext("Type"), gettext("Updated"))
    lines += [
        gettext("Exported on %(date)s UTC: %(folders)s folder(s), %(diagrams)s diagram(s).",
                date=f"{snapshot.exported_at:%Y-%m-%d %H:%M}", folders=len(snapshot.folders),
                diagrams=len(snapshot.diagrams)), "",
        gettext("Each diagram is a source file whose extension names its language: .mmd Mermaid, .puml PlantUML, "
                ".d2 D2, .dbml DBML, .dot Graphviz, .freehand.json freehand sketch (JSON), .txt other types. "
                "A .md file next to a diagram holds its description. manifest.json lets the archive be imported "
                "back as it was."), "",
    ]
    if snapshot.with_images:
        lines += [gettext("Each .svg file next to a diagram's source is its image, drawn at export time; "
                          "manifest.json says why a diagram has none."), ""]
    lines += ["| " + " | ".join(headings) + " |", "|---|---|---|---|"]
    lines += [f"| `{_cell(d.path)}` | {_cell(d.title)} | {type_label(d.diagram_type, gettext)} | "
              f"{d.updated_at:%Y-%m-%d} |" for d in snapshot.diagrams]
    return "\n".join(lines) + "\n"


def _entry(name, moment, compress=zipfile.ZIP_DEFLATED):
    # ZIP times run from 1980 to 2107; an imported revision may say otherwise.
    info = zipfile.ZipInfo(name, date_time=min(max(moment.timetuple()[:6], ZIP_EARLIEST), ZIP_LATEST))
    info.compress_type = compress
    info.external_attr = 0o644 << 16
    return info


def _index_entries(archive, snapshot, gettext):
    root, moment = snapshot.root, snapshot.exported_at
    archive.writestr(_entry(f"{root}/{README}", moment, zipfile.ZIP_STORED), readme(snapshot, gettext).encode())
    for folder in snapshot.folders:
        directory = _entry(f"{root}/{folder.path}/", moment, zipfile.ZIP_STORED)
        directory.external_attr = 0o40755 << 16 | 0x10
        archive.writestr(directory, b"")


def _manifest_bytes(manifest_data):
    return json.dumps(manifest_data, ensure_ascii=False, indent=2).encode()


def write_zip(snapshot, target, gettext):
    """Write the archive into the seekable file `target`, reading a few diagrams' texts at a time.
    Call it on a snapshot whose description files are decided (mark_descriptions)."""
    root = snapshot.root
    with zipfile.ZipFile(target, "w") as archive:
        _index_entries(archive, snapshot, gettext)
        for diagram, content, description in snapshot.read_texts(snapshot.diagrams):
            archive.writestr(_entry(f"{root}/{diagram.path}", diagram.updated_at), content.encode())
            if diagram.description_path:
                archive.writestr(_entry(f"{root}/{diagram.description_path}", diagram.updated_at),
                                 description_file(diagram, description).encode())
        if snapshot.with_history:
            _write_history(archive, snapshot)
        if snapshot.with_images:
            _write_images(archive, snapshot)
        archive.writestr(_entry(f"{root}/{MANIFEST}", snapshot.exported_at, zipfile.ZIP_STORED),
                         _manifest_bytes(manifest(snapshot)))


def _write_images(archive, snapshot):
    """Each diagram's SVG beside its source, as the caller draws them; a diagram not drawn loses its
    image path and says why in the manifest."""
    for diagram, svg, skipped in snapshot.read_images(image_diagrams(snapshot)):
        if svg is None:
            diagram.image_path, diagram.image_skipped = None, skipped
        else:
            archive.writestr(_entry(f"{snapshot.root}/{diagram.image_path}", diagram.updated_at), svg.encode())


def _by_diagram(snapshot, with_content):
    """(diagram, revision, content) for each revision of the diagrams with history, then (diagram, None,
    None) once a diagram's revisions are all out (alone for one whose revisions were deleted meanwhile)."""
    pending = history_diagrams(snapshot)
    rows = iter(snapshot.read_history(pending, with_content=with_content))
    row = next(rows, None)
    for diagram in pending:
        while row is not None and row[0] is diagram:
            yield row
            row = next(rows, None)
        yield diagram, None, None


def _write_history(archive, snapshot):
    """Each diagram's revision files, then its revisions.json, reading a few revisions at a time."""
    root, entries = snapshot.root, []
    for diagram, revision, content in _by_diagram(snapshot, with_content=True):
        if revision is None:
            archive.writestr(_entry(f"{root}/{diagram.history_path}", snapshot.exported_at),
                             history_index(diagram, entries))
            entries = []
        else:
            archive.writestr(_entry(f"{root}/{diagram.history_dir}/{revision.file}", revision.updated_at),
                             encode_content(content))
            entries.append(revision.index_entry())


def _entry_bound(name, data_bound):
    """Local header, central directory record and data of one entry (no extra fields)."""
    name_size = len(name.encode())
    return 30 + name_size + data_bound + 46 + name_size


def zip_size_bound(snapshot, gettext):
    """The most the archive can weigh, from the sizes kept in the database: no text is read or
    compressed. Call it on a snapshot where every stored description counts (assume_descriptions)."""
    root = snapshot.root
    total = END_RECORDS
    total += _entry_bound(f"{root}/{README}", len(readme(snapshot, gettext).encode()))
    total += _entry_bound(f"{root}/{MANIFEST}", len(_manifest_bytes(manifest(snapshot))))
    total += sum(_entry_bound(f"{root}/{folder.path}/", 0) for folder in snapshot.folders)
    for diagram in snapshot.diagrams:
        total += _entry_bound(f"{root}/{diagram.path}", compress_bound(diagram.content_size))
        if diagram.description_path:
            heading = len(f"# {diagram.title}\n\n".encode())
            total += _entry_bound(f"{root}/{diagram.description_path}",
                                  compress_bound(heading + diagram.description_size))
    entries = 2 + len(snapshot.folders) + sum(1 + bool(d.description_path) for d in snapshot.diagrams)
    if snapshot.with_history:
        history_total, history_entries = _history_bound(snapshot)
        total, entries = total + history_total, entries + history_entries
    return total + (entries * ZIP64_OFFSET_EXTRA if total > ZIP64_LIMIT else 0)


def _history_bound(snapshot):
    """(bytes, entries) of the history files, from the revisions' metadata: no content is read."""
    root, total, count, entries = snapshot.root, 0, 0, []
    for diagram, revision, _content in _by_diagram(snapshot, with_content=False):
        if revision is None:
            index_size = len(history_index(diagram, entries))
            total += _entry_bound(f"{root}/{diagram.history_path}", compress_bound(index_size))
            entries = []
        else:
            total += _entry_bound(f"{root}/{diagram.history_dir}/{revision.file}",
                                  compress_bound(revision.content_size))
            entries.append(revision.index_entry())
        count += 1
    return total, count
