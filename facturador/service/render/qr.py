"""The QR code of the printed representation: its text (sunat.md §7) and a PNG of it (facturador-api.md §6.4).

Choices, made for the issuing hot path (target: ≲ 2 ms for :func:`qr_png_base64`):

* **Error correction L** (as the reference service: "PNG 150 px, error level L"). segno's
  ``boost_error`` stays on, so the level is raised for free when the text still fits the same version.
  L keeps the symbol small (version 5, 37 modules, for a factura with hash), i.e. bigger modules at
  the same printed size, which matters more on 203 dpi thermal printers than extra redundancy.
* **Fixed mask pattern** (:data:`MASK`). segno evaluates the 8 masks in pure Python (~6 ms per code);
  any mask gives a valid symbol (decoders read the mask from the format information), the penalty
  rules only pick the "nicest looking" one. Fixing it cuts encoding to ~1 ms.
* **Own 1-bit greyscale PNG writer** instead of segno's (also pure Python, ~1.3 ms at scale 4): rows are
  packed with ``int(..., 2).to_bytes`` and vertical scaling repeats the scanline. Output is
  pixel-identical to ``segno``'s ``save(kind="png")`` with the same scale and border.
* Default size: 4 px per module with the standard 4-module quiet zone → 180 × 180 px for version 5.
"""

from __future__ import annotations

import base64
import struct
import zlib

import segno

from facturador.service.domain.model import SalesDocument
from facturador.sunat.money import fmt2

__all__ = ["MASK", "qr_matrix", "qr_png", "qr_png_base64", "qr_text"]

#: The mask pattern used for every code (0-7); see the module docstring.
MASK = 0
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_ZLIB_LEVEL = 6  # the symbol is ~1 kB raw: levels 6 and 9 give the same size, 6 is a hair faster


def qr_text(doc: SalesDocument, digest_value: str) -> str:
    """The text SUNAT expects in the QR, with a trailing pipe.

    ``RUC|TIPO|SERIE|NUMERO|IGV|TOTAL|FECHA|TIPO DOC ADQUIRENTE|NUM DOC ADQUIRENTE|HASH|`` where the
    amounts have two decimals, the date is ``YYYY-MM-DD`` and the number is not zero-padded.
    """
    fields = (
        doc.issuer.ruc,
        doc.doc_type,
        doc.series,
        str(doc.number),
        fmt2(doc.totals.igv),
        fmt2(doc.totals.total),
        doc.issue_date.isoformat(),
        doc.customer.identity_type,
        doc.customer.number,
        digest_value,
    )
    return "|".join(fields) + "|"


def qr_matrix(text: str, *, error: str = "L") -> tuple[bytearray, ...]:
    """The QR symbol of ``text`` as rows of 0 (light) / 1 (dark) modules, without quiet zone."""
    return segno.make_qr(text, error=error, mask=MASK).matrix


def _chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))


def qr_png(text: str, *, scale: int = 4, border: int = 4, error: str = "L") -> bytes:
    """PNG (1-bit greyscale) of the QR of ``text``: ``scale`` px per module, ``border`` modules of quiet zone.

    With the defaults a factura's QR is 180 × 180 px. ``error`` is the minimum error-correction level
    (``"L"``, ``"M"``, ``"Q"`` or ``"H"``).
    """
    if scale < 1 or border < 0:
        raise ValueError("scale must be >= 1 and border >= 0")
    matrix = qr_matrix(text, error=error)
    size = (len(matrix) + 2 * border) * scale
    pad = -size % 8
    row_bytes = (size + pad) // 8
    # PNG greyscale 1 bit: 0 = black, 1 = white; each scanline starts with its filter byte (0 = none).
    light, dark = b"1" * scale, b"0" * scale
    left = b"1" * (border * scale)
    right = left + b"1" * pad
    blank = b"\0" + b"\xff" * row_bytes
    rows = [blank * (border * scale)]
    for row in matrix:
        bits = left + b"".join(dark if module else light for module in row) + right
        rows.append((b"\0" + int(bits, 2).to_bytes(row_bytes, "big")) * scale)
    rows.append(blank * (border * scale))
    header = struct.pack(">IIBBBBB", size, size, 1, 0, 0, 0, 0)
    return (
        _PNG_SIGNATURE
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(b"".join(rows), _ZLIB_LEVEL))
        + _chunk(b"IEND", b"")
    )


def qr_png_base64(text: str, *, scale: int = 4, border: int = 4, error: str = "L") -> str:
    """:func:`qr_png` encoded as plain base64 (no ``data:`` prefix), as the API returns it."""
    return base64.b64encode(qr_png(text, scale=scale, border=border, error=error)).decode("ascii")
