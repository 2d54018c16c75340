"""A small PNG reader for tests (8-bit, not interlaced: what resvg writes), so no imaging library is needed."""
import struct
import zlib

_CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}


def decode(data):
    """(width, height, channels, rows): rows[y] is the bytes of row y, `channels` bytes per pixel."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    position, header, compressed = 8, None, bytearray()
    while position < len(data):
        length, kind = struct.unpack_from(">I4s", data, position)
        body = data[position + 8:position + 8 + length]
        position += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            compressed += body
        elif kind == b"IEND":
            break
    width, height, depth, color, _compression, _filter, interlace = header
    assert depth == 8 and color in _CHANNELS and not interlace, header
    channels = _CHANNELS[color]
    raw, stride, rows, previous = zlib.decompress(bytes(compressed)), width * channels, [], bytearray(width * channels)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for x in range(stride):
            left = line[x - channels] if x >= channels else 0
            up = previous[x]
            corner = previous[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + left) & 0xFF
            elif kind == 2:
                line[x] = (line[x] + up) & 0xFF
            elif kind == 3:
                line[x] = (line[x] + (left + up) // 2) & 0xFF
            elif kind == 4:
                guess = left + up - corner
                near = min((abs(guess - left), 0, left), (abs(guess - up), 1, up), (abs(guess - corner), 2, corner))
                line[x] = (line[x] + near[2]) & 0xFF
        rows.append(bytes(line))
        previous = line
    return width, height, channels, rows


def differing_pixels(first, second, box):
    """How many pixels of `box` (left, top, right, bottom; clipped to the image) differ between two
    decoded PNGs of the same size."""
    width, height, channels, rows = first
    assert (width, height, channels) == second[:3], (first[:3], second[:3])
    left, top, right, bottom = (max(0, int(box[0])), max(0, int(box[1])), min(width, int(box[2]) + 1),
                                min(height, int(box[3]) + 1))
    count = 0
    for y in range(top, bottom):
        one, other = rows[y], second[3][y]
        count += sum(one[x * channels:(x + 1) * channels] != other[x * channels:(x + 1) * channels]
                     for x in range(left, right))
    return count
