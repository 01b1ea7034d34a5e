"""The printed representation of a retention (20) or perception (40): one A4 page (more when many
payments) with fpdf2's core Helvetica, like the sales documents' PDF (cp1252 text, no font file)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from decimal import Decimal

from fpdf import FPDF
from fpdf.enums import XPos, YPos

from facturador.render.pdf import pdf_text
from sunat.money import fmt2

__all__ = ["OtherDocumentView", "render_other_pdf"]

TITLES = {"20": "COMPROBANTE DE RETENCIÓN ELECTRÓNICO", "40": "COMPROBANTE DE PERCEPCIÓN ELECTRÓNICO"}
_PARTY = {"20": "Proveedor", "40": "Cliente"}
_AMOUNT = {"20": "Retenido", "40": "Percibido"}
_NET = {"20": "Neto pagado", "40": "Total cobrado"}


@dataclass(frozen=True)
class OtherDocumentView:
    """What the PDF prints: the issuer, the receiver, the regime and each payment's amounts (text)."""

    doc_type: str
    issuer_ruc: str
    issuer_name: str
    issuer_address: str
    number: str
    issue_date: date
    party_type: str
    party_number: str
    party_name: str
    regime: str
    percent: Decimal
    total: Decimal
    total_net: Decimal
    digest_value: str
    lines: Sequence[Mapping[str, str]]  # document, issue_date, currency, total, payment, amount, net
    note: str = ""


def render_other_pdf(view: OtherDocumentView) -> bytes:
    """The A4 PDF of a retention or perception."""
    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(True, margin=15)
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 12)
    pdf.cell(120, 7, pdf_text(view.issuer_name)[:60], new_x=XPos.RIGHT, new_y=YPos.TOP)
    pdf.set_font("Helvetica", "B", 10)
    pdf.multi_cell(
        70,
        6,
        pdf_text(f"R.U.C. {view.issuer_ruc}\n{TITLES[view.doc_type]}\n{view.number}"),
        border=1,
        align="C",
    )
    pdf.set_font("Helvetica", "", 9)
    pdf.cell(0, 5, pdf_text(view.issuer_address)[:110], new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    pdf.ln(3)
    rows = (
        (_PARTY[view.doc_type], f"{view.party_name} ({view.party_type}-{view.party_number})"),
        ("Fecha de emisión", view.issue_date.strftime("%d/%m/%Y")),
        ("Régimen", f"{view.regime} - tasa {view.percent.normalize():f} %"),
    )
    for label, value in rows:
        pdf.set_font("Helvetica", "B", 9)
        pdf.cell(40, 5, pdf_text(label), new_x=XPos.RIGHT, new_y=YPos.TOP)
        pdf.set_font("Helvetica", "", 9)
        pdf.cell(0, 5, pdf_text(value)[:100], new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    pdf.ln(3)
    headings = (
        "Documento",
        "Emisión",
        "Moneda",
        "Total",
        "Pago",
        _AMOUNT[view.doc_type],
        _NET[view.doc_type],
    )
    widths = (34, 22, 16, 28, 28, 28, 34)
    pdf.set_font("Helvetica", "B", 8)
    for heading, width in zip(headings, widths, strict=True):
        pdf.cell(width, 6, pdf_text(heading), border=1, align="C", new_x=XPos.RIGHT, new_y=YPos.TOP)
    pdf.ln(6)
    pdf.set_font("Helvetica", "", 8)
    keys = ("document", "issue_date", "currency", "total", "payment", "amount", "net")
    for line in view.lines:
        for key, width in zip(keys, widths, strict=True):
            align = "R" if key in ("total", "payment", "amount", "net") else "L"
            pdf.cell(
                width,
                5,
                pdf_text(line.get(key, ""))[:20],
                border=1,
                align=align,
                new_x=XPos.RIGHT,
                new_y=YPos.TOP,
            )
        pdf.ln(5)
    pdf.ln(3)
    pdf.set_font("Helvetica", "B", 9)
    pdf.cell(
        0,
        5,
        pdf_text(f"Total {_AMOUNT[view.doc_type].lower()}: S/ {fmt2(view.total)}"),
        align="R",
        new_x=XPos.LMARGIN,
        new_y=YPos.NEXT,
    )
    pdf.cell(
        0,
        5,
        pdf_text(f"{_NET[view.doc_type]}: S/ {fmt2(view.total_net)}"),
        align="R",
        new_x=XPos.LMARGIN,
        new_y=YPos.NEXT,
    )
    pdf.set_font("Helvetica", "", 8)
    if view.note:
        pdf.multi_cell(0, 4, pdf_text(f"Observaciones: {view.note}")[:500])
    pdf.ln(2)
    pdf.cell(0, 4, pdf_text(f"Resumen: {view.digest_value}"), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    pdf.cell(
        0,
        4,
        pdf_text(f"Representación impresa del {TITLES[view.doc_type].lower()}"),
        new_x=XPos.LMARGIN,
        new_y=YPos.NEXT,
    )
    # deterministic output: the creation date is the issue date (Lima)
    pdf.set_creation_date(datetime.combine(view.issue_date, time(), tzinfo=timezone(timedelta(hours=-5))))
    return bytes(pdf.output())
