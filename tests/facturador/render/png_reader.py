"""A small reader of 1-bit greyscale PNGs, to compare the QR images pixel by pixel."""

from __future__ import annotations

import struct
import zlib


def unfilter(kind: int, line: bytes, previous: bytes) -> bytes:
    """Undo a PNG scanline filter (PNG spec §9; one byte per pixel unit at bit depth 1)."""
    if kind == 0:
        return line
    if kind == 2:
        return bytes((byte + up) & 0xFF for byte, up in zip(line, previous, strict=True))
    out = bytearray(line)
    for i, byte in enumerate(line):
        left = out[i - 1] if i else 0
        up = previous[i]
        upper_left = previous[i - 1] if i else 0
        if kind == 1:
            pred = left
        elif kind == 2:
            pred = up
        elif kind == 3:
            pred = (left + up) // 2
        else:
            p = left + up - upper_left
            pa, pb, pc = abs(p - left), abs(p - up), abs(p - upper_left)
            pred = left if pa <= pb and pa <= pc else up if pb <= pc else upper_left
        out[i] = (byte + pred) & 0xFF
    return bytes(out)


def png_pixels(png: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and unfiltered rows of a 1-bit greyscale PNG (bit 0 black, 1 white), pad bits cleared.

    segno's writer uses the "Up" filter, ours none: they are compared once decoded."""
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    pos, idat, width, height = 8, b"", 0, 0
    while pos < len(png):
        (length,) = struct.unpack(">I", png[pos : pos + 4])
        tag, data = png[pos + 4 : pos + 8], png[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", png[pos + 8 + length : pos + 12 + length])
        assert zlib.crc32(tag + data) == crc, tag
        if tag == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", data)
            assert (depth, colour, interlace) == (1, 0, 0)
        elif tag == b"IDAT":
            idat += data
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = (width + 7) // 8 + 1
    assert len(raw) == stride * height
    rows, previous = [], bytes(stride - 1)
    pad_mask = (0xFF << (-width % 8)) & 0xFF
    for y in range(height):
        kind, line = raw[y * stride], raw[y * stride + 1 : (y + 1) * stride]
        previous = unfilter(kind, line, previous)
        rows.append(previous[:-1] + bytes([previous[-1] & pad_mask]))
    return width, height, rows
