"""Reading the files of an import safely, each ZIP archive opened once: the request-wide limits, and
archives without path tricks or bombs. Hidden entries are noise, except our exports' history directory
(archive/history.py), whose files have a budget of their own."""
import io
import posixpath
import stat
import struct
import zipfile
import zlib
from dataclasses import dataclass, field

from ..core.content.limits import ContentCaps
from .history import HISTORY_DIR, is_history_path

ZIP_SIGNATURES = (b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")
DIRECTORY_ENTRY = b"PK\x01\x02"
DIRECTORY_ENTRY_SIZE = 46  # fixed part; the name, extra field and comment lengths sit at offset 28
END_OF_DIRECTORY = b"PK\x05\x06"
END_OF_DIRECTORY_SIZE = 22
MAX_COMMENT = 0xFFFF
ZIP64_LOCATOR = b"PK\x06\x07"
ZIP64_LOCATOR_SIZE = 20
ZIP64_END_OF_DIRECTORY = b"PK\x06\x06"
ZIP64_END_OF_DIRECTORY_SIZE = 56
READ_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, RuntimeError, NotImplementedError, zlib.error, OSError,
               EOFError, ValueError)


@dataclass(frozen=True)
class ImportLimits:
    """What one import reads; the api layer builds it from the settings."""

    file_bytes: int  # the largest file, loose or inside an archive
    content: ContentCaps  # the largest diagram content of each type
    files: int = 500  # files across the request, archive entries included (history files aside)
    uncompressed_bytes: int = 50 * 1024 * 1024  # their bytes, uncompressed, history files included
    history_files: int = 10_000  # files in history directories across the request (revisions, indexes)

    @property
    def archive_entries(self):
        """Entries of one archive, directories and hidden files included: checked, with the bytes of its
        central directory, before zipfile builds one object per entry the directory holds."""
        return 4 * self.files + self.history_files

    @property
    def directory_bytes(self):
        return self.archive_entries * 1024


class InvalidUpload(ValueError):
    """An upload the import refuses as a whole; `reason` is the code the answer names."""

    def __init__(self, file, reason):
        super().__init__(f"{file}: {reason}")
        self.file, self.reason = file, reason


@dataclass
class ArchiveContent:
    files: dict = field(default_factory=dict)  # safe path -> bytes, in archive order
    skipped: list = field(default_factory=list)  # (path, reason)


@dataclass
class Upload:
    name: str
    data: bytes
    unpacked: ArchiveContent | None = None  # the files read_uploads read from it, when it is a ZIP


def upload_name(filename):
    """The base name of an uploaded file, whatever path the client sent."""
    return posixpath.basename((filename or "").replace("\\", "/")).strip() or "file"


def is_zip(name, data):
    return data[:4] in ZIP_SIGNATURES or name.lower().endswith(".zip")


def _end_of_directory(data):
    """Offset of the end-of-directory record, found the way zipfile finds it, or -1."""
    end = len(data) - END_OF_DIRECTORY_SIZE
    if end >= 0 and data[end:end + 4] == END_OF_DIRECTORY and data[-2:] == b"\0\0":
        return end
    end = data.rfind(END_OF_DIRECTORY, max(0, len(data) - MAX_COMMENT - 1 - END_OF_DIRECTORY_SIZE))
    return end if 0 <= end <= len(data) - END_OF_DIRECTORY_SIZE else -1


def _directory(data):
    """(declared entries, directory bytes, directory offset) from the end records (ZIP64 ones too)."""
    end = _end_of_directory(data)
    if end < 0:
        return None
    entries, size = struct.unpack_from("<HL", data, end + 10)
    record = end - ZIP64_LOCATOR_SIZE - ZIP64_END_OF_DIRECTORY_SIZE
    if (record >= 0 and data[end - ZIP64_LOCATOR_SIZE:end - ZIP64_LOCATOR_SIZE + 4] == ZIP64_LOCATOR
            and data[record:record + 4] == ZIP64_END_OF_DIRECTORY):
        entries, size = struct.unpack_from("<QQ", data, record + 32)
        end = record
    return entries, size, end - size


