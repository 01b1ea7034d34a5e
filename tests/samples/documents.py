"""Sales documents (the service's model, no API, no database) for the UBL, render and authority tests.

``line()`` and ``totals_for()`` compute amounts the way SUNAT recomputes them; ``document()`` builds a
document of the ``acme`` tenant dated 2026-03-02; ``scenarios()`` is every kind of document the generic
tests run over; ``printed_factura()`` is the render tests' F001-123 with accented names.
"""

from __future__ import annotations

import dataclasses
from datetime import date, time
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from facturador.issued import (
    AffectedDocument,
    CargoTrip,
    Detraction,
    Instalment,
    Issuer,
    Legend,
    Line,
    NoteInfo,
    Party,
    SalesDocument,
    Totals,
)
from tests.samples.tenants import ACME_NAME, ACME_RUC

D = Decimal
ZERO = D("0")
FREE = {"11", "12", "13", "14", "15", "16", "21", "31", "32", "33", "34", "35", "36", "37"}
IGV_BEARING = {"10", "11", "12", "13", "14", "15", "16", "17"}

ISSUER = Issuer(
    ruc=ACME_RUC,
    name=ACME_NAME,
    trade_name="Acme",
    address="AV. AREQUIPA 123",
    ubigeo="150101",
    department="LIMA",
    province="LIMA",
    district="LIMA",
)
RUC_CUSTOMER = Party("6", "20601030013", "OTRA EMPRESA S.A.", address="JR. DE LA UNION 456, LIMA")
DNI_CUSTOMER = Party("1", "12345678", "JUAN PEREZ QUISPE")
FOREIGN_CUSTOMER = Party(
    "0", "US-99-1234567", "ACME TRADING INC", country="US", address="1 MAIN ST, MIAMI FL"
)
LEGEND_1002 = Legend("1002", "TRANSFERENCIA GRATUITA DE UN BIEN Y/O SERVICIO PRESTADO GRATUITAMENTE")
LEGEND_2006 = Legend("2006", "Operación sujeta a detracción")
#: 4 % of 1,180.00 (a 1,000.00 taxed service), deposited in the issuer's Banco de la Nación account.
DETRACTION_4 = Detraction(
    code="037", percent=D("4"), amount=D("47.20"), payment_means="001", account="00-068-123456"
)
TWO_INSTALMENTS = (Instalment(date(2026, 4, 1), D("59.00")), Instalment(date(2026, 5, 1), D("59.00")))


def r2(value: Decimal) -> Decimal:
    return value.quantize(D("0.01"), rounding=ROUND_HALF_UP)


def r10(value: Decimal) -> Decimal:
    return value.quantize(D("1e-10"), rounding=ROUND_HALF_UP)


def line(
    index: int = 1,
    *,
    description: str = "PRODUCTO DE PRUEBA",
    unit: str = "NIU",
    quantity: str = "2",
    unit_value: str = "50",
    affectation: str = "10",
    percent: str = "18",
    icbper_per_unit: str = "0",
    internal_code: str = "P001",
    sunat_code: str = "",
    referential_in_unit_value: bool = False,
) -> Line:
    """A line whose amounts follow SUNAT's formulas.

    For free lines ``unit_value`` is the referential unit value; it is carried in ``unit_price`` (the
    model's convention, unit_value 0) or, with ``referential_in_unit_value``, in both fields.
    """
    qty, value_per_unit, pct = D(quantity), D(unit_value), D(percent)
    value = r2(qty * value_per_unit)
    igv = r2(value * pct / 100) if affectation in IGV_BEARING else ZERO
    icbper = r2(qty * D(icbper_per_unit))
    if affectation in FREE:
        return Line(
            index=index,
            description=description,
            unit=unit,
            quantity=qty,
            unit_value=value_per_unit if referential_in_unit_value else ZERO,
            price_type="02",
            unit_price=value_per_unit,
            affectation=affectation,
            igv_base=value,
            igv_percent=pct,
            igv=igv,
            taxes=igv + icbper,
            value=value,
            total=ZERO + icbper,
            icbper=icbper,
            internal_code=internal_code,
            sunat_code=sunat_code,
        )
    return Line(
        index=index,
        description=description,
        unit=unit,
        quantity=qty,
        unit_value=value_per_unit,
        price_type="01",
        unit_price=r10((value + igv + icbper) / qty),
        affectation=affectation,
        igv_base=value,
        igv_percent=pct,
        igv=igv,
        taxes=igv + icbper,
        value=value,
        total=value + igv + icbper,
        icbper=icbper,
        internal_code=internal_code,
        sunat_code=sunat_code,
    )


