"""The printed representation (``representación impresa``) of a sales document as PDF, with fpdf2.

Two layouts:

* ``"a4"``: portrait A4; the issuer and a boxed "R.U.C. / title / SERIE-NUMERO" on top, customer and
  document data, the lines table (the table headings and a compact header repeat on every page), then
  the amount in words, the QR with the hash and the totals box, and last the payment terms when the
  sale has them (the detraction, the instalments of a sale on credit). Every page has the footer
  "Representación impresa de la ..." and "Página n de N".
* the receipt on a roll of paper, 80 mm wide (``"ticket"`` or ``"ticket_80"``, as clients name it) or 58 mm
  (``"ticket_58"``): one page whose height follows the content (laid out twice: once to measure, once for
  real).

Fonts: fpdf2's core Helvetica, written with ``WinAnsiEncoding`` (cp1252), so no font file is shipped or
embedded and rendering stays fast. cp1252 covers Spanish (á é í ó ú ñ Ñ ü ¿ ¡ °) plus € and typographic
quotes/dashes; any other character is reduced to its unaccented base letter when it has one
(``ő`` → ``o``) or replaced with ``?``. Output is deterministic for a given document and fpdf2 version
(the PDF creation date is the issue date and time in Lima's time zone).
"""

from __future__ import annotations

import io
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal

from fpdf import FPDF
from fpdf.enums import XPos, YPos

from facturador.issued import AllowanceCharge, Line, SalesDocument
from facturador.render.qr import qr_png
from sunat.catalogs import (
    CHARGE_DISCOUNT_TYPES,
    CREDIT_NOTE_TYPES,
    CURRENCY_NAMES,
    DEBIT_NOTE_TYPES,
    DETRACTION_TYPES,
    DOCUMENT_TYPES,
    IDENTITY_TYPES,
    PAYMENT_MEANS,
    is_free,
)
from sunat.money import fmt2
from sunat.words import amount_in_words

__all__ = ["FORMATS", "TITLES", "RenderCancelled", "pdf_text", "render_pdf"]

#: Accepted ``fmt`` values and the page width they mean (``None`` = A4).
FORMATS: dict[str, float | None] = {"a4": None, "ticket": 80.0, "ticket_80": 80.0, "ticket_58": 58.0}

#: Printed title of each document type (catalog 01).
TITLES: dict[str, str] = {
    "01": "FACTURA ELECTRÓNICA",
    "03": "BOLETA DE VENTA ELECTRÓNICA",
    "07": "NOTA DE CRÉDITO ELECTRÓNICA",
    "08": "NOTA DE DÉBITO ELECTRÓNICA",
    "80": "NOTA DE VENTA",
    "COT": "COTIZACIÓN",
}

#: Bounds that keep the time and size of a rendering bounded whatever a document holds (the signed XML
#: carries every value in full; the printed representation says where it stops):
MAX_TEXT = (
    500  # characters printed of a description, name, address, reason or order (SUNAT's longest description)
)
MAX_NOTE = 2000  # characters printed of each legend and of the additional information
MAX_NOTES = 20  # legends printed
MAX_A4_PAGES = 100  # pages of the A4 lines table; the lines after it are counted in one closing row
MAX_RECEIPT_LINES = 200  # lines printed on a receipt; the rest are counted in one closing line
MAX_PRINTED_INSTALMENTS = 240  # instalments printed (20 years of monthly ones); the rest are counted

_CURRENCY_SYMBOLS = {"PEN": "S/", "USD": "US$", "EUR": "€"}
#: Where anyone checks a CPE against SUNAT's records (consulta de validez del comprobante electrónico).
SUNAT_CHECK_URL = "https://e-consulta.sunat.gob.pe/ol-ti-itconsvalicpe/ConsValiCpe.htm"
_PAYMENT_FORMS = {"Credito": "Crédito"}
_LIMA = timezone(timedelta(hours=-5), "America/Lima")
_FONT = "Helvetica"
_ENCODING = "cp1252"  # what fpdf2 declares for core fonts (WinAnsiEncoding)

_TEXT_FIXES = str.maketrans(
    {
        "\t": " ",
        "\r": None,
        "\u00a0": " ",
        "\u2009": " ",
        "\u200b": None,
        "\u2212": "-",
        "\u2010": "-",
        "\u2011": "-",
        "\u2032": "'",
        "\u2033": '"',
    }
)


# ----------------------------------------------------------------------------------------------------------
# text helpers


def pdf_text(value: object) -> str:
    """Text the core fonts can show (every PDF of the service writes its text through this): cp1252, base
    letters for other accented letters, ``?`` otherwise."""
    text = str(value).translate(_TEXT_FIXES)
    try:
        text.encode(_ENCODING)
    except UnicodeEncodeError:
        pass
    else:
        return _strip_controls(text)
    out = []
    for char in text:
        try:
            char.encode(_ENCODING)
            out.append(char)
            continue
        except UnicodeEncodeError:
            pass
        base = "".join(c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c))
        try:
            base.encode(_ENCODING)
            out.append(base or "?")
        except UnicodeEncodeError:
            out.append("?")
    return _strip_controls("".join(out))


def _strip_controls(text: str) -> str:
    if text.isprintable():
        return text
    return "".join(c if c == "\n" or c.isprintable() else " " for c in text)


class RenderCancelled(Exception):
    """The caller stopped waiting for the PDF (its client disconnected): rendering stopped."""