def _listed_entries(data, start, size, limit):
    """How many entries the directory really holds (zipfile reads them all, whatever the count says),
    counted up to limit + 1 without decoding any."""
    count, position, stop = 0, start, min(start + size, len(data))
    while 0 <= position and position + DIRECTORY_ENTRY_SIZE <= stop and count <= limit:
        if data[position:position + 4] != DIRECTORY_ENTRY:
            break
        position += DIRECTORY_ENTRY_SIZE + sum(struct.unpack_from("<3H", data, position + 28))
        count += 1
    return count


def _crowded(data, limits):
    """Whether the archive lists more entries, or a larger directory, than an import reads."""
    directory = _directory(data)
    if directory is None:
        return False  # not a ZIP: zipfile says so
    entries, size, start = directory
    return (entries > limits.archive_entries or size > limits.directory_bytes
            or _listed_entries(data, start, size, limits.archive_entries) > limits.archive_entries)


def _open_archive(upload, limits):
    if _crowded(upload.data, limits):
        raise InvalidUpload(upload.name, "too_many_files")
    try:
        return zipfile.ZipFile(io.BytesIO(upload.data))
    except (zipfile.BadZipFile, *READ_ERRORS) as exc:
        raise InvalidUpload(upload.name, "invalid_zip") from exc


def safe_path(name):
    """The entry's path parts, or None for absolute paths, `..`, drive letters; "" for hidden files, but
    for those in a history directory at the top or under a single top directory."""
    normalized = name.replace("\\", "/")
    parts = [part for part in normalized.split("/") if part not in ("", ".")]
    if not parts or normalized.startswith("/") or ".." in parts or ":" in parts[0]:
        return None
    hidden = [index for index, part in enumerate(parts) if part.startswith(".") or part == "__MACOSX"]
    if hidden and not (len(hidden) == 1 and hidden[0] < 2 and parts[hidden[0]] == HISTORY_DIR
                       and len(parts) > hidden[0] + 1):
        return ""
    return "/".join(parts)


def _in_history(info):
    path = safe_path(info.filename)
    return bool(path) and is_history_path(path)


def _read_member(archive, info, limit):
    """The entry's bytes, never more than `limit` + 1 whatever its header claims."""
    with archive.open(info) as member:
        return member.read(limit + 1)


def _read_archive(archive, limit):
    """The files of an open archive; unsafe, oversized, nested or unreadable entries are skipped."""
    content = ArchiveContent()
    for info in archive.infolist():
        if info.is_dir():
            continue
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


def read_uploads(uploads, limits):
    """Open each ZIP upload once and keep its files in `upload.unpacked`. InvalidUpload, naming the first
    upload at fault, for an archive that cannot be read, or past `limits.files` entries,
    `limits.history_files` history files or `limits.uncompressed_bytes` across the request (checked from
    the archives' headers before reading)."""
    entries = history = total = 0
    for upload in uploads:
        if not is_zip(upload.name, upload.data):
            entries += 1
            total += len(upload.data)
            _within(upload, (entries, history, total), limits)
            continue
        with _open_archive(upload, limits) as archive:
            members = [info for info in archive.infolist() if not info.is_dir()]
            revisions = sum(1 for info in members if _in_history(info))
            entries += len(members) - revisions
            history += revisions
            total += sum(info.file_size for info in members)
            _within(upload, (entries, history, total), limits)
            upload.unpacked = _read_archive(archive, limits.file_bytes)
    return uploads


def _within(upload, counts, limits):
    entries, history, total = counts
    if entries > limits.files:
        raise InvalidUpload(upload.name, "too_many_files")
    if history > limits.history_files:
        raise InvalidUpload(upload.name, "too_many_revisions")
    if total > limits.uncompressed_bytes:
        raise InvalidUpload(upload.name, "too_large_uncompressed")
