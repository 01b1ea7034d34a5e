"""The printed detraction and instalments: A4 and tickets, long instalment plans over several pages."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, timedelta
from decimal import Decimal

import pytest

from facturador.issued import Detraction, Instalment, SalesDocument
from facturador.render.pdf import render_pdf
from facturador.render.qr import qr_text
from tests.facturador.render.pdf_probes import DIGEST, page_count, pdf_strings
from tests.samples.documents import printed_factura

ALL_FORMATS = ["a4", "ticket", "ticket_58"]
D = Decimal
DETRACTION_12 = Detraction(
    code="037", percent=D("12"), amount=D("14.16"), payment_means="001", account="00-068-123456"
)
CUOTAS = (Instalment(date(2024, 6, 13), D("51.92")), Instalment(date(2024, 7, 13), D("51.92")))


def render(doc: SalesDocument, fmt: str = "a4") -> bytes:
    return render_pdf(doc, digest_value=DIGEST, qr_text=qr_text(doc, DIGEST), fmt=fmt)


def with_blocks(
    detraction: Detraction | None = None, instalments: tuple[Instalment, ...] = ()
) -> SalesDocument:
    doc = printed_factura(operation_type="1001" if detraction else "0101")
    form = "Credito" if instalments else "Contado"
    return replace(doc, payment_form=form, detraction=detraction, instalments=instalments)


@pytest.mark.parametrize("fmt", ALL_FORMATS)
def test_detraction(fmt: str) -> None:
    text = pdf_strings(render(with_blocks(detraction=DETRACTION_12), fmt))
    for expected in (
        "OPERACIÓN SUJETA A DETRACCIÓN",
        "037 - Demás servicios gravados con el IGV",
        "12%",
        "S/ 14.16",
        "001 - Depósito en cuenta",
        "00-068-123456",
        "Forma de pago: Contado",
    ):
        assert expected in text, expected
    assert "Monto neto pendiente" not in text


@pytest.mark.parametrize("fmt", ALL_FORMATS)
def test_instalments(fmt: str) -> None:
    pdf = render(with_blocks(detraction=DETRACTION_12, instalments=CUOTAS), fmt)
    assert page_count(pdf) == 1
    text = pdf_strings(pdf)
    for expected in (
        "Forma de pago: Crédito",
        "Monto neto pendiente de pago: S/ 103.84",
        "001",
        "13/06/2024",
        "002",
        "13/07/2024",
        "51.92",
        "S/ 14.16",
    ):
        assert expected in text, expected


def test_a4_instalment_table_has_headings() -> None:
    text = pdf_strings(render(with_blocks(instalments=CUOTAS)))
    assert "N° CUOTA FECHA DE VENCIMIENTO MONTO 001 13/06/2024 S/ 51.92 002 13/07/2024 S/ 51.92" in text
    assert "DETRACCIÓN" not in text


def test_usd_instalments_show_dollars_and_the_detraction_soles() -> None:
    doc = replace(with_blocks(detraction=DETRACTION_12, instalments=CUOTAS), currency="USD")
    text = pdf_strings(render(doc))
    assert "US$ 51.92" in text and "Monto neto pendiente de pago: US$ 103.84" in text
    assert "S/ 14.16" in text


def test_long_instalment_plan_continues_on_the_next_page_with_headings() -> None:
    cuotas = tuple(Instalment(date(2024, 6, 13) + timedelta(days=30 * i), D("1.00")) for i in range(80))
    pdf = render(with_blocks(instalments=cuotas))
    assert page_count(pdf) >= 2
    text = pdf_strings(pdf)
    assert text.count("N° CUOTA") >= 2
    assert "080" in text


def test_without_blocks_nothing_is_printed(factura: SalesDocument) -> None:
    text = pdf_strings(render(factura))
    for absent in ("DETRACCIÓN", "N° CUOTA", "Monto neto pendiente"):
        assert absent not in text
