"""The printed representation: A4 and ticket PDFs."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import pytest

from facturador.issued import Party, SalesDocument
from facturador.render.pdf import render_pdf
from facturador.render.qr import qr_text
from tests.facturador.render.pdf_probes import DIGEST, page_count, pdf_strings, pdf_text
from tests.samples.documents import printed_line

ALL_FORMATS = ["a4", "ticket", "ticket_80", "ticket_58"]
MM = 72 / 25.4


def render(doc: SalesDocument, fmt: str = "a4") -> bytes:
    return render_pdf(doc, digest_value=DIGEST, qr_text=qr_text(doc, DIGEST), fmt=fmt)


def media_boxes(pdf: bytes) -> list[tuple[float, float]]:
    """(width, height) in points of every page."""
    boxes = re.findall(rb"/MediaBox\s*\[\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*\]", pdf)
    return [(float(x1) - float(x0), float(y1) - float(y0)) for x0, y0, x1, y1 in boxes]


@pytest.mark.parametrize("fmt", ALL_FORMATS)
def test_small_document_is_one_page_pdf(factura_full: SalesDocument, fmt: str) -> None:
    pdf = render(factura_full, fmt)
    assert pdf.startswith(b"%PDF-")
    assert pdf.rstrip().endswith(b"%%EOF")
    assert page_count(pdf) == 1
    assert b"/Subtype /Image" in pdf  # the QR


@pytest.mark.parametrize("fmt", ALL_FORMATS)
def test_content(factura_full: SalesDocument, fmt: str) -> None:
    text = pdf_strings(render(factura_full, fmt))
    for expected in (
        "ACME PERÚ S.A.C.",
        "Acme",
        "20100066603",
        "Av. José Larco 1232, Of. 501",
        "FACTURA ELECTRÓNICA",
        "F001-123",
        "14/05/2024",
        "10:30:15",
        "13/06/2024",
        "SOLES",
        "OC-2024-0042",
        "RUC",
        "20601030013",
        "COMERCIALIZADORA ÑAÑEZ & ASOCIADOS E.I.R.L.",
        "Jr. Cusco 245",
        "Servicio de mantenimiento preventivo de laptop",
        "Mouse inalámbrico (bonificación)",
        "Bolsa plástica",
        "59.00",
        "118.00",
        "GRATUITO",
        "OP. GRAVADAS",
        "100.10",
        "OP. GRATUITAS",
        "10.00",
        "IGV (18%)",
        "18.02",
        "ICBPER",
        "0.50",
        "IMPORTE TOTAL",
        "118.62",
        "SON: CIENTO DIECIOCHO CON 62/100 SOLES",
        "TRANSFERENCIA GRATUITA",
        f"Resumen: {DIGEST}",
        "Representación impresa de la FACTURA ELECTRÓNICA",
    ):
        assert expected in text, expected
    # zero totals other than gravadas / IGV / total are left out
    for absent in ("OP. EXONERADAS", "OP. INAFECTAS", "OP. EXPORTACI"):
        assert absent not in text


def test_only_non_zero_optional_totals(factura: SalesDocument) -> None:
    text = pdf_strings(render(factura))
    assert "SON: CIENTO DIECIOCHO CON 00/100 SOLES" in text
    for present in ("OP. GRAVADAS", "100.00", "IGV (18%)", "18.00", "IMPORTE TOTAL", "118.00"):
        assert present in text
    for absent in ("OP. GRATUITAS", "ICBPER", "OP. EXONERADAS", "GRATUITO"):
        assert absent not in text
    totals = replace(
        factura.totals, exonerated=Decimal("5"), unaffected=Decimal("3"), export=Decimal("1234.5")
    )
    text = pdf_strings(render(replace(factura, totals=totals)))
    for present in ("OP. EXONERADAS", "5.00", "OP. INAFECTAS", "3.00", "OP. EXPORTACIÓN", "1,234.50"):
        assert present in text


@pytest.mark.parametrize("fmt", ["a4", "ticket"])
def test_boleta(boleta: SalesDocument, fmt: str) -> None:
    text = pdf_strings(render(boleta, fmt))
    for expected in (
        "BOLETA DE VENTA ELECTRÓNICA",
        "B001-45",
        "DNI",
        "45678912",
        "María Fernández Quispe",
        "Representación impresa de la BOLETA DE VENTA ELECTRÓNICA",
    ):
        assert expected in text, expected
    assert "Fecha de vencimiento" not in text


def test_boleta_for_unidentified_buyer(boleta: SalesDocument) -> None:
    doc = replace(boleta, customer=Party(identity_type="-", number="", name="CLIENTES VARIOS"))
    assert "CLIENTES VARIOS" in pdf_strings(render(doc))


@pytest.mark.parametrize("fmt", ["a4", "ticket_58"])
def test_credit_note(credit_note: SalesDocument, fmt: str) -> None:
    text = pdf_strings(render(credit_note, fmt))
    for expected in (
        "NOTA DE CRÉDITO ELECTRÓNICA",
        "FC01-7",
        "Documento que modifica",
        "FACTURA ELECTRÓNICA F001-123",
        "01 - Anulación de la operación",
        "Anulación por error en el monto",
        "Representación impresa de la NOTA DE CRÉDITO ELECTRÓNICA",
    ):
        assert expected in text, expected


def test_debit_note(credit_note: SalesDocument) -> None:
    assert credit_note.note is not None
    note = replace(credit_note.note, type_code="02", reason="Ajuste de precio")
    text = pdf_strings(render(replace(credit_note, doc_type="08", series="FD01", note=note)))
    for expected in ("NOTA DE DÉBITO ELECTRÓNICA", "FD01-7", "02 - Aumento en el valor", "Ajuste de precio"):
        assert expected in text, expected


def test_many_lines_on_a4_repeat_the_header(many_lines: Callable[[int], SalesDocument]) -> None:
    pdf = render(many_lines(120))
    pages = page_count(pdf)
    assert pages >= 3
    text = pdf_strings(pdf)
    assert text.count("DESCRIPCIÓN") == pages  # the table headings on every page
    assert text.count("F001-123") >= pages  # the document number on every page
    assert f"Página {pages} de {pages}" in text
    assert "Artículo de prueba número 1" in text and "Artículo de prueba número 120" in text
    assert "SON: CATORCE MIL CIENTO SESENTA CON 00/100 SOLES" in text
    assert all(box == pytest.approx((210 * MM, 297 * MM), abs=0.1) for box in media_boxes(pdf))


@pytest.mark.parametrize(("fmt", "width_mm"), [("ticket", 80), ("ticket_80", 80), ("ticket_58", 58)])
def test_ticket_is_one_roll_page_that_grows(
    factura: SalesDocument, many_lines: Callable[[int], SalesDocument], fmt: str, width_mm: int
) -> None:
    (small,) = media_boxes(render(factura, fmt))
    long_pdf = render(many_lines(120), fmt)
    assert page_count(long_pdf) == 1
    (large,) = media_boxes(long_pdf)
    assert small[0] == pytest.approx(width_mm * MM, abs=0.1) == large[0]
    assert 100 * MM < small[1] < 297 * MM
    assert large[1] > small[1] + 120 * 5 * MM


def test_long_descriptions_wrap(factura: SalesDocument) -> None:
    words = " ".join(f"palabra{i}" for i in range(50))  # 440 characters: within SUNAT's 500
    doc = replace(factura, lines=(printed_line(1, words), printed_line(2, "X" * 400)))
    for fmt in ("a4", "ticket"):
        pdf = render(doc, fmt)
        assert words in pdf_strings(pdf)  # every word is printed ...
        raw = pdf_text(pdf)
        assert words not in raw and "palabra0 palabra1" in raw  # ... over several lines
        assert "X" * 400 not in raw and "X" * 20 in raw  # a word longer than the column is cut


def test_characters_outside_cp1252_are_replaced(factura: SalesDocument) -> None:
    doc = replace(factura, lines=(printed_line(1, "Té “verde” – 10 € 漢字 😀 Łódź ő"),))
    text = pdf_strings(render(doc))
    assert "Té “verde” – 10 € ?? ? ?ódz o" in text


@pytest.mark.parametrize("fmt", ["A5", "ticket_99", "", "pdf"])
def test_unknown_format_raises(factura: SalesDocument, fmt: str) -> None:
    with pytest.raises(ValueError, match="format"):
        render(factura, fmt)


def test_format_names_are_case_insensitive(factura: SalesDocument) -> None:
    assert page_count(render(factura, "A4")) == 1
    assert page_count(render(factura, "Ticket_58")) == 1


@pytest.mark.parametrize("fmt", ["a4", "ticket"])
def test_deterministic(factura_full: SalesDocument, fmt: str) -> None:
    assert render(factura_full, fmt) == render(factura_full, fmt)


def test_usd_document(factura: SalesDocument) -> None:
    text = pdf_strings(render(replace(factura, currency="USD")))
    assert "US$" in text
    assert "SON: CIENTO DIECIOCHO CON 00/100 DÓLARES AMERICANOS" in text


@pytest.mark.parametrize("fmt", ["a4", "ticket_58"])
def test_usd_document_prints_its_exchange_rate(factura: SalesDocument, fmt: str) -> None:
    text = pdf_strings(render(replace(factura, currency="USD", exchange_rate=Decimal("3.7450")), fmt))
    assert "Tipo de cambio: S/ 3.745 por USD" in text or "Tipo de cambio S/ 3.745 por USD" in text
    assert "Tipo de cambio" not in pdf_strings(render(factura, fmt))  # soles: no rate


@pytest.mark.parametrize("fmt", ["a4", "ticket"])
def test_every_pdf_says_where_to_check_it_at_sunat(factura: SalesDocument, fmt: str) -> None:
    text = pdf_strings(render(factura, fmt)).replace(" ", "")  # a narrow roll may wrap the address
    assert "ConsulteSUvalidezenSUNAT:".lower() in text.lower()
    assert "https://e-consulta.sunat.gob.pe/ol-ti-itconsvalicpe/ConsValiCpe.htm" in text


@pytest.mark.parametrize("fmt", ["a4", "ticket"])
@pytest.mark.parametrize("mark", ["ANULADO", "RECHAZADO"])
def test_voided_and_rejected_documents_carry_their_mark(factura: SalesDocument, fmt: str, mark: str) -> None:
    plain = render(factura, fmt)
    marked = render_pdf(factura, digest_value=DIGEST, qr_text=qr_text(factura, DIGEST), fmt=fmt, mark=mark)
    assert f"({mark}) Tj" in pdf_text(marked) and mark not in pdf_text(plain)
    assert page_count(marked) == page_count(plain)


def test_the_mark_repeats_on_every_a4_page(many_lines: Callable[[int], SalesDocument]) -> None:
    doc = many_lines(80)
    pdf = render_pdf(doc, digest_value=DIGEST, qr_text=qr_text(doc, DIGEST), mark="ANULADO")
    assert page_count(pdf) >= 2 and pdf_text(pdf).count("(ANULADO) Tj") == page_count(pdf)


@pytest.mark.skipif(
    shutil.which("pdftoppm") is None or shutil.which("zbarimg") is None,
    reason="poppler-utils and zbar-tools not installed",
)
@pytest.mark.parametrize(("fmt", "dpi"), [("a4", 150), ("ticket", 203), ("ticket_58", 203)])
def test_printed_qr_scans(factura_full: SalesDocument, tmp_path: Path, fmt: str, dpi: int) -> None:
    (tmp_path / "doc.pdf").write_bytes(render(factura_full, fmt))
    subprocess.run(
        ["pdftoppm", "-r", str(dpi), "-png", "-singlefile", "doc.pdf", "page"], cwd=tmp_path, check=True
    )
    result = subprocess.run(
        ["zbarimg", "--raw", "-q", str(tmp_path / "page.png")], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == qr_text(factura_full, DIGEST)