#: How often (in table rows) a rendering asks whether it was cancelled.
_CANCEL_CHECK_ROWS = 16


def _check(cancelled: Callable[[], bool] | None) -> None:
    if cancelled is not None and cancelled():
        raise RenderCancelled


def _cap(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, ending in ``...`` when cut."""
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def _price(amount: Decimal) -> str:
    """Unit prices: two decimals, more only when the value really has them (up to 10)."""
    if amount.normalize().as_tuple().exponent >= -2:  # type: ignore[operator]
        return fmt2(amount, grouped=True)
    return f"{amount.normalize():,f}"


def _quantity(quantity: Decimal) -> str:
    """``2.000`` -> ``"2"``, ``1.50`` -> ``"1.5"``."""
    return f"{quantity.normalize():f}"


def _date(value: date) -> str:
    """Peruvian printed dates: ``14/05/2024``."""
    return value.strftime("%d/%m/%Y")


def _clip(pdf: FPDF, text: str, width: float) -> str:
    """``text`` cut (with ``...``) to fit one cell of ``width`` at the current font."""
    if _fits(pdf, width, text):
        return text
    while text and not _fits(pdf, width, text + "..."):
        text = text[:-1]
    return text.rstrip() + "..."


# ----------------------------------------------------------------------------------------------------------
# what is printed, computed once per document


@dataclass
class _Row:
    quantity: str
    unit: str
    code: str
    description: str
    price: str
    total: str


@dataclass
class _Instalment:
    number: str
    due_date: str
    amount: str


@dataclass
class _View:
    """Every printed string of a document (already made safe for the core fonts) and the QR PNG."""

    title: str
    number: str
    issuer_name: str
    issuer_trade_name: str
    issuer_ruc: str
    issuer_address: str
    customer: list[tuple[str, str]]
    dates: list[tuple[str, str]]
    note: list[tuple[str, str]]
    rows: list[_Row]
    totals: list[tuple[str, str]]
    detraction: list[tuple[str, str]]  # label/value rows; empty without detraction
    credit: str  # "Forma de pago: Crédito - Monto neto pendiente de pago: S/ ..." or ""
    instalments: list[_Instalment]
    currency_symbol: str
    words: str
    notes: list[str]
    digest: str
    footer: str
    qr: bytes
    created: datetime
    check: str = ""  # where to check the document at SUNAT
    mark: str = ""  # ANULADO / RECHAZADO across every page, or ""


def _identity_row(code: str, number: str) -> tuple[str, str] | None:
    """``("RUC", "20601030013")``; long catalog names go into the value: ``("Doc. identidad", "...")``.

    ``None`` for an unidentified buyer (``-``) without a number: nothing to print.
    """
    if code in ("", "-") and number in ("", "-", "0"):
        return None
    name = IDENTITY_TYPES.get(code, code)
    if name and len(name) <= 12:
        return name, number or "-"
    return "Doc. identidad", " ".join(p for p in (name, number) if p) or "-"


def _note_type_name(doc: SalesDocument) -> str:
    assert doc.note is not None
    types = DEBIT_NOTE_TYPES if doc.doc_type == "08" else CREDIT_NOTE_TYPES
    name = types.get(doc.note.type_code, "")
    return f"{doc.note.type_code} - {name}" if name else doc.note.type_code


def _totals(doc: SalesDocument) -> list[tuple[str, str]]:
    t = doc.totals
    percents = {line.igv_percent.normalize() for line in doc.lines if line.affectation == "10"}
    igv_label = f"IGV ({next(iter(percents)):f}%)" if len(percents) == 1 else "IGV"
    rows: list[tuple[str, Decimal, bool]] = [
        ("OP. GRAVADAS", t.taxed, True),
        ("OP. EXONERADAS", t.exonerated, False),
        ("OP. INAFECTAS", t.unaffected, False),
        ("OP. EXPORTACIÓN", t.export, False),
        ("OP. GRATUITAS", t.free, False),
        ("ISC", t.isc, False),
        (igv_label, t.igv, True),
        ("Otros tributos", t.other, False),
        ("ICBPER", t.icbper, False),
    ]
    printed = [(label, fmt2(amount, grouped=True)) for label, amount, always in rows if always or amount]
    printed += [_allowance_row(allowance) for allowance in doc.allowances]
    printed += [(f"Anticipo {p.number}", f"-{fmt2(p.amount, grouped=True)}") for p in doc.prepayments]
    rows = [
        ("TOTAL DESCUENTOS", t.discounts, False),
        ("TOTAL CARGOS", t.charges, False),
        ("ANTICIPOS", t.prepaid, False),
        ("IMPORTE TOTAL", t.total, True),
    ]
    return printed + [
        (label, fmt2(amount, grouped=True)) for label, amount, always in rows if always or amount
    ]


_ALLOWANCE_LABEL = 28  # characters of a discount's or charge's description in the totals box


def _allowance_row(allowance: AllowanceCharge) -> tuple[str, str]:
    """A global discount (``-5.00``) or charge (``10.00``): its description, or catalog 53's name."""
    name = allowance.description.strip() or CHARGE_DISCOUNT_TYPES.get(allowance.code, allowance.code)
    kind = "Cargo" if allowance.is_charge else "Dscto."
    sign = "" if allowance.is_charge else "-"
    return (
        f"{kind} {allowance.code}: {_cap(name, _ALLOWANCE_LABEL)}",
        f"{sign}{fmt2(allowance.amount, grouped=True)}",
    )


def _described(line: Line) -> str:
    """The line's description with its discounts and charges: ``... [Dscto. 00 Volumen: -10.00]``."""
    text = line.description.strip()
    for allowance in line.allowances:
        label, value = _allowance_row(allowance)
        text += f" [{label}: {value}]"
    for prop in line.properties:
        shown = " - ".join(
            part
            for part in (
                prop.value,
                prop.start.strftime("%d/%m/%Y") if prop.start else "",
                prop.end.strftime("%d/%m/%Y") if prop.end else "",
                f"{prop.days.normalize():f} días" if prop.days is not None else "",
            )
            if part
        )
        text += f" [{prop.name.strip()}: {shown}]"
    return text


def _detraction_rows(doc: SalesDocument) -> list[tuple[str, str]]:
    """The detraction as printed: goods/service code and name, rate, amount in soles, means, account."""
    detraction = doc.detraction
    if detraction is None:
        return []
    goods = DETRACTION_TYPES.get(detraction.code)
    means = PAYMENT_MEANS.get(detraction.payment_means)
    return [
        ("Bien o servicio", f"{detraction.code} - {goods[0]}" if goods else detraction.code),
        ("Porcentaje", f"{detraction.percent.normalize():f}%"),
        ("Monto de la detracción", f"S/ {fmt2(detraction.amount, grouped=True)}"),
        ("Medio de pago", f"{detraction.payment_means} - {means}" if means else detraction.payment_means),
        ("Cta. Banco de la Nación", detraction.account),
        *_trip_rows(doc),
    ]


def _trip_rows(doc: SalesDocument) -> list[tuple[str, str]]:
    """The trip of a cargo transport detraction (operation 1004): detail, origin and destination
    (ubigeo - address) and the three reference values, in the document currency."""
    detraction = doc.detraction
    trip = detraction.trip if detraction is not None else None
    if trip is None:
        return []
    symbol = "S/" if doc.currency == "PEN" else ("US$" if doc.currency == "USD" else doc.currency)
    return [
        ("Detalle del viaje", _cap(trip.detail, MAX_TEXT)),
        ("Origen", _cap(f"{trip.origin_ubigeo} - {trip.origin_address}", MAX_TEXT)),
        ("Destino", _cap(f"{trip.destination_ubigeo} - {trip.destination_address}", MAX_TEXT)),
        ("V. ref. servicio de transporte", f"{symbol} {fmt2(trip.service_value, grouped=True)}"),
        ("V. ref. carga efectiva", f"{symbol} {fmt2(trip.effective_load_value, grouped=True)}"),
        ("V. ref. carga útil nominal", f"{symbol} {fmt2(trip.payload_value, grouped=True)}"),
    ]


def _line_row(line: Line) -> _Row:
    free = is_free(line.affectation)
    return _Row(
        quantity=_quantity(line.quantity),
        unit=pdf_text(line.unit),
        code=pdf_text(line.internal_code),
        description=pdf_text(_cap(_described(line), MAX_TEXT)),
        price=_price(line.unit_price),
        total="GRATUITO" if free else fmt2(line.total, grouped=True),
    )


def _view(doc: SalesDocument, digest_value: str, qr_text: str, mark: str = "") -> _View:
    title = TITLES.get(doc.doc_type, f"COMPROBANTE {doc.doc_type}")
    issuer = doc.issuer
    location = " - ".join(p for p in (issuer.district, issuer.province, issuer.department) if p)
    address = ", ".join(p for p in (issuer.address, location) if p)
    customer = doc.customer
    customer_rows = [("Señor(es)" if doc.doc_type != "03" else "Cliente", customer.name or "-")]
    identity = _identity_row(customer.identity_type, customer.number)
    if identity:
        customer_rows.append(identity)
    if customer.address:
        customer_rows.append(("Dirección", customer.address))
    dates = [
        ("Fecha de emisión", _date(doc.issue_date)),
        ("Hora de emisión", doc.issue_time.strftime("%H:%M:%S")),
    ]
    if doc.due_date:
        dates.append(("Fecha de vencimiento", _date(doc.due_date)))
    dates.append(("Moneda", str(CURRENCY_NAMES.get(doc.currency, doc.currency))))
    if doc.exchange_rate is not None and doc.currency != "PEN":
        dates.append(("Tipo de cambio", f"S/ {doc.exchange_rate.normalize():f} por {doc.currency}"))
    if doc.note is None and doc.payment_form:
        dates.append(("Forma de pago", _PAYMENT_FORMS.get(doc.payment_form, doc.payment_form)))
    if doc.purchase_order:
        dates.append(("Orden de compra", doc.purchase_order))
    note_rows: list[tuple[str, str]] = []
    if doc.note is not None:
        affected = doc.note.affected
        affected_title = TITLES.get(affected.doc_type) or DOCUMENT_TYPES.get(affected.doc_type, "").upper()
        note_rows = [
            ("Documento que modifica", f"{affected_title} {affected.full_number}"),
            ("Tipo de nota", _note_type_name(doc)),
            ("Motivo", doc.note.reason),
        ]
    notes = [legend.text for legend in doc.legends if legend.code != "1000" and legend.text][:MAX_NOTES]
    if doc.is_advance:
        notes.insert(0, "PAGO ANTICIPADO: este comprobante se deducirá de la factura final.")
    for label, withholding in (("Percepción", doc.perception), ("Retención", doc.retention)):
        if withholding is not None:
            notes.append(
                f"{label} {withholding.code} ({withholding.percent.normalize():f}%): "
                f"{fmt2(withholding.amount, grouped=True)} sobre {fmt2(withholding.base, grouped=True)}"
                + (
                    f" - total con percepción S/ {fmt2(withholding.base + withholding.amount, grouped=True)}"
                    if withholding.code != "62"
                    else ""
                )
            )
    if doc.payments:
        notes.append(
            "Pagos: "
            + "; ".join(
                f"{p.method_name} {fmt2(p.amount, grouped=True)}"
                + (f" (ref. {p.reference})" if p.reference else "")
                + ("" if p.destination == "cash" else f" a {p.destination}")
                for p in doc.payments
            )
        )
    if doc.guides:
        notes.append("Guías de remisión: " + ", ".join(f"{g.number} ({g.doc_type})" for g in doc.guides))
    if doc.related_documents:
        notes.append(
            "Documentos relacionados: "
            + ", ".join(
                f"{r.number} ({r.doc_type}{f', {fmt2(r.amount, grouped=True)}' if r.amount else ''})"
                for r in doc.related_documents
            )
        )
    if doc.additional_information:
        notes.append(f"Observaciones: {doc.additional_information}")
    notes = [_cap(note, MAX_NOTE) for note in notes]
    words = amount_in_words(doc.totals.total, doc.currency).strip()
    if not words.upper().startswith("SON"):
        words = f"SON: {words}"

    def pairs(rows: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
        return [(pdf_text(k), pdf_text(_cap(v, MAX_TEXT))) for k, v in rows]

    symbol = _CURRENCY_SYMBOLS.get(doc.currency, doc.currency)
    credit = ""
    if doc.instalments:
        credit = (
            f"Forma de pago: {_PAYMENT_FORMS['Credito']} - Monto neto pendiente de pago: "
            f"{symbol} {fmt2(doc.pending_amount, grouped=True)}"
        )
    instalments = [
        _Instalment(f"{n:03d}", _date(instalment.due_date), fmt2(instalment.amount, grouped=True))
        for n, instalment in enumerate(doc.instalments[:MAX_PRINTED_INSTALMENTS], start=1)
    ]
    if len(doc.instalments) > MAX_PRINTED_INSTALMENTS:
        instalments.append(
            _Instalment("...", f"y {len(doc.instalments) - MAX_PRINTED_INSTALMENTS} cuotas más", "")
        )

    return _View(
        title=pdf_text(title),
        number=pdf_text(doc.full_number),
        issuer_name=pdf_text(_cap(issuer.name, MAX_TEXT)),
        issuer_trade_name=pdf_text(_cap(issuer.trade_name, MAX_TEXT)),
        issuer_ruc=pdf_text(issuer.ruc),
        issuer_address=pdf_text(_cap(address, MAX_TEXT)),
        customer=pairs(customer_rows),
        dates=pairs(dates),
        note=pairs(note_rows),
        rows=[_line_row(line) for line in doc.lines],
        totals=pairs(_totals(doc)),
        detraction=pairs(_detraction_rows(doc)),
        credit=pdf_text(credit),
        instalments=instalments,
        currency_symbol=pdf_text(symbol),
        words=pdf_text(words),
        notes=[pdf_text(n) for n in notes],
        digest=pdf_text(digest_value),
        footer=pdf_text(f"Representación impresa de la {title}"),
        qr=qr_png(qr_text, scale=8, border=0),
        created=datetime.combine(doc.issue_date, doc.issue_time, tzinfo=_LIMA),
        check=pdf_text(f"Consulte su validez en SUNAT: {SUNAT_CHECK_URL}"),
        mark=pdf_text(mark.upper()),
    )


_MARK_COLOR = (200, 30, 30)


def _stamp(pdf: FPDF, mark: str, *, size: float, x: float, y: float) -> None:
    """``mark`` in large, translucent red capitals, rotated across the page around ``(x, y)``."""
    if not mark:
        return
    with pdf.local_context(fill_opacity=0.25, text_color=_MARK_COLOR, stroke_opacity=0.25):
        pdf.set_font(_FONT, "B", size)
        width = pdf.get_string_width(mark)
        with pdf.rotation(30, x, y):
            pdf.text(x - width / 2, y + size * 0.35 / 2.83, mark)


def _new_pdf(pdf: FPDF, view: _View) -> FPDF:
    pdf.core_fonts_encoding = _ENCODING
    pdf.set_title(f"{view.title} {view.number}")
    pdf.set_author(view.issuer_name)
    pdf.set_creator("facturador-kit")
    pdf.set_lang("es-PE")
    pdf.set_creation_date(view.created)
    return pdf


def _fits(pdf: FPDF, width: float, text: str) -> bool:
    """True when ``text`` is one line that fits a cell of ``width`` (cheap; avoids fpdf2's line breaker)."""
    return "\n" not in text and pdf.get_string_width(text) <= width - 2 * pdf.c_margin - 0.01


def _measurer(pdf: FPDF) -> Callable[[str], float]:
    """The width of a text at the current font: fpdf2's ``get_string_width`` without its per-call cost
    (it copies the font styles each time), from the core font's character widths."""
    widths = getattr(pdf.current_font, "cw", None)
    if not isinstance(widths, dict) or pdf.char_spacing or pdf.font_stretching != 100:
        return pdf.get_string_width
    scale = pdf.font_size_pt * 0.001 / pdf.k
    fallback = pdf.get_string_width

    def measure(text: str) -> float:
        try:
            return sum(widths[char] for char in text) * scale
        except KeyError:
            return fallback(text)

    return measure


def _wrap(pdf: FPDF, width: float, text: str) -> list[str]:
    """``text`` broken into the lines that fit a cell of ``width`` at the current font: at spaces, and
    inside a word only when the word alone is wider than the line; ``\n`` starts a new line.

    Linear in the length of the text (fpdf2's ``multi_cell`` measures each line again for every character
    it adds: quadratic, ~40 ms for one 500-character description).
    """
    room = width - 2 * pdf.c_margin - 0.01
    measure = _measurer(pdf)
    space = measure(" ")
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line: list[str] = []
        used = 0.0
        for word in paragraph.split(" "):
            if not word:
                continue
            size = measure(word)
            if size > room:  # a word longer than the line: cut it where it overflows
                if line:
                    lines.append(" ".join(line))
                    line, used = [], 0.0
                piece, piece_used = "", 0.0
                for char in word:
                    char_size = measure(char)
                    if piece and piece_used + char_size > room:
                        lines.append(piece)
                        piece, piece_used = "", 0.0
                    piece += char
                    piece_used += char_size
                line, used = [piece], piece_used
                continue
            if line and used + space + size > room:
                lines.append(" ".join(line))
                line, used = [], 0.0
            used += (space if line else 0.0) + size
            line.append(word)
        lines.append(" ".join(line))
    return lines


def _write(
    pdf: FPDF,
    width: float,
    height: float,
    text: str,
    align: str = "L",
    *,
    new_x: XPos = XPos.RIGHT,
    fill: bool = False,
) -> None:
    """Write ``text`` in cells of ``width``, one per wrapped line (see :func:`_wrap`); like ``multi_cell``,
    the position moves to the next line, ``new_x`` after the last one."""
    lines = [text] if _fits(pdf, width, text) else _wrap(pdf, width, text)
    x = pdf.get_x()
    for index, line in enumerate(lines):
        if index:
            pdf.set_x(x)
        last_x = new_x if index == len(lines) - 1 else XPos.LEFT
        pdf.cell(width, height, line, align=align, fill=fill, new_x=last_x, new_y=YPos.NEXT)


def _line_count(pdf: FPDF, width: float, text: str) -> int:
    """In how many lines :func:`_write` writes ``text`` at the current font."""
    if _fits(pdf, width, text):
        return 1
    return len(_wrap(pdf, width, text))


# ----------------------------------------------------------------------------------------------------------
# A4


_M = 10.0  # page margin
_A4_COLUMNS = (  # title, width, align
    ("CANT.", 15.0, "R"),
    ("UNID.", 14.0, "C"),
    ("CÓDIGO", 20.0, "L"),
    ("DESCRIPCIÓN", 91.0, "L"),
    ("P. UNIT.", 25.0, "R"),
    ("IMPORTE", 25.0, "R"),
)
_ROW_LINE = 4.0  # line height inside table rows
_GREY = 235


class _A4(FPDF):
    """A4 invoice: full header on page 1, compact header + table headings on the next pages."""

    def __init__(self, view: _View, cancelled: Callable[[], bool] | None = None) -> None:
        super().__init__(orientation="P", unit="mm", format="A4")
        self.view = view
        self.cancelled = cancelled
        self.in_table = False
        _new_pdf(self, view)
        self.set_margins(_M, _M, _M)
        self.set_auto_page_break(True, margin=16)
        self.set_line_width(0.2)

    # fpdf2 hooks ------------------------------------------------------------------------------------------

    def header(self) -> None:
        _stamp(self, self.view.mark, size=90, x=self.w / 2, y=self.h / 2)
        if self.page_no() == 1:
            self._full_header()
        else:
            self._compact_header()
        if self.in_table:
            self.lines_table_head()

    def footer(self) -> None:
        self.set_y(-13)
        self.set_draw_color(160)
        self.line(_M, self.get_y(), self.w - _M, self.get_y())
        self.set_draw_color(0)
        self.set_font(_FONT, "", 7.5)
        self.set_text_color(60)
        self.cell(self.epw - 30, 4, self.view.footer)
        self.cell(30, 4, f"Página {self.page_no()} de {{nb}}", align="R", new_x=XPos.LMARGIN, new_y=YPos.NEXT)
        self.cell(self.epw, 4, self.view.check)
        self.set_text_color(0)

    # blocks -----------------------------------------------------------------------------------------------

    def _full_header(self) -> None:
        v = self.view
        box_w = 68.0
        box_x = self.w - _M - box_w
        top = _M
        # issuer, left
        self.set_xy(_M, top + 1)
        left_w = box_x - _M - 6
        self.set_font(_FONT, "B", 13)
        _write(self, left_w, 6, v.issuer_name, align="L", new_x=XPos.LMARGIN)
        if v.issuer_trade_name and v.issuer_trade_name != v.issuer_name:
            self.set_font(_FONT, "B", 9.5)
            _write(self, left_w, 5, v.issuer_trade_name, align="L", new_x=XPos.LMARGIN)
        self.set_font(_FONT, "", 8.5)
        if v.issuer_address:
            _write(self, left_w, 4.2, v.issuer_address, align="L", new_x=XPos.LMARGIN)
        left_bottom = self.get_y()
        # "R.U.C. / title / number" box, right
        self.set_xy(box_x, top + 4)
        self.set_font(_FONT, "B", 12)
        _write(self, box_w, 7, f"R.U.C. N° {v.issuer_ruc}", align="C", new_x=XPos.LEFT)
        self.set_fill_color(_GREY)
        self.set_font(_FONT, "B", 10.5)
        _write(self, box_w, 7, v.title, align="C", fill=True, new_x=XPos.LEFT)
        self.set_font(_FONT, "B", 12)
        _write(self, box_w, 7, v.number, align="C", new_x=XPos.LEFT)
        box_bottom = self.get_y() + 3
        self.set_line_width(0.4)
        self.rect(box_x, top, box_w, box_bottom - top, round_corners=True, corner_radius=2)
        self.set_line_width(0.2)
        self.set_y(max(left_bottom, box_bottom) + 4)
        # customer (left) and document data (right)
        self._pairs_box([(v.customer, 22.0, _M + 2, box_x - _M - 8), (v.dates, 35.0, box_x, box_w - 2)])
        if v.note:
            self._pairs_box([(v.note, 42.0, _M + 2, self.epw - 4)])
        self.ln(1)

    def _pairs_box(self, columns: list[tuple[list[tuple[str, str]], float, float, float]]) -> None:
        """Framed label/value rows in columns given as ``(rows, label width, x, column width)``."""
        top = self.get_y()
        bottom = top
        for rows, label_w, x, width in columns:
            self.set_y(top + 2)
            for label, value in rows:
                y = self.get_y()
                self.set_xy(x, y)
                self.set_font(_FONT, "B", 8.5)
                self.cell(label_w, 4.5, f"{label}:")
                self.set_font(_FONT, "", 8.5)
                _write(self, width - label_w, 4.5, value, align="L", new_x=XPos.LMARGIN)
            bottom = max(bottom, self.get_y())
        bottom += 2
        self.set_draw_color(160)
        self.rect(_M, top, self.epw, bottom - top, round_corners=True, corner_radius=1.5)
        self.set_draw_color(0)
        self.set_y(bottom + 2)

    def _compact_header(self) -> None:
        v = self.view
        self.set_y(_M)
        self.set_font(_FONT, "B", 10)
        self.cell(self.epw / 2, 5, _clip(self, v.issuer_name, self.epw / 2))
        self.cell(self.epw / 2, 5, f"R.U.C. {v.issuer_ruc}", align="R", new_x=XPos.LMARGIN, new_y=YPos.NEXT)
        self.set_font(_FONT, "", 9)
        self.cell(self.epw, 5, f"{v.title} {v.number}", align="R", new_x=XPos.LMARGIN, new_y=YPos.NEXT)
        self.line(_M, self.get_y() + 1, self.w - _M, self.get_y() + 1)
        self.ln(4)

    def lines_table_head(self) -> None:
        """The lines table headings (also drawn by :meth:`header` on continuation pages)."""
        self.set_font(_FONT, "B", 8)
        self.set_fill_color(_GREY)
        self.set_x(_M)
        for title, width, align in _A4_COLUMNS:
            self.cell(width, 6, title, align=align, fill=True)
        self.ln(6)

    def lines_table(self) -> None:
        """All lines; rows never split across pages."""
        self.in_table = True
        self.lines_table_head()
        self.set_font(_FONT, "", 8)
        self.set_draw_color(200)
        desc_w = _A4_COLUMNS[3][1]
        for index, row in enumerate(self.view.rows):
            if index % _CANCEL_CHECK_ROWS == 0:
                _check(self.cancelled)
            height = _line_count(self, desc_w, row.description) * _ROW_LINE + 1.5
            if self.will_page_break(height):
                if self.page >= MAX_A4_PAGES:
                    self._omitted_rows(len(self.view.rows) - index)
                    break
                self.add_page()
                self.set_font(_FONT, "", 8)
                self.set_draw_color(200)
            y = self.get_y()
            x = _M
            values = (row.quantity, row.unit, row.code, None, row.price, row.total)
            for (_, width, align), value in zip(_A4_COLUMNS, values, strict=True):
                self.set_xy(x, y + 0.75)
                if value is None:
                    _write(self, width, _ROW_LINE, row.description, align="L")
                elif value:
                    self.cell(width, _ROW_LINE, value, align=align)
                x += width
            self.set_y(y + height)
            self.line(_M, self.get_y(), self.w - _M, self.get_y())
        self.set_draw_color(0)
        self.in_table = False

    def _omitted_rows(self, count: int) -> None:
        """The closing row of a table cut at :data:`MAX_A4_PAGES`: how many lines were not printed."""
        self.add_page()
        self.set_font(_FONT, "B", 8)
        text = f"... y {count} línea(s) más, que no se imprimen: el XML firmado las detalla todas."
        self.cell(self.epw, _ROW_LINE + 2, pdf_text(text), new_x=XPos.LMARGIN, new_y=YPos.NEXT)

    def summary(self) -> None:
        """Amount in words, QR + hash + legends (left) and the totals box (right)."""
        v = self.view
        qr_size = 30.0
        totals_w = 70.0
        left_w = self.epw - totals_w - 6
        text_w = left_w - qr_size - 4
        self.set_font(_FONT, "", 8)
        notes_h = sum(_line_count(self, text_w, n) for n in [f"Resumen: {v.digest}", *v.notes]) * 4
        self.set_font(_FONT, "B", 9)
        words_h = _line_count(self, self.epw, v.words) * 5 + 3
        needed = words_h + max(qr_size, notes_h, len(v.totals) * 5.5) + 4
        if self.will_page_break(needed):
            self.add_page()
        self.ln(2)
        self.set_font(_FONT, "B", 9)
        _write(self, self.epw, 5, v.words, align="L", new_x=XPos.LMARGIN)
        self.ln(2)
        top = self.get_y()
        # QR and hash, legends
        self.image(io.BytesIO(v.qr), x=_M, y=top, w=qr_size, h=qr_size, alt_text="QR")
        self.set_xy(_M + qr_size + 4, top + 1)
        self.set_font(_FONT, "", 8)
        for text in (f"Resumen: {v.digest}", *v.notes):
            _write(self, text_w, 4, text, align="L", new_x=XPos.LEFT)
        left_bottom = max(self.get_y(), top + qr_size)
        # totals
        x = self.w - _M - totals_w
        self.set_xy(x, top)
        for i, (label, amount) in enumerate(v.totals):
            last = i == len(v.totals) - 1
            self.set_font(_FONT, "B" if last else "", 9 if last else 8.5)
            self.set_fill_color(_GREY)
            self.set_x(x)
            self.cell(totals_w - 36, 5.5, label, border="LT" + ("B" if last else ""), fill=last)
            self.cell(8, 5.5, v.currency_symbol, border="T" + ("B" if last else ""), fill=last)
            self.cell(28, 5.5, amount, border="RT" + ("B" if last else ""), align="R", fill=last)
            self.ln(5.5)
        self.set_y(max(left_bottom, self.get_y()) + 2)

    def payment_terms(self) -> None:
        """The detraction (framed label/value rows) and the instalments table of a sale on credit."""
        v = self.view
        if v.detraction:
            if self.will_page_break(6 + 5 + len(v.detraction) * 4.5):
                self.add_page()
            self.set_font(_FONT, "B", 9)
            self.cell(self.epw, 5, "OPERACIÓN SUJETA A DETRACCIÓN", new_x=XPos.LMARGIN, new_y=YPos.NEXT)
            self._pairs_box([(v.detraction, 42.0, _M + 2, self.epw - 4)])
        if v.instalments:
            if self.will_page_break(5 + 6 + 2 * 5):
                self.add_page()
            self.set_font(_FONT, "B", 9)
            _write(self, self.epw, 5, v.credit, align="L", new_x=XPos.LMARGIN)
            self._instalments_head()
            self.set_font(_FONT, "", 8.5)
            (_, number_w), (_, date_w), (_, amount_w) = _INSTALMENT_COLUMNS
            for row in v.instalments:
                if self.will_page_break(5):
                    self.add_page()
                    self._instalments_head()
                    self.set_font(_FONT, "", 8.5)
                self.cell(number_w, 5, row.number, border="B", align="C")
                self.cell(date_w, 5, row.due_date, border="B", align="C")
                amount = f"{v.currency_symbol} {row.amount}" if row.amount else ""
                self.cell(amount_w, 5, amount, border="B", align="R")
                self.ln(5)

    def _instalments_head(self) -> None:
        self.set_font(_FONT, "B", 8)
        self.set_fill_color(_GREY)
        self.set_x(_M)
        for title, width in _INSTALMENT_COLUMNS:
            self.cell(width, 6, title, align="C", fill=True)
        self.ln(6)


_INSTALMENT_COLUMNS = (("N° CUOTA", 25.0), ("FECHA DE VENCIMIENTO", 45.0), ("MONTO", 40.0))


def _render_a4(view: _View, cancelled: Callable[[], bool] | None) -> bytes:
    pdf = _A4(view, cancelled)
    pdf.add_page()
    pdf.lines_table()
    _check(cancelled)
    pdf.summary()
    pdf.payment_terms()
    return bytes(pdf.output())


# ----------------------------------------------------------------------------------------------------------
# receipt (80 or 58 mm roll)


_MAX_RECEIPT_HEIGHT = 5000.0  # mm; PDF pages are limited to 200 in (5080 mm)


def _draw_receipt(
    pdf: FPDF, view: _View, width: float, *, images: bool, cancelled: Callable[[], bool] | None = None
) -> float:
    """Lay the receipt out on ``pdf`` (already with one page); returns the height used, in mm."""
    narrow = width < 70
    margin = 3.0 if narrow else 4.0
    base = 7.0 if narrow else 8.0
    lh = 3.4 if narrow else 3.8
    cw = width - 2 * margin
    pdf.set_margins(margin, margin, margin)
    pdf.set_xy(margin, margin + 1)

    def text(value: str, *, size: float = base, style: str = "", align: str = "C") -> None:
        pdf.set_font(_FONT, style, size)
        _write(pdf, cw, lh if size <= base else lh + 1, value, align=align, new_x=XPos.LMARGIN)

    def rule() -> None:
        y = pdf.get_y() + 1
        pdf.set_dash_pattern(dash=0.8, gap=0.6)
        pdf.line(margin, y, width - margin, y)
        pdf.set_dash_pattern()
        pdf.set_y(y + 1.5)

    def pair(label: str, value: str) -> None:
        text(f"{label}: {value}", align="L")

    def columns(left: str, right: str, *, style: str = "", size: float = base) -> None:
        pdf.set_font(_FONT, style, size)
        right_w = pdf.get_string_width(right) + 2
        pdf.cell(cw - right_w, lh, left)
        pdf.cell(right_w, lh, right, align="R", new_x=XPos.LMARGIN, new_y=YPos.NEXT)

    text(view.issuer_name, size=base + 2, style="B")
    if view.issuer_trade_name and view.issuer_trade_name != view.issuer_name:
        text(view.issuer_trade_name, style="B")
    text(f"R.U.C. {view.issuer_ruc}", style="B")
    if view.issuer_address:
        text(view.issuer_address, size=base - 0.5)
    rule()
    text(view.title, size=base + 1, style="B")
    text(view.number, size=base + 1, style="B")
    rule()
    for label, value in view.dates:
        pair(label, value)
    for label, value in view.customer:
        pair(label, value)
    for label, value in view.note:
        pair(label, value)
    rule()
    columns("CANT. / DESCRIPCIÓN", "IMPORTE", style="B")
    rule()
    for index, row in enumerate(view.rows[:MAX_RECEIPT_LINES]):
        if index % _CANCEL_CHECK_ROWS == 0:
            _check(cancelled)
        text(row.description, align="L")
        unit = f" {row.unit}" if row.unit else ""
        columns(f"  {row.quantity}{unit} x {row.price}", row.total)
    if len(view.rows) > MAX_RECEIPT_LINES:
        omitted = len(view.rows) - MAX_RECEIPT_LINES
        text(
            pdf_text(f"... y {omitted} línea(s) más: vea la representación A4 o el XML."),
            style="B",
            align="L",
        )
    rule()
    pdf.set_font(_FONT, "", base)
    amount_w = pdf.get_string_width("000,000.00") + 6
    for i, (label, amount) in enumerate(view.totals):
        last = i == len(view.totals) - 1
        pdf.set_font(_FONT, "B" if last else "", base + (0.5 if last else 0))
        pdf.cell(cw - amount_w - 7, lh + 0.4, label, align="R")
        pdf.cell(7, lh + 0.4, view.currency_symbol, align="R")
        pdf.cell(amount_w, lh + 0.4, amount, align="R", new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    pdf.ln(1)
    text(view.words, style="B", align="L")
    for note in view.notes:
        text(note, size=base - 0.5, align="L")
    if view.detraction:
        rule()
        text("OPERACIÓN SUJETA A DETRACCIÓN", style="B", align="L")
        for label, value in view.detraction:
            pair(label, value)
    if view.instalments:
        rule()
        text(view.credit, style="B", align="L")
        for instalment in view.instalments:
            columns(
                f"Cuota {instalment.number}  {instalment.due_date}",
                f"{view.currency_symbol} {instalment.amount}" if instalment.amount else "",
            )
    rule()
    qr_size = 26.0 if narrow else 32.0
    y = pdf.get_y() + 1
    if images:
        pdf.image(io.BytesIO(view.qr), x=(width - qr_size) / 2, y=y, w=qr_size, h=qr_size, alt_text="QR")
    pdf.set_y(y + qr_size + 2)
    text(f"Resumen: {view.digest}", size=base - 0.5)
    text(view.footer, size=base - 0.5)
    label, _, address = view.check.partition(": ")
    text(f"{label}:", size=base - 1)
    text(address, size=base - 2)
    if images:  # drawn last, over the content: the probe run only measures
        _stamp(pdf, view.mark, size=28 if narrow else 36, x=width / 2, y=pdf.get_y() / 2)
    return pdf.get_y() + margin + 2


def _render_receipt(view: _View, width: float, cancelled: Callable[[], bool] | None) -> bytes:
    probe = FPDF(unit="mm", format=(width, _MAX_RECEIPT_HEIGHT))
    probe.core_fonts_encoding = _ENCODING
    probe.set_auto_page_break(False)
    probe.add_page()
    height = _draw_receipt(probe, view, width, images=False, cancelled=cancelled)
    pdf = _new_pdf(FPDF(unit="mm", format=(width, min(height, _MAX_RECEIPT_HEIGHT))), view)
    if height > _MAX_RECEIPT_HEIGHT:
        pdf.set_auto_page_break(True, margin=4)
    else:
        pdf.set_auto_page_break(False)
    pdf.add_page()
    _draw_receipt(pdf, view, width, images=True, cancelled=cancelled)
    return bytes(pdf.output())


# ----------------------------------------------------------------------------------------------------------


def render_pdf(
    doc: SalesDocument,
    *,
    digest_value: str,
    qr_text: str,
    fmt: str = "a4",
    cancelled: Callable[[], bool] | None = None,
    mark: str = "",
) -> bytes:
    """The printed representation of ``doc`` as PDF bytes.

    ``mark`` (``"ANULADO"`` for a voided document, ``"RECHAZADO"`` for one the authority rejected) is
    printed large across every page.

    ``fmt`` is ``"a4"``, ``"ticket"`` (= ``"ticket_80"``: the 80 mm receipt) or ``"ticket_58"`` (58 mm);
    anything else raises :class:`ValueError`. ``digest_value`` is printed as "Resumen" and ``qr_text`` is
    encoded in the QR (see :func:`facturador.render.qr.qr_text`). ``cancelled`` is asked every few lines; when
    it answers true rendering stops with :class:`RenderCancelled`. Time and size are bounded by the ``MAX_*``
    limits above (a 1,000-line factura with 500-character descriptions: about a second).
    """
    key = fmt.strip().lower() if isinstance(fmt, str) else fmt
    if key not in FORMATS:
        raise ValueError(f"unknown PDF format {fmt!r}; expected one of {', '.join(FORMATS)}")
    view = _view(doc, digest_value, qr_text, mark)
    width = FORMATS[key]
    return _render_a4(view, cancelled) if width is None else _render_receipt(view, width, cancelled)
