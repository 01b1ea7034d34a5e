"""The A4 printed representation of a dispatch guide (09 remitente, 31 transportista).

Header with the issuer and the guide's number, the transfer (dates, reason, mode, weight, packages), the
places, the parties (recipient, carrier, sender), drivers and vehicles, the lines, the related documents,
the hash and - once SUNAT accepted the guide - the QR of the URL its CDR gives.
"""

from __future__ import annotations

from fpdf import FPDF
from fpdf.enums import XPos, YPos

from facturador.issued import Dispatch, DispatchParty
from sunat import catalogs
from sunat.ubigeo import describe_ubigeo

from .pdf import pdf_text
from .qr import qr_png

__all__ = ["render_despatch_pdf"]

_M = 12.0
_FONT = "Helvetica"
_TITLES = {"09": "GUÍA DE REMISIÓN ELECTRÓNICA REMITENTE", "31": "GUÍA DE REMISIÓN ELECTRÓNICA TRANSPORTISTA"}


def _place(ubigeo: str, address: str) -> str:
    names = describe_ubigeo(ubigeo)
    where = " - ".join(names) if names else ""
    return f"{address} ({ubigeo}{' ' + where if where else ''})"


def _party(party: DispatchParty | None) -> str:
    if party is None:
        return "-"
    kind = catalogs.IDENTITY_TYPES.get(party.identity_type, party.identity_type)
    return f"{party.name} - {kind.split(' ')[0]} {party.number}"


class _Guide(FPDF):
    def __init__(self, dispatch: Dispatch) -> None:
        super().__init__(orientation="P", unit="mm", format="A4")
        self.dispatch = dispatch
        self.set_margins(_M, _M, _M)
        self.set_auto_page_break(True, margin=16)
        self.set_title(pdf_text(f"{dispatch.filename}"))
        self.alias_nb_pages()

    def footer(self) -> None:
        self.set_y(-12)
        self.set_font(_FONT, "", 7.5)
        title = _TITLES[self.dispatch.doc_type].lower().replace("guía", "Guía")
        self.cell(0, 4, pdf_text(f"Representación impresa de la {title}"))
        self.cell(0, 4, f"Página {self.page_no()} de {{nb}}", align="R")

    def text_row(self, label: str, value: str) -> None:
        self.set_font(_FONT, "B", 8.5)
        self.cell(45, 5, pdf_text(label))
        self.set_font(_FONT, "", 8.5)
        self.multi_cell(0, 5, pdf_text(value), new_x=XPos.LMARGIN, new_y=YPos.NEXT)

    def section(self, title: str) -> None:
        self.ln(2)
        self.set_font(_FONT, "B", 9)
        self.set_fill_color(230)
        self.cell(0, 6, pdf_text(title), fill=True, new_x=XPos.LMARGIN, new_y=YPos.NEXT)
        self.ln(1)


