"""Reading an upload safely: request-wide limits, ZIP archives without path tricks or bombs."""
import io
import posixpath
import stat
import struct
import zipfile
import zlib
from dataclasses import dataclass, field

from flask import current_app
from flask_babel import gettext as _

from ...errors import BadRequest

MAX_FILES = 500
MAX_UNCOMPRESSED_BYTES = 50 * 1024 * 1024
ZIP_SIGNATURES = (b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")
END_OF_DIRECTORY = b"PK\x05\x06"
ZIP64_LOCATOR = b"PK\x06\x07"
ZIP64_END_OF_DIRECTORY = b"PK\x06\x06"
READ_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, RuntimeError, NotImplementedError, zlib.error, OSError,
               EOFError, ValueError)


@dataclass
class Upload:
    name: str
    data: bytes


@dataclass
class ArchiveContent:
    files: dict = field(default_factory=dict)  # safe path -> bytes, in archive order
    skipped: list = field(default_factory=list)  # (path, reason)


def max_file_bytes():
    return current_app.config["MAX_REQUEST_BODY_BYTES"]


def invalid_upload(name, reason):
    return BadRequest({"error": "invalid_upload", "file": name, "reason": reason,
                       "message": _("The file %(file)s cannot be imported (%(reason)s).", file=name, reason=reason)})


def upload_name(filename):
    """The base name of an uploaded file, whatever path the client sent."""
    return posixpath.basename((filename or "").replace("\\", "/")).strip() or "file"


def is_zip(name, data):
    return data[:4] in ZIP_SIGNATURES or name.lower().endswith(".zip")


def _declared_entries(data):
    """Entry count from the end-of-directory records, read before the directory itself is parsed."""
    position = data.rfind(END_OF_DIRECTORY, max(0, len(data) - 65_557))
    if position < 0 or len(data) < position + 22:
        return None
    count = struct.unpack("<H", data[position + 10:position + 12])[0]
    locator = position - 20
    if count == 0xFFFF and locator >= 0 and data[locator:locator + 4] == ZIP64_LOCATOR:
        record = struct.unpack("<Q", data[locator + 8:locator + 16])[0]
        if data[record:record + 4] == ZIP64_END_OF_DIRECTORY and len(data) >= record + 40:
            count = struct.unpack("<Q", data[record + 32:record + 40])[0]
    return count


def _open_archive(upload):
    declared = _declared_entries(upload.data)
    if declared is not None and declared > 4 * MAX_FILES:
        raise invalid_upload(upload.name, "too_many_files")
    try:
        return zipfile.ZipFile(io.BytesIO(upload.data))
    except (zipfile.BadZipFile, *READ_ERRORS) as exc:
        raise invalid_upload(upload.name, "invalid_zip") from exc


def _members(archive):
    return [info for info in archive.infolist() if not info.is_dir()]


def check_request_limits(uploads):
    """At most MAX_FILES entries and MAX_UNCOMPRESSED_BYTES across every file of the request."""
    entries = total = 0
    for upload in uploads:
        if is_zip(upload.name, upload.data):
            with _open_archive(upload) as archive:
                members = _members(archive)
                entries += len(members)
                total += sum(info.file_size for info in members)
        else:
            entries += 1
            total += len(upload.data)
        if entries > MAX_FILES:
            raise invalid_upload(upload.name, "too_many_files")
        if total > MAX_UNCOMPRESSED_BYTES:
            raise invalid_upload(upload.name, "too_large_uncompressed")


def safe_path(name):
    """The entry's path parts, or None for absolute paths, `..`, drive letters; "" for hidden files."""
    normalized = name.replace("\\", "/")
    parts = [part for part in normalized.split("/") if part not in ("", ".")]
    if not parts or normalized.startswith("/") or ".." in parts or ":" in parts[0]:
        return None
    if any(part.startswith(".") or part == "__MACOSX" for part in parts):
        return ""
    return "/".join(parts)


def _read_member(archive, info, limit):
    """The entry's bytes, never more than `limit` + 1 whatever its header claims."""
    with archive.open(info) as member:
        return member.read(limit + 1)


def read_archive(upload):
    """The files of a ZIP upload; unsafe, oversized, nested or unreadable entries are skipped."""
    content, limit = ArchiveContent(), max_file_bytes()
    with _open_archive(upload) as archive:
        for info in _members(archive):
            path = safe_path(info.filename)
            if path == "":
                continue  # hidden files and macOS resource forks are noise, not content
            if path is None:
                content.skipped.append((info.filename, "unsafe_path"))
                continue
            if stat.S_ISLNK(info.external_attr >> 16):
                content.skipped.append((path, "unsupported_type"))
                continue
            if info.file_size > limit:
                content.skipped.append((path, "too_large"))
                continue
            try:
                data = _read_member(archive, info, limit)
            except READ_ERRORS:
                content.skipped.append((path, "unreadable"))
                continue
            if len(data) > limit:
                content.skipped.append((path, "too_large"))
            elif is_zip(path, data):
                content.skipped.append((path, "nested_zip"))
            else:
                content.files[path] = data
    return content
