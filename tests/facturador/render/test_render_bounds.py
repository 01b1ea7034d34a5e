"""Rendering is bounded in time, pages and size whatever a document holds, and stops when cancelled.

The largest document assumed accepted: 1,000 lines with 500-character descriptions (SUNAT's longest),
5,000 characters of additional information, a 1,500-character customer name and a 1,000-character
address. Also one far past any limit (5,000 lines, 100,000 characters): the same bounds hold.
"""

from __future__ import annotations

import time
from dataclasses import replace

import pytest

from facturador.issued import SalesDocument
from facturador.render.pdf import (
    MAX_A4_PAGES,
    MAX_NOTE,
    MAX_RECEIPT_LINES,
    MAX_TEXT,
    RenderCancelled,
    render_pdf,
)
from tests.facturador.render.pdf_probes import DIGEST, page_count, pdf_strings
from tests.samples.documents import PRINTED_COMPANY, printed_factura, printed_line

WORDS = "Descripción ampliada del artículo con medidas y número de serie "
#: CPU seconds a render of the largest document may take (measured: ~0.6 s). The bound catches a render
#: that grows without limit; it counts this thread's CPU time, which other work on a busy machine does
#: not inflate (wall time did: 7.5 s with five test runs sharing two cores).
TIME_LIMIT = 6.0


def _text(length: int) -> str:
    return (WORDS * (length // len(WORDS) + 1))[:length]


def big_document(lines: int, text: int, information: int) -> SalesDocument:
    customer = replace(PRINTED_COMPANY, name=("CLIENTE " * 400)[:1500], address=("Av. Lima " * 200)[:1000])
    rows = tuple(printed_line(i, _text(text)) for i in range(1, lines + 1))
    return printed_factura(rows, additional_information=_text(information), customer=customer)


def timed(doc: SalesDocument, fmt: str) -> tuple[bytes, float]:
    start = time.thread_time()
    pdf = render_pdf(doc, digest_value=DIGEST, qr_text="qr", fmt=fmt)
    return pdf, time.thread_time() - start


@pytest.mark.parametrize(("lines", "text", "information"), [(1000, 500, 5000), (5000, 2000, 100_000)])
def test_the_a4_of_the_largest_document_is_bounded(lines: int, text: int, information: int) -> None:
    pdf, seconds = timed(big_document(lines, text, information), "a4")
    assert seconds < TIME_LIMIT
    assert page_count(pdf) <= MAX_A4_PAGES + 2
    assert len(pdf) < 1_000_000
    printed = pdf_strings(pdf)
    assert "línea(s) más, que no se imprimen: el XML firmado las detalla todas." in printed
    assert "IMPORTE TOTAL" in printed  # the totals and the QR still close the document


@pytest.mark.parametrize("fmt", ["ticket", "ticket_58"])
def test_the_ticket_of_the_largest_document_is_bounded(fmt: str) -> None:
    pdf, seconds = timed(big_document(1000, 500, 5000), fmt)
    assert seconds < TIME_LIMIT
    assert page_count(pdf) <= 3
    printed = pdf_strings(pdf)
    assert f"... y {1000 - MAX_RECEIPT_LINES} línea(s) más: vea la representación A4 o el XML." in printed
    assert "IMPORTE TOTAL" in printed


def test_long_texts_are_printed_up_to_their_bound() -> None:
    def letters(description: str, information: str) -> str:
        doc = replace(big_document(1, 10, 0), additional_information=information)
        doc = replace(doc, lines=(printed_line(1, description),))
        return pdf_strings(render_pdf(doc, digest_value=DIGEST, qr_text="qr")).replace(" ", "")

    base = letters("x", "")
    printed = letters("q" * (MAX_TEXT - 1) + "k" * 1000, "z" * 3000)
    assert printed.count("q") - base.count("q") == MAX_TEXT - 3  # cut, and "..." takes the last three
    assert printed.count("k") == base.count("k")
    # the note is counted inside its own paragraph: the page footer ("validez") repeats per page
    note = printed.split("Observaciones:", 1)[1].split("...", 1)[0]
    assert set(note) == {"z"} and len(note) == MAX_NOTE - len("Observaciones: ") - 3


def test_a_document_within_the_bounds_prints_every_line() -> None:
    pdf = render_pdf(big_document(120, 200, 500), digest_value=DIGEST, qr_text="qr")
    printed = pdf_strings(pdf)
    assert "más, que no se imprimen" not in printed
    assert printed.count("NIU") == 120


@pytest.mark.parametrize("fmt", ["a4", "ticket"])
def test_a_cancelled_rendering_stops(fmt: str) -> None:
    doc = big_document(1000, 500, 5000)
    with pytest.raises(RenderCancelled):
        render_pdf(doc, digest_value=DIGEST, qr_text="qr", fmt=fmt, cancelled=lambda: True)
    asked = []

    def after_a_few() -> bool:
        asked.append(1)
        return len(asked) > 3

    start = time.thread_time()
    with pytest.raises(RenderCancelled):
        render_pdf(doc, digest_value=DIGEST, qr_text="qr", fmt=fmt, cancelled=after_a_few)
    assert time.thread_time() - start < TIME_LIMIT / 2
    assert len(asked) == 4