def render_despatch_pdf(dispatch: Dispatch, digest_value: str, qr_url: str = "") -> bytes:
    """The guide's A4 PDF; ``qr_url`` (the CDR's QR link) is printed as a QR code when given."""
    pdf = _Guide(dispatch)
    pdf.add_page()
    d = dispatch
    box_w = 75.0
    pdf.set_font(_FONT, "B", 12)
    pdf.multi_cell(pdf.epw - box_w - 4, 6, pdf_text(d.issuer.name), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    pdf.set_font(_FONT, "", 8.5)
    pdf.multi_cell(pdf.epw - box_w - 4, 4.5, pdf_text(d.issuer.address or "-"))
    top = _M
    pdf.set_xy(pdf.w - _M - box_w, top)
    pdf.set_font(_FONT, "B", 11)
    pdf.multi_cell(
        box_w,
        6,
        pdf_text(f"RUC {d.issuer.ruc}\n{_TITLES[d.doc_type]}\n{d.document_id}"),
        border=1,
        align="C",
        new_x=XPos.LMARGIN,
        new_y=YPos.NEXT,
    )
    pdf.set_y(max(pdf.get_y(), top + 24))
    pdf.section("Datos del traslado")
    pdf.text_row("Fecha de emisión", f"{d.issue_date:%d/%m/%Y} {d.issue_time:%H:%M:%S}")
    pdf.text_row("Inicio del traslado", f"{d.start_date:%d/%m/%Y}")
    if d.doc_type == "09":
        reason = catalogs.TRANSFER_REASONS.get(d.transfer_reason, d.transfer_reason)
        pdf.text_row("Motivo de traslado", f"{d.transfer_reason} - {d.transfer_description or reason}")
        pdf.text_row(
            "Modalidad", f"{d.transport_mode} - {catalogs.TRANSPORT_MODES.get(d.transport_mode, '')}"
        )
    pdf.text_row("Peso bruto total", f"{d.gross_weight} {d.weight_unit}")
    if d.packages:
        pdf.text_row("Número de bultos", str(d.packages))
    pdf.text_row("Punto de partida", _place(d.origin.ubigeo, d.origin.address))
    pdf.text_row("Punto de llegada", _place(d.delivery.ubigeo, d.delivery.address))
    pdf.section("Participantes")
    pdf.text_row("Destinatario", _party(d.customer))
    if d.doc_type == "31":
        pdf.text_row("Remitente", _party(d.sender))
        if d.issuer_mtc:
            pdf.text_row("Registro MTC", d.issuer_mtc)
    if d.carrier is not None:
        pdf.text_row(
            "Transportista", _party(d.carrier) + (f" - MTC {d.carrier.mtc}" if d.carrier.mtc else "")
        )
    for driver in d.drivers:
        role = "Conductor" if driver.principal else "Conductor secundario"
        pdf.text_row(
            role, f"{driver.family_name}, {driver.first_name} - {driver.number} - Lic. {driver.licence}"
        )
    for index, plate in enumerate(d.vehicles):
        pdf.text_row("Vehículo" if index == 0 else "Vehículo secundario", plate)
    if d.related:
        pdf.section("Documentos relacionados")
        for related in d.related:
            name = catalogs.GRE_RELATED_DOCUMENTS.get(related.doc_type, (related.description, ()))[0]
            pdf.text_row(
                name, f"{related.number}{' - RUC ' + related.issuer_ruc if related.issuer_ruc else ''}"
            )
    pdf.section("Bienes trasladados")
    widths = (12.0, 28.0, pdf.epw - 12 - 28 - 22 - 18, 22.0, 18.0)
    pdf.set_font(_FONT, "B", 8)
    for width, title in zip(widths, ("N°", "Código", "Descripción", "Cantidad", "Unidad"), strict=True):
        pdf.cell(width, 6, pdf_text(title), border=1, align="C")
    pdf.ln()
    pdf.set_font(_FONT, "", 8)
    for index, line in enumerate(d.lines, start=1):
        cells = (str(index), line.code, line.description, f"{line.quantity.normalize():f}", line.unit)
        for width, text in zip(widths, cells, strict=True):
            pdf.cell(width, 5.5, pdf_text(text)[: int(width * 1.1)], border=1)
        pdf.ln()
    if d.note:
        pdf.section("Observaciones")
        pdf.set_font(_FONT, "", 8.5)
        pdf.multi_cell(0, 4.5, pdf_text(d.note), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    pdf.ln(3)
    y = pdf.get_y()
    if qr_url:
        if y + 32 > pdf.h - 16:
            pdf.add_page()
            y = pdf.get_y()
        pdf.image(qr_png(qr_url, scale=4, border=2), x=_M, y=y, w=30, h=30)
        pdf.set_xy(_M + 34, y + 4)
    pdf.set_font(_FONT, "", 8)
    pdf.multi_cell(0, 4.5, pdf_text(f"Hash: {digest_value}"), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    if qr_url:
        pdf.set_x(_M + 34)
        pdf.multi_cell(0, 4, pdf_text(f"Consulte la guía en: {qr_url}"), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    return bytes(pdf.output())
