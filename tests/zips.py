"""ZIP archives built in memory for the import tests, including hostile ones."""
import io
import struct
import zipfile


def make_zip(entries, compression=zipfile.ZIP_DEFLATED):
    """`entries`: {path: bytes | str}; a path ending in "/" is a directory entry."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        for path, data in entries.items():
            archive.writestr(zipfile.ZipInfo(path), data.encode() if isinstance(data, str) else data)
    return buffer.getvalue()


def bomb(declared_bytes):
    """One entry of zeros that expands to `declared_bytes` (a few dozen KiB compressed)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        with archive.open("zeros.mmd", "w", force_zip64=True) as member:
            chunk = b"\0" * (1024 * 1024)
            for _ in range(declared_bytes // len(chunk)):
                member.write(chunk)
    return buffer.getvalue()


def lying_sizes(path, data, claimed_size):
    """An archive whose headers claim `claimed_size` bytes for an entry that expands to `data`."""
    raw = bytearray(make_zip({path: data}))
    for signature, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        start = raw.find(signature)
        raw[start + offset:start + offset + 4] = struct.pack("<I", claimed_size)
    return bytes(raw)


def crowded_directory(entries, declared):
    """A bare central directory of `entries` one-letter entries whose end record declares `declared`
    (ZIP64 end records when that does not fit in 16 bits). zipfile reads every entry the directory holds."""
    entry = struct.pack("<4s4B4HL2L5H2L", b"PK\x01\x02", 20, 0, 20, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0)
    directory = (entry + b"a") * entries
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, min(declared, 0xFFFF), min(declared, 0xFFFF),
                      len(directory), 0, 0)
    if declared <= 0xFFFF:
        return directory + end
    zip64 = struct.pack("<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, declared, declared, len(directory), 0)
    locator = struct.pack("<4sLQL", b"PK\x06\x07", 0, len(directory), 1)
    return directory + zip64 + locator + end
