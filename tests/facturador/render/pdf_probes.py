"""What a rendered PDF shows: its text, its page count (the sample documents are in tests/samples)."""

from __future__ import annotations

import re
import zlib

#: The digest value printed on the samples (and in their QR).
DIGEST = "5zVcyL443M1vVGhdFNi+H9jcslo="

_STREAM = re.compile(rb"stream\r?\n(.*?)\r?\nendstream", re.S)
_ESCAPE = re.compile(r"\\([()\\])")


def pdf_text(pdf: bytes) -> str:
    """Every content stream of an fpdf2 PDF, inflated and decoded as cp1252 (the core fonts' encoding).

    Text shown with the core fonts appears verbatim inside ``(...) Tj`` operators (``(``, ``)`` and ``\\``
    escaped; unescaped here), so ``"FACTURA ELECTRÓNICA" in pdf_text(pdf)`` checks it is printed.
    """
    return _ESCAPE.sub(r"\1", _raw_text(pdf))


_SHOWN = re.compile(r"\(((?:\\.|[^\\)])*)\)\s*Tj")


def pdf_strings(pdf: bytes) -> str:
    """The text shown on the pages, in drawing order, joined by single spaces.

    Lines wrapped by ``multi_cell`` come back joined (``"COMERCIALIZADORA ÑAÑEZ & ASOCIADOS"`` is found even
    when split over two lines on a ticket), and so do fpdf2's separate ``{nb}`` fragments.
    """
    shown = (_ESCAPE.sub(r"\1", m.group(1)) for m in _SHOWN.finditer(_raw_text(pdf)))
    return " ".join(" ".join(shown).split())


#: A stream's dictionary end and start, with its byte length (fpdf2 writes ``/Length`` as a number).
_STREAM_HEAD = re.compile(rb"/Length (\d+)[^>]*>>\s*stream\r?\n")


def _streams(pdf: bytes) -> list[bytes]:
    """Every stream's bytes, cut by its ``/Length`` (a compressed stream may hold ``endstream`` bytes)."""
    heads = list(_STREAM_HEAD.finditer(pdf))
    if not heads:
        return _STREAM.findall(pdf)
    return [pdf[head.end() : head.end() + int(head.group(1))] for head in heads]


def _raw_text(pdf: bytes) -> str:
    chunks = []
    for raw in _streams(pdf):
        try:
            data = zlib.decompress(raw)
        except zlib.error:
            data = raw
        chunks.append(data.decode("cp1252", errors="replace"))
    return "\n".join(chunks)


def page_count(pdf: bytes) -> int:
    """Number of ``/Type /Page`` objects."""
    return len(re.findall(rb"/Type\s*/Page\b", pdf))
