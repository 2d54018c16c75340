"""The ZIP export: README, one file per diagram, when asked the diagrams' images and revisions (as many
as an import accepts: history_bound.py), then the manifest (last, as it says which images were drawn and
which revisions were left out), written to a file as it is compressed, and the most it can weigh. The
README and the manifest's notes are localized through the `gettext` function the caller passes."""
import json
import zipfile

from ..core.history.revisions import compress_bound
from .history import encode_content, history_index
from .history_bound import entry_bound, keep_newest
from .layout import (
    DESCRIPTION_EXTENSION,
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
# What a diagram's manifest entry may still gain once the history is chosen: a description path (the
# export writes one for a non-blank description only, its summary counts every stored one) and a count.
DESCRIPTION_PATH_ROOM = len(',\n      "description_path": ')
OMITTED_ROOM = len(',\n      "history_omitted": 999999999')
MEBIBYTE = 1024 * 1024


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
        if diagram.history_omitted:
            entry["history_omitted"] = diagram.history_omitted
        diagrams.append(entry)
    data = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "exported_at": snapshot.exported_at.isoformat(timespec="seconds"),
        "project": snapshot.project,
        "scope": {"folder": snapshot.scope_folder.name if snapshot.scope_folder else None},
        "folders": [{"id": f.id, "name": f.name, "color": f.color, "path": f.path} for f in snapshot.folders],
        "diagrams": diagrams,
    }
    if snapshot.history_note:
        data["history_omitted"] = snapshot.history_note
    return data


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
        images = _write_images(archive, snapshot) if snapshot.with_images else (0, 0)
        if snapshot.with_history:
            choose_history(snapshot, gettext, images)
            _write_history(archive, snapshot)
        archive.writestr(_entry(f"{root}/{MANIFEST}", snapshot.exported_at, zipfile.ZIP_STORED),
                         _manifest_bytes(manifest(snapshot)))


def _write_images(archive, snapshot):
    """Each diagram's SVG beside its source, as the caller draws them; a diagram not drawn loses its
    image path and says why in the manifest. Returns the (uncompressed, compressed) bytes written."""
    uncompressed = compressed = 0
    for diagram, svg, skipped in snapshot.read_images(image_diagrams(snapshot)):
        if svg is None:
            diagram.image_path, diagram.image_skipped = None, skipped
        else:
            info = _entry(f"{snapshot.root}/{diagram.image_path}", diagram.updated_at)
            archive.writestr(info, svg.encode())
            uncompressed += info.file_size
            compressed += entry_bound(info.filename, info.compress_size)
    return uncompressed, compressed


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


def _mebibytes(size):
    return f"{size / MEBIBYTE:.1f}".removesuffix(".0")


def _omission_detail(limits, gettext):
    """The localized note of an export whose oldest revisions were left out, naming the import's limits."""
    return lambda count: gettext(
        "The oldest %(count)s revisions were left out so that the archive can be imported again: an import "
        "reads at most %(files)s history files and %(size)s MiB of uncompressed data, from an archive of at "
        "most %(upload)s MiB.", count=count, files=limits.files, size=_mebibytes(limits.uncompressed_bytes),
        upload=_mebibytes(limits.archive_bytes))


def _manifest_bound(snapshot, describe):
    """The most the manifest can weigh once the history is chosen."""
    size = len(_manifest_bytes(manifest(snapshot)))
    size += len(_manifest_bytes({"history_omitted": {"revisions": 999_999_999, "detail": describe(999_999_999)}}))
    for diagram in snapshot.diagrams:
        if snapshot.with_descriptions and diagram.description_size and not diagram.description_path:
            size += DESCRIPTION_PATH_ROOM + len(json.dumps(diagram.stem + DESCRIPTION_EXTENSION,
                                                           ensure_ascii=False).encode())
        if diagram.history_path:
            size += OMITTED_ROOM
    return size


def _files_bound(snapshot, gettext, manifest_size):
    """(uncompressed bytes, archive bytes, entries) of everything but history and images, from the sizes
    kept in the database, every stored description counted."""
    root, readme_size = snapshot.root, len(readme(snapshot, gettext).encode())
    uncompressed = readme_size + manifest_size
    compressed = (END_RECORDS + entry_bound(f"{root}/{README}", readme_size)
                  + entry_bound(f"{root}/{MANIFEST}", manifest_size)
                  + sum(entry_bound(f"{root}/{folder.path}/", 0) for folder in snapshot.folders))
    entries = 2 + len(snapshot.folders)
    for diagram in snapshot.diagrams:
        uncompressed += diagram.content_size
        compressed += entry_bound(f"{root}/{diagram.path}", compress_bound(diagram.content_size))
        entries += 1
        if snapshot.with_descriptions and diagram.description_size:
            size = len(f"# {diagram.title}\n\n".encode()) + diagram.description_size
            uncompressed += size
            compressed += entry_bound(f"{root}/{diagram.stem}{DESCRIPTION_EXTENSION}", compress_bound(size))
            entries += 1
    return uncompressed, compressed, entries


def choose_history(snapshot, gettext, images=(0, 0)):
    """Keep the newest revisions that fit in what an import accepts once the rest of the archive (and
    the `images` already written: uncompressed and archive bytes) is counted (history_bound.py)."""
    describe = _omission_detail(snapshot.history_limits, gettext)
    uncompressed, compressed, _entries = _files_bound(snapshot, gettext, _manifest_bound(snapshot, describe))
    keep_newest(snapshot, snapshot.history_limits.room(uncompressed + images[0], compressed + images[1]),
                describe)


def zip_size_bound(snapshot, gettext):
    """The most the archive can weigh, from the sizes kept in the database: no text is read or
    compressed. Call it on a snapshot where every stored description counts (assume_descriptions)."""
    if snapshot.with_history:
        choose_history(snapshot, gettext)
    _uncompressed, total, entries = _files_bound(snapshot, gettext, len(_manifest_bytes(manifest(snapshot))))
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
            total += entry_bound(f"{root}/{diagram.history_path}", compress_bound(index_size))
            entries = []
        else:
            total += entry_bound(f"{root}/{diagram.history_dir}/{revision.file}",
                                 compress_bound(revision.content_size))
            entries.append(revision.index_entry())
        count += 1
    return total, count