def totals_for(lines: tuple[Line, ...]) -> Totals:
    """Header totals from the lines (no discounts, charges or prepayments)."""

    def total(field: str, affectations: set[str]) -> Decimal:
        return sum((getattr(x, field) for x in lines if x.affectation in affectations), ZERO)

    taxed = total("value", {"10", "17"})
    igv = total("igv", {"10", "17"})
    exonerated = total("value", {"20"})
    unaffected = total("value", {"30"})
    export = total("value", {"40"})
    free = total("value", FREE)
    igv_free = total("igv", FREE)
    icbper = sum((x.icbper for x in lines), ZERO)
    value = taxed + exonerated + unaffected + export
    taxes = igv + icbper
    return Totals(
        export=export,
        taxed=taxed,
        unaffected=unaffected,
        exonerated=exonerated,
        free=free,
        igv=igv,
        igv_free=igv_free,
        icbper=icbper,
        taxes=taxes,
        value=value,
        subtotal=value + taxes,
        total=value + taxes,
    )


def document(
    lines: tuple[Line, ...] | None = None,
    *,
    doc_type: str = "01",
    series: str = "F001",
    number: int = 1,
    customer: Party = RUC_CUSTOMER,
    currency: str = "PEN",
    operation_type: str = "0101",
    note: NoteInfo | None = None,
    extra_legends: tuple[Legend, ...] = (),
    **changes: object,
) -> SalesDocument:
    """A document dated 2026-03-02 10:15:30 with a legend 1000 (text as the caller would give it)."""
    lines = lines if lines is not None else (line(),)
    totals = totals_for(lines)
    words = f"SON: {totals.total} {'SOLES' if currency == 'PEN' else currency}"
    doc = SalesDocument(
        issuer=ISSUER,
        doc_type=doc_type,
        series=series,
        number=number,
        issue_date=date(2026, 3, 2),
        issue_time=time(10, 15, 30),
        currency=currency,
        customer=customer,
        lines=lines,
        totals=totals,
        legends=(Legend("1000", words), *extra_legends),
        operation_type=operation_type if doc_type in ("01", "03") else "",
        note=note,
    )
    return dataclasses.replace(doc, **changes) if changes else doc


AFFECTS_F001_1 = AffectedDocument("01", "F001", "1")


def scenarios() -> dict[str, SalesDocument]:
    """The documents every generic test runs over, by name."""
    return {
        "taxed_invoice": document(purchase_order="OC-2026-001"),
        "boleta": document(
            (line(quantity="3", unit_value="8.4745762712", sunat_code="50202306"),),
            doc_type="03",
            series="B001",
            number=5,
            customer=DNI_CUSTOMER,
        ),
        "free_16_31": document(
            (
                line(1, quantity="1", unit_value="100", affectation="16"),
                line(
                    2,
                    quantity="2",
                    unit_value="25",
                    affectation="31",
                    percent="0",
                    referential_in_unit_value=True,
                ),
            ),
            extra_legends=(LEGEND_1002,),
        ),
        "mixed_taxed_free": document(
            (line(1), line(2, description="BONIFICACION", quantity="1", unit_value="20", affectation="15")),
            extra_legends=(LEGEND_1002,),
        ),
        "exempt_20": document((line(quantity="1", unit_value="100", affectation="20"),)),
        "unaffected_30": document((line(quantity="4", unit_value="12.5", affectation="30", percent="0"),)),
        "export_40": document(
            (line(quantity="10", unit_value="50", affectation="40", percent="0", unit="KGM"),),
            customer=FOREIGN_CUSTOMER,
            operation_type="0200",
            currency="USD",
        ),
        "usd_invoice": document(currency="USD", due_date=date(2026, 3, 31)),
        "icbper_bag": document(
            (
                line(1, quantity="1", unit_value="10"),
                line(2, description="BOLSA PLASTICA", quantity="2", unit_value="0.1", icbper_per_unit="0.50"),
            )
        ),
        "contingency_0001": document(series="0001", number=7),
        "detraction_1001": document(
            (line(quantity="1", unit_value="1000", unit="ZZ", description="SERVICIO DE CONSULTORIA"),),
            operation_type="1001",
            extra_legends=(LEGEND_2006,),
            detraction=DETRACTION_4,
        ),
        "credit_instalments": document(number=8, payment_form="Credito", instalments=TWO_INSTALMENTS),
        "detraction_credit": document(
            (line(quantity="1", unit_value="1000", unit="ZZ", description="SERVICIO DE CONSULTORIA"),),
            number=9,
            operation_type="1001",
            extra_legends=(LEGEND_2006,),
            payment_form="Credito",
            detraction=DETRACTION_4,
            instalments=(
                Instalment(date(2026, 3, 2), D("566.40")),
                Instalment(date(2026, 4, 2), D("566.40")),
            ),
        ),
        "credit_note": document(
            doc_type="07",
            series="FC01",
            number=3,
            note=NoteInfo("01", "ANULACION DE LA OPERACION", AFFECTS_F001_1),
            purchase_order="OC-2026-001",
        ),
        "debit_note": document(
            (line(quantity="1", unit_value="10", description="INTERESES POR MORA"),),
            doc_type="08",
            series="FD01",
            number=2,
            note=NoteInfo("01", "INTERESES POR MORA", AFFECTS_F001_1),
        ),
    }


