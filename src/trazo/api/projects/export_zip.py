"""The ZIP export: README, manifest and one file per diagram, streamed as it is compressed."""
import json
import zipfile

from flask_babel import gettext as _

from .export_layout import MANIFEST, README, description_file
from .export_text import type_label

FORMAT = "diagramahub-export"
FORMAT_VERSION = 1


class _Chunks:
    """A write-only file for zipfile: keeps what was written until the stream takes it."""

    def __init__(self):
        self.buffer = bytearray()

    def write(self, data):
        self.buffer += data
        return len(data)

    def flush(self):
        pass

    def take(self):
        data = bytes(self.buffer)
        self.buffer.clear()
        return data


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


def readme(snapshot):
    """A human index of the archive (localized)."""
    lines = [f"# {snapshot.title}", ""]
    if snapshot.scope_folder:
        lines += [_('Folder "%(folder)s" of project "%(project)s".', folder=snapshot.scope_folder.name,
                    project=snapshot.project["name"]), ""]
    lines += [
        _("Exported on %(date)s UTC: %(folders)s folder(s), %(diagrams)s diagram(s).",
          date=f"{snapshot.exported_at:%Y-%m-%d %H:%M}", folders=len(snapshot.folders),
          diagrams=len(snapshot.diagrams)), "",
        _("Each diagram is a source file whose extension names its language: .mmd Mermaid, .puml PlantUML, "
          ".d2 D2, .dbml DBML, .dot Graphviz, .freehand.json freehand sketch (JSON), .txt other types. "
          "A .md file next to a diagram holds its description. manifest.json lets the archive be imported "
          "back as it was."), "",
        "| " + " | ".join((_("File"), _("Diagram"), _("Type"), _("Updated"))) + " |", "|---|---|---|---|",
    ]
    lines += [f"| `{_cell(d.path)}` | {_cell(d.title)} | {type_label(d.diagram_type)} | {d.updated_at:%Y-%m-%d} |"
              for d in snapshot.diagrams]
    return "\n".join(lines) + "\n"


def _entry(name, moment, compress=zipfile.ZIP_DEFLATED):
    info = zipfile.ZipInfo(name, date_time=moment.timetuple()[:6])
    info.compress_type = compress
    info.external_attr = 0o644 << 16
    return info


def zip_chunks(snapshot, readme_text, manifest_data):
    """Yield the archive piece by piece; only one file is held compressed at a time."""
    sink = _Chunks()
    root = snapshot.root
    moment = snapshot.exported_at
    with zipfile.ZipFile(sink, "w") as archive:
        # Index files are stored uncompressed so the announced size does not depend on the export time.
        archive.writestr(_entry(f"{root}/{README}", moment, zipfile.ZIP_STORED), readme_text.encode())
        archive.writestr(_entry(f"{root}/{MANIFEST}", moment, zipfile.ZIP_STORED),
                         json.dumps(manifest_data, ensure_ascii=False, indent=2).encode())
        for folder in snapshot.folders:
            directory = _entry(f"{root}/{folder.path}/", moment, zipfile.ZIP_STORED)
            directory.external_attr = 0o40755 << 16 | 0x10
            archive.writestr(directory, b"")
        yield sink.take()
        for diagram in snapshot.diagrams:
            archive.writestr(_entry(f"{root}/{diagram.path}", diagram.updated_at), diagram.content.encode())
            if diagram.description_path:
                archive.writestr(_entry(f"{root}/{diagram.description_path}", diagram.updated_at),
                                 description_file(diagram).encode())
            yield sink.take()
    yield sink.take()
