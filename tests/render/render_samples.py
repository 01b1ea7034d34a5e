"""Sample sales documents for the render tests (domain objects, no API, no database) and PDF probes."""

from __future__ import annotations

import re
import zlib
from dataclasses import replace
from datetime import date, time
from decimal import Decimal

from facturador.service.domain.model import (
    Issuer,
    Legend,
    Line,
    Party,
    SalesDocument,
    Totals,
)

D = Decimal
DIGEST = "5zVcyL443M1vVGhdFNi+H9jcslo="

ISSUER = Issuer(
    ruc="20100066603",
    name="ACME PERÚ S.A.C.",
    trade_name="Acme",
    address="Av. José Larco 1232, Of. 501",
    ubigeo="150122",
    department="LIMA",
    province="LIMA",
    district="MIRAFLORES",
)
COMPANY = Party(
    identity_type="6",
    number="20601030013",
    name="COMERCIALIZADORA ÑAÑEZ & ASOCIADOS E.I.R.L.",
    address="Jr. Cusco 245, Cercado de Lima, Lima",
)
PERSON = Party(identity_type="1", number="45678912", name="María Fernández Quispe")


def taxed_line(index: int = 1, description: str = "Servicio de mantenimiento preventivo de laptop") -> Line:
    """2 x 50.00 + IGV 18 % = 118.00."""
    return Line(
        index=index,
        description=description,
        unit="NIU",
        quantity=D("2"),
        unit_value=D("50.00"),
        price_type="01",
        unit_price=D("59.00"),
        affectation="10",
        igv_base=D("100.00"),
        igv_percent=D("18"),
        igv=D("18.00"),
        taxes=D("18.00"),
        value=D("100.00"),
        total=D("118.00"),
        internal_code="P001",
    )


def free_line(index: int = 2) -> Line:
    """A taxed bonus (affectation 15): referential value 10.00, informative IGV 1.80, nothing charged."""
    return Line(
        index=index,
        description="Mouse inalámbrico (bonificación)",
        unit="NIU",
        quantity=D("1"),
        unit_value=D("0"),
        price_type="02",
        unit_price=D("10.00"),
        affectation="15",
        igv_base=D("10.00"),
        igv_percent=D("18"),
        igv=D("1.80"),
        taxes=D("1.80"),
        value=D("10.00"),
        total=D("0"),
        internal_code="P002",
    )


def bag_line(index: int = 3) -> Line:
    """A plastic bag: 0.10 + IGV 0.02 + ICBPER 0.50 = 0.62."""
    return Line(
        index=index,
        description="Bolsa plástica",
        unit="NIU",
        quantity=D("1"),
        unit_value=D("0.10"),
        price_type="01",
        unit_price=D("0.12"),
        affectation="10",
        igv_base=D("0.10"),
        igv_percent=D("18"),
        igv=D("0.02"),
        taxes=D("0.52"),
        value=D("0.10"),
        total=D("0.62"),
        icbper=D("0.50"),
        internal_code="BOLSA",
    )


def totals_of(lines: tuple[Line, ...]) -> Totals:
    """Header totals of taxed (10), free and bag lines."""
    taxed = [line for line in lines if line.affectation == "10"]
    free = [line for line in lines if line.affectation != "10"]
    taxed_value = sum((line.value for line in taxed), D("0"))
    igv = sum((line.igv for line in taxed), D("0"))
    icbper = sum((line.icbper for line in lines), D("0"))
    return Totals(
        taxed=taxed_value,
        free=sum((line.value for line in free), D("0")),
        igv=igv,
        igv_free=sum((line.igv for line in free), D("0")),
        icbper=icbper,
        taxes=igv + icbper,
        value=taxed_value,
        subtotal=taxed_value + igv,
        total=taxed_value + igv + icbper,
    )


def make_document(lines: tuple[Line, ...], **changes: object) -> SalesDocument:
    """A factura F001-123 of ``lines`` (totals computed), with ``changes`` applied."""
    legends: tuple[Legend, ...] = ()
    if any(line.affectation != "10" for line in lines):
        legends = (Legend("1002", "TRANSFERENCIA GRATUITA DE UN BIEN Y/O SERVICIO PRESTADO GRATUITAMENTE"),)
    doc = SalesDocument(
        issuer=ISSUER,
        doc_type="01",
        series="F001",
        number=123,
        issue_date=date(2024, 5, 14),
        issue_time=time(10, 30, 15),
        currency="PEN",
        customer=COMPANY,
        lines=lines,
        totals=totals_of(lines),
        legends=legends,
        operation_type="0101",
        due_date=date(2024, 6, 13),
        purchase_order="OC-2024-0042",
    )
    return replace(doc, **changes)  # type: ignore[arg-type]


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


def _raw_text(pdf: bytes) -> str:
    chunks = []
    for raw in _STREAM.findall(pdf):
        try:
            data = zlib.decompress(raw)
        except zlib.error:
            data = raw
        chunks.append(data.decode("cp1252", errors="replace"))
    return "\n".join(chunks)


def page_count(pdf: bytes) -> int:
    """Number of ``/Type /Page`` objects."""
    return len(re.findall(rb"/Type\s*/Page\b", pdf))