# -- the printed representation ---------------------------------------------------------------------------

#: Names with accents, Ñ and "&": the PDF's core fonts print them in cp1252.
PRINTED_ISSUER = dataclasses.replace(
    ISSUER,
    name="ACME PERÚ S.A.C.",
    address="Av. José Larco 1232, Of. 501",
    ubigeo="150122",
    district="MIRAFLORES",
)
PRINTED_COMPANY = Party(
    identity_type="6",
    number="20601030013",
    name="COMERCIALIZADORA ÑAÑEZ & ASOCIADOS E.I.R.L.",
    address="Jr. Cusco 245, Cercado de Lima, Lima",
)
PRINTED_PERSON = Party(identity_type="1", number="45678912", name="María Fernández Quispe")


def printed_line(index: int = 1, description: str = "Servicio de mantenimiento preventivo de laptop") -> Line:
    """2 x 50.00 + IGV 18 % = 118.00."""
    return line(index, description=description)


def printed_factura(lines: tuple[Line, ...] | None = None, **changes: object) -> SalesDocument:
    """Factura F001-123 of 2024-05-14 10:30:15 for :data:`PRINTED_COMPANY`, due 2024-06-13, order
    OC-2024-0042, of ``lines`` (one :func:`printed_line` by default), with ``changes`` applied."""
    fields: dict[str, Any] = {
        "number": 123,
        "customer": PRINTED_COMPANY,
        "issuer": PRINTED_ISSUER,
        "issue_date": date(2024, 5, 14),
        "issue_time": time(10, 30, 15),
        "due_date": date(2024, 6, 13),
        "purchase_order": "OC-2024-0042",
    }
    return document(lines if lines is not None else (printed_line(),), **{**fields, **changes})


# -- cargo transport detraction and notes with instalments (issue 11) -------------------------------------

#: Lima (150101) to Arequipa (040101); reference values 1,100.00 / 900.00 / 950.00.
CARGO_TRIP = CargoTrip(
    detail="TRASLADO DE 12 T DE CEMENTO",
    origin_ubigeo="150101",
    origin_address="AV. ARGENTINA 2050, CERCADO DE LIMA",
    destination_ubigeo="040101",
    destination_address="AV. PARRA 300, AREQUIPA",
    service_value=D("1100"),
    effective_load_value=D("900"),
    payload_value=D("950"),
)


def notes_and_cargo() -> dict[str, SalesDocument]:
    """A cargo transport factura (1004, detraction 027 4 % = 47.20), a credit note of type 13 (total 0,
    instalments 59.00 + 59.00) and a debit note on credit (11.80 in one instalment)."""
    return {
        "cargo_1004": document(
            (
                line(
                    quantity="1", unit_value="1000", unit="ZZ", description="SERVICIO DE TRANSPORTE DE CARGA"
                ),
            ),
            number=10,
            operation_type="1004",
            extra_legends=(LEGEND_2006,),
            detraction=dataclasses.replace(DETRACTION_4, code="027", trip=CARGO_TRIP),
        ),
        "credit_note_13": document(
            (line(quantity="1", unit_value="0", unit="ZZ", description="AJUSTE DE FECHAS DE PAGO"),),
            doc_type="07",
            series="FC01",
            number=5,
            note=NoteInfo("13", "AJUSTE DE FECHAS DE PAGO", AFFECTS_F001_1),
            payment_form="Credito",
            instalments=TWO_INSTALMENTS,
        ),
        "debit_note_credit": document(
            (line(quantity="1", unit_value="10", description="INTERESES POR MORA"),),
            doc_type="08",
            series="FD01",
            number=3,
            note=NoteInfo("01", "INTERESES POR MORA", AFFECTS_F001_1),
            payment_form="Credito",
            instalments=(Instalment(date(2026, 4, 1), D("11.80")),),
        ),
    }
