"""Realistic demo data issued through the API with the connector: customers, products, every line type,
PEN and USD, credit and debit notes, and some documents the tax authority rejects or observes; then the
ticket flows: the boletas of most past days declared in daily summaries, a few recent facturas voided
in voided communications and a few declared boletas voided in summaries (process 3), with their tickets
waited for.

Last, a few retentions and perceptions of this month, and today's dispatch guides (one for a factura).

Some sales carry the blocks a tenant turns on with its plugins: global discounts (02) and charges (49),
payments received (``pagos``) and a perception (operation 2001), drawn from a random generator of
their own so the rest of the data is the same as without them.

Used by ``facturador seed`` and ``facturador demo``. Deterministic for a given ``seed`` (the documents,
which days are declared and which documents are voided; the service numbers them as they arrive). The
tenant should answer tickets at once while seeding (``authority_ticket_delay`` 0: the CLI sets it).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import random
import threading
import uuid
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal

from connector import Client, FacturadorError, TicketRef, TicketTimeout, wait_for_ticket
from connector.builders import (
    Builder,
    CargoTrip,
    Charge,
    CreditNote,
    Customer,
    DebitNote,
    Detraction,
    Discount,
    Instalment,
    Invoice,
    Isc,
    Line,
    Receipt,
)
from connector.builders import Payment as Paid
from connector.dispatches import CarrierGuide, Driver, GuideItem, Place, PrivateTransport, SenderGuide
from connector.dispatches import Party as GuideParty
from connector.errors import OutcomeUnknownError, TransportError
from connector.quotations import Quotation
from connector.sale_notes import SaleNote, SaleNoteRef
from connector.sheets import NoteLine
from connector.tickets import TicketResource
from connector.withholding import Payment, Perception, Retention
from sunat.calendar import peru_now, peru_today
from sunat.deadlines import VOIDING_DAYS
from sunat.identity import ruc_check_digit
from sunat.money import round2

COMPANIES = (
    ("20", "COMERCIAL ANDINA S.A.C.", "Av. Argentina 2450, Lima", "150101"),
    ("20", "DISTRIBUIDORA EL SOL E.I.R.L.", "Jr. Ica 335, Cercado de Lima", "150101"),
    ("20", "INVERSIONES MIRAFLORES S.A.", "Av. Larco 1150, Miraflores", "150122"),
    ("20", "CONSTRUCTORA PACHACUTEC S.A.C.", "Av. Túpac Amaru 1800, Comas", "150110"),
    ("20", "AGROEXPORT PIURA S.A.C.", "Carretera Sullana km 3, Piura", "200101"),
    ("20", "HOTELES DEL SUR S.A.", "Calle Mercaderes 212, Arequipa", "040101"),
    ("20", "TRANSPORTES CHASKI S.R.L.", "Av. Industrial 560, Trujillo", "130101"),
    ("20", "FARMACIAS SALUD TOTAL S.A.C.", "Av. La Marina 2000, San Miguel", "150136"),
    ("10", "QUISPE MAMANI ROSA ELENA", "Jr. Puno 120, Juliaca", "211101"),
    ("10", "GARCIA TORRES LUIS ALBERTO", "Av. Grau 455, Chiclayo", "140101"),
    ("20", "TEXTILES GAMARRA UNIDOS S.A.C.", "Jr. Gamarra 800, La Victoria", "150115"),
    ("20", "MINERA CORDILLERA BLANCA S.A.", "Av. Centenario 300, Huaraz", "020101"),
)
PEOPLE = (
    ("45781236", "MARIA FERNANDA LOPEZ RAMOS"),
    ("70214589", "JOSE CARLOS HUAMAN PEREZ"),
    ("41236987", "ANA LUCIA CHAVEZ DIAZ"),
    ("72589641", "PEDRO PABLO SALAZAR VEGA"),
    ("46985213", "CARMEN ROSA FLORES ROJAS"),
    ("73651248", "LUIS ENRIQUE MENDOZA SOTO"),
)
FOREIGN = (
    ("900123456", "ANDES TRADING CORP", "US", "100 Biscayne Blvd, Miami"),
    ("B12345678", "IBERIA ALIMENTOS S.L.", "ES", "Calle Mayor 10, Madrid"),
    ("76.543.210-K", "CHILE IMPORTACIONES LTDA", "CL", "Av. Providencia 1200, Santiago"),
)


@dataclass(frozen=True)
class Product:
    code: str
    description: str
    price: Decimal  # with IGV for taxed lines, the unit value otherwise
    affectation: str = "10"
    unit: str = "NIU"
    sunat_code: str = ""


PRODUCTS = (
    Product("P001", "Inca Kola 500 ml", Decimal("3.50"), sunat_code="50202301"),
    Product("P002", "Agua San Luis 625 ml", Decimal("2.00"), sunat_code="50202310"),
    Product("P003", "Arroz Costeño 5 kg", Decimal("24.90"), sunat_code="50221101"),
    Product("P004", "Aceite Primor 1 L", Decimal("11.50"), sunat_code="50151513"),
    Product("P005", "Laptop Lenovo ThinkPad E14", Decimal("3899.00"), sunat_code="43211503"),
    Product("P006", "Monitor LG 24 pulgadas", Decimal("649.00"), sunat_code="43211902"),
    Product("P007", "Cemento Sol 42.5 kg", Decimal("29.90"), "10", "NIU", "30111601"),
    Product("P008", 'Fierro corrugado 1/2"', Decimal("42.00"), "10", "NIU", "30102207"),
    Product("S001", "Servicio de mantenimiento preventivo", Decimal("350.00"), "10", "ZZ", "81112300"),
    Product("S002", "Consultoría contable mensual", Decimal("1200.00"), "10", "ZZ", "84111500"),
    Product("S003", "Transporte de carga Lima-Callao", Decimal("480.00"), "10", "ZZ", "78101802"),
    Product("E001", "Libro 'Historia del Perú'", Decimal("85.00"), "20", "NIU", "55101500"),
    Product("E002", "Papa amarilla (kg)", Decimal("4.20"), "20", "KGM", "50407000"),
    Product("I001", "Matrícula curso de inglés", Decimal("450.00"), "30", "ZZ", "86101700"),
    Product("I002", "Pensión escolar", Decimal("780.00"), "30", "ZZ", "86111600"),
    Product("X001", "Café orgánico de exportación (kg)", Decimal("9.80"), "40", "KGM", "50201706"),
    Product("X002", "Espárragos frescos (kg)", Decimal("4.60"), "40", "KGM", "50403400"),
    Product("X003", "Quinua orgánica (kg)", Decimal("5.10"), "40", "KGM", "50221100"),
)
#: Reasons of the seeded voidings.
VOID_REASONS = (
    "Error en el RUC del cliente",
    "Error en la descripción del producto",
    "Operación anulada por el cliente",
    "Error en el monto facturado",
    "Documento emitido por duplicado",
)
#: Days after the issue date SUNAT still takes a document in a voided communication (2957): only
#: documents this recent are voided.
VOID_WINDOW_DAYS = VOIDING_DAYS
#: Seconds :func:`seed` waits for each ticket.
TICKET_TIMEOUT = 60.0

BAG = Product("B001", "Bolsa plástica", Decimal("0.10"), sunat_code="24111503")
#: Beer sold by the six-pack: ISC of the specific system (02), S/ 2.25 a litre on 6 x 355 ml.
BEER = Product("L001", "Cerveza Cusqueña 355 ml (six pack)", Decimal("19.50"), sunat_code="50202203")
BEER_ISC = Isc("02", per_unit=Decimal("4.79"))
GIFT = Product("G001", "Muestra gratuita", Decimal("15.00"), "15", "NIU", "50202301")
#: Freight the company bills with the cargo transport detraction (operation 1004, 4 %): the route's
#: origin and destination (ubigeo, address) and what is carried.
ROUTES = (
    ("150101", "Av. Argentina 2050, Lima", "040101", "Av. Parra 300, Arequipa", "12 t de cemento"),
    ("150101", "Av. Colonial 1500, Lima", "130101", "Av. Industrial 560, Trujillo", "8 t de fertilizante"),
    ("200101", "Carretera Sullana km 3, Piura", "150101", "Av. Argentina 2450, Lima", "20 t de mango"),
)
#: The company's account at the Banco de la Nación for detractions.
DETRACTION_ACCOUNT = "00-068-123456"


def make_ruc(prefix: str, rng: random.Random, *, valid: bool = True) -> str:
    """A RUC with a correct check digit (or, with ``valid=False``, a wrong one: a typo SUNAT rejects)."""
    body = prefix + "".join(rng.choice("0123456789") for _ in range(8))
    digit = ruc_check_digit(body)
    return body + str(digit if valid else (digit + 1) % 10)


@dataclass
class SeedReport:
    """What a seeding run did: documents issued by type and their states at the end (after summaries
    and voiding), the summaries and voided communications sent, their tickets, and the errors met."""

    issued: int = 0
    by_type: Counter[str] = field(default_factory=Counter)
    by_state: Counter[str] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    #: Daily summaries that declared boletas (process 1), and the documents they declared.
    summaries: int = 0
    declared: int = 0
    #: Voided communications (facturas) and summaries with process 3 (boletas), and what they voided.
    voided_communications: int = 0
    voiding_summaries: int = 0
    voided_facturas: int = 0
    voided_boletas: int = 0
    #: Tickets by outcome: ``accepted``, ``rejected``, ``in process`` (not answered in time).
    tickets: Counter[str] = field(default_factory=Counter)
    #: Retentions (20) and perceptions (40) issued, by family.
    withholding: Counter[str] = field(default_factory=Counter)
    #: The back office: products, suppliers, quotations, sale notes, and what was converted.
    backoffice: Counter[str] = field(default_factory=Counter)

    def summary(self) -> str:
        types = ", ".join(f"{k}: {v}" for k, v in sorted(self.by_type.items()))
        states = ", ".join(f"{k}: {v}" for k, v in sorted(self.by_state.items()))
        text = f"{self.issued} documents issued (types {types}; states {states})"
        if self.summaries or self.voided_communications or self.voiding_summaries:
            tickets = ", ".join(f"{k} {v}" for k, v in sorted(self.tickets.items()))
            text += (
                f"; {self.summaries} daily summaries declared {self.declared} boletas; "
                f"{self.voided_facturas} facturas voided in {self.voided_communications} "
                "voided communications, "
                f"{self.voided_boletas} boletas in {self.voiding_summaries} summaries; tickets: {tickets}"
            )
        if self.withholding:
            counts = self.withholding
            text += f"; {counts['retentions']} retentions, {counts['perceptions']} perceptions"
        if self.backoffice:
            office = self.backoffice
            text += (
                f"; {office['products']} products, {office['quotations']} quotations "
                f"({office['quotations converted']} converted), {office['sale notes']} sale notes "
                f"({office['sale notes converted']} into documents)"
            )
        if self.errors:
            text += f"; {len(self.errors)} refused by the service, first: {self.errors[0]}"
        return text


@dataclass
class _Issued:
    """A document the run issued: its place in the run (the generator's order), builder and answer."""

    index: int
    builder: Builder
    external_id: str
    state: str

    @property
    def day(self) -> dt.date:
        return self.builder.issue_date

    @property
    def group(self) -> str:
        """``"01"`` facturas and their notes, ``"02"`` boletas and their notes."""
        return "02" if self.builder.series[:1].upper() == "B" else "01"


#: The blocks of a cash factura in soles and the share of such facturas that carry each.
BLOCK_SHARES = (("discount", 0.12), ("charge", 0.06), ("perception", 0.08), ("beer", 0.04), ("freight", 0.03))
BLOCKS = tuple(kind for kind, _ in BLOCK_SHARES)


class Generator:
    """Builds the documents of a seeding run from a seeded random generator."""

    def __init__(self, seed: int, today: dt.date, days: int, now: dt.time | None = None):
        self.rng = random.Random(seed)
        self.blocks = random.Random(seed * 7919 + 1)  # discounts, charges, payments, perceptions
        # every run shows each block at least once: the first cash facturas take them in a shuffled order
        self.first_blocks = list(BLOCKS)
        self.blocks.shuffle(self.first_blocks)
        self.today = today
        self.now = now or dt.time(23, 59, 59)
        self.days = max(1, days)
        self.rates = exchange_rates(self.rng, today, self.days + 10)
        self.companies = [
            Customer.ruc(make_ruc(prefix, self.rng), name, address=address, ubigeo=ubigeo)
            for prefix, name, address, ubigeo in COMPANIES
        ]
        self.bad_ruc = Customer.ruc(
            make_ruc("20", self.rng, valid=False), "EMPRESA CON RUC MAL DIGITADO S.A.C."
        )
        self.people = [Customer.dni(number, name) for number, name in PEOPLE]
        self.foreign = [
            Customer("0", number, name, country=country, address=address)
            for number, name, country, address in FOREIGN
        ]

    def day(self) -> dt.date:
        """A day in the window, weekdays busier than weekends."""
        while True:
            offset = (
                int(self.rng.triangular(0, self.days, 0))
                if self.rng.random() < 0.3
                else self.rng.randrange(self.days)
            )
            day = self.today - dt.timedelta(days=offset)
            if day.weekday() < 5 or self.rng.random() < 0.4:
                return day

    def time(self, day: dt.date | None = None) -> dt.time:
        """An office-hours time; on today, never later than now (no issue time in the future)."""
        value = dt.time(self.rng.randint(8, 19), self.rng.randint(0, 59), self.rng.randint(0, 59))
        if day == self.today and value > self.now:
            seconds = self.now.hour * 3600 + self.now.minute * 60 + self.now.second
            seconds = self.rng.randint(max(0, seconds - 6 * 3600), seconds)
            value = dt.time(seconds // 3600, seconds // 60 % 60, seconds % 60)
        return value

    def rate(self, day: dt.date) -> Decimal:
        """The dollar's selling rate of ``day`` (a plausible daily series around S/ 3.75)."""
        return self.rates.get(day, Decimal("3.750"))

    def customer(self, pool: list[Customer]) -> Customer:
        """A customer of ``pool``: the first three buy far more often than the rest."""
        weights = [8 if index < 3 else 1 for index in range(len(pool))]
        return self.rng.choices(pool, weights=weights, k=1)[0]

    def lines(self, products: list[Product], count: int, *, bags: bool = False) -> list[Line]:
        chosen = self.rng.sample(products, k=min(count, len(products)))
        lines = []
        for product in chosen:
            quantity = (
                self.rng.choice((1, 1, 1, 2, 3, 5, 10, 12, 24))
                if product.unit != "KGM"
                else Decimal(self.rng.randint(50, 5000))
            )
            taxed = product.affectation == "10"  # taxed prices include IGV; the others are unit values
            lines.append(
                Line(
                    product.description,
                    quantity,
                    unit_price=product.price if taxed else None,
                    unit_value=None if taxed else product.price,
                    affectation=product.affectation,
                    unit=product.unit,
                    code=product.code,
                    sunat_code=product.sunat_code,
                )
            )
        if bags:
            lines.append(
                Line(
                    BAG.description,
                    self.rng.randint(1, 4),
                    unit_price=BAG.price,
                    code=BAG.code,
                    sunat_code=BAG.sunat_code,
                    bag_tax=True,
                )
            )
        return lines

    def sale(self) -> Builder:
        """A factura or a boleta of a realistic kind."""
        r = self.rng.random()
        day = self.day()
        time = self.time(day)
        domestic = [p for p in PRODUCTS if p.affectation != "40"]
        if r < 0.40:  # boleta to a person, sometimes with bags
            return self.paid(
                Receipt(
                    customer=self.customer(self.people),
                    lines=self.lines(
                        domestic[:4] + domestic[11:13], self.rng.randint(1, 4), bags=self.rng.random() < 0.3
                    ),
                    issue_date=day,
                    issue_time=time,
                )
            )
        if r < 0.48:  # export
            return Invoice(
                customer=self.rng.choice(self.foreign),
                currency="USD",
                operation_type="0200",
                lines=self.lines([p for p in PRODUCTS if p.affectation == "40"], self.rng.randint(1, 2)),
                exchange_rate=self.rate(day),
                issue_date=day,
                issue_time=time,
            )
        customer = self.bad_ruc if self.rng.random() < 0.03 else self.customer(self.companies)
        lines = self.lines(domestic, self.rng.randint(1, 5))
        if self.rng.random() < 0.1:
            lines.append(
                Line(
                    GIFT.description,
                    1,
                    unit_value=GIFT.price,
                    affectation=GIFT.affectation,
                    code=GIFT.code,
                    sunat_code=GIFT.sunat_code,
                )
            )
        currency = "USD" if self.rng.random() < 0.12 else "PEN"
        invoice = Invoice(
            customer=customer,
            lines=lines,
            currency=currency,
            issue_date=day,
            issue_time=time,
            exchange_rate=self.rate(day) if currency == "USD" else None,
        )
        return self.on_credit(invoice) if self.rng.random() < 0.15 else self.with_blocks(invoice)

    def with_blocks(self, invoice: Invoice) -> Builder:
        """A cash factura in soles, sometimes with a global discount 02 or charge 49 (a share of its
        taxed base), a perception (operation 2001, 2 % of its total) or a line of beer with its ISC
        (system 02, monto fijo), and maybe its payment; or a freight bill (:meth:`freight`)."""
        if invoice.currency != "PEN":
            return self.paid(invoice)
        base = sum((a.igv_base for a in invoice.line_amounts() if a.affectation == "10"), Decimal("0"))
        kind = self._block(base, first=invoice.customer != self.bad_ruc)
        if kind == "discount":
            share = Decimal(self.blocks.choice((5, 10))) / 100
            discount = Discount(
                "02", base=base, factor=share, description=f"Descuento por volumen {share:.0%}"
            )
            invoice = dataclasses.replace(invoice, discounts=[discount])
        elif kind == "charge":
            charge = Charge("49", base=base, factor=Decimal("0.03"), description="Recargo por envío")
            invoice = dataclasses.replace(invoice, charges=[charge])
        elif kind == "perception":
            total = invoice.totals().total
            perception = {"codigo": "51", "porcentaje": 2, "base": float(total)}
            perception["monto"] = float(round2(total * 2 / 100))
            invoice = dataclasses.replace(
                invoice, operation_type="2001", extra={**invoice.extra, "percepcion": perception}
            )
        elif kind == "beer":
            beer = Line(
                BEER.description,
                self.blocks.randint(1, 10),
                unit_value=BEER.price,
                code=BEER.code,
                sunat_code=BEER.sunat_code,
                isc=BEER_ISC,
            )
            invoice = dataclasses.replace(invoice, lines=[*invoice.lines, beer])
        elif kind == "freight":
            return self.freight(invoice)
        return self.paid(invoice)

    def _block(self, base: Decimal, *, first: bool) -> str:
        """The block of a cash factura whose taxed base is ``base`` (a discount or a charge needs one):
        the next of :attr:`first_blocks` while some is left (``first``), then one drawn at the shares
        of :data:`BLOCK_SHARES`, or ``""`` for none."""
        if first:
            for kind in self.first_blocks:
                if base > 0 or kind not in ("discount", "charge"):
                    self.first_blocks.remove(kind)
                    return kind
        drawn, bound = self.blocks.random(), 0.0
        for kind, share in BLOCK_SHARES:
            bound += share
            if drawn < bound:
                return kind if base > 0 or kind not in ("discount", "charge") else ""
        return ""

    def freight(self, invoice: Invoice) -> Invoice:
        """The factura turned into a freight bill with the cargo transport detraction (1004, 4 %): one
        service line, the trip with its reference values."""
        origin, origin_address, destination, destination_address, load = self.blocks.choice(ROUTES)
        value = Decimal(self.blocks.randrange(800, 3000, 50))
        trip = CargoTrip(
            f"Traslado de {load}",
            origin,
            origin_address,
            destination,
            destination_address,
            service_value=value * Decimal("1.10"),
            effective_load_value=value * Decimal("0.90"),
            payload_value=value * Decimal("0.95"),
        )
        return dataclasses.replace(
            invoice,
            lines=[Line(f"Servicio de transporte de {load}", 1, unit_value=value, unit="ZZ")],
            detraction=Detraction("027", 4, DETRACTION_ACCOUNT, trip=trip),
        )

    def paid(self, sale: Builder) -> Builder:
        """The sale with its payment received (cash, cards, transfer) about a third of the time."""
        if self.blocks.random() >= 0.35:
            return sale
        method = self.blocks.choice(("01", "01", "02", "03", "04"))
        reference = f"OP-{self.blocks.randint(100000, 999999)}" if method != "01" else ""
        return dataclasses.replace(
            sale, payments=[Paid(sale.totals().total, method=method, reference=reference)]
        )

    def on_credit(self, invoice: Invoice) -> Invoice:
        """The factura sold on credit: one to three instalments every 30 days, adding up to its total."""
        total = invoice.totals().total
        count = self.rng.randint(1, 3)
        share = (total / count).quantize(Decimal("0.01"))
        amounts = [share] * (count - 1) + [total - share * (count - 1)]
        cuotas = [
            {
                "fecha": (invoice.issue_date + dt.timedelta(days=30 * (n + 1))).isoformat(),
                "codigo_tipo_moneda": invoice.currency,
                "monto": float(amount),
            }
            for n, amount in enumerate(amounts)
        ]
        return dataclasses.replace(invoice, extra={"codigo_condicion_de_pago": "02", "cuotas": cuotas})

    def note(self, invoice: dict[str, Any]) -> Builder:
        """A credit note (mostly) or a debit note against an issued factura, tied to its real lines: a
        return of some of its items, a global discount, its whole voiding, new payment dates for a sale
        on credit (type 13); or interest for late payment."""
        day = dt.date.fromisoformat(invoice["date"])
        day = min(self.today, day + dt.timedelta(days=self.rng.randint(0, 5)))
        lines: list[Line] = [line for line in invoice["lines"] if not line.free]
        common: dict[str, Any] = {
            "customer": invoice["customer"],
            "affected_external_id": invoice["external_id"],
            "currency": invoice["currency"],
            "issue_date": day,
            "issue_time": self.time(day),
            "exchange_rate": self.rate(day) if invoice["currency"] != "PEN" else None,
        }
        cuotas = invoice.get("cuotas") or []
        if cuotas and self.blocks.random() < 0.4:  # new payment dates for a sale on credit (type 13)
            later = dt.timedelta(days=self.blocks.choice((15, 30)))
            return CreditNote(
                **common,
                lines=[Line("Ajuste de fechas de pago", 1, unit_value=0, unit="ZZ")],
                note_type="13",
                reason="Nuevas fechas de pago",
                instalments=[
                    Instalment(dt.date.fromisoformat(c["fecha"]) + later, Decimal(str(c["monto"])))
                    for c in cuotas
                ],
            )
        kind = self.rng.random()
        if kind < 0.45 and lines:  # partial return: some units of some lines
            returned = []
            for line in self.rng.sample(lines, k=self.rng.randint(1, len(lines))):
                quantity = Decimal(str(line.quantity))
                back = max(
                    Decimal(1), (quantity * Decimal(self.rng.randint(20, 100)) / 100).to_integral_value()
                )
                returned.append(dataclasses.replace(line, quantity=min(quantity, back)))
            return CreditNote(**common, lines=returned, note_type="07", reason="Devolución de mercadería")
        if kind < 0.7:  # a global discount: a share of the value of the factura
            share = Decimal(self.rng.choice((5, 8, 10, 12, 15))) / 100
            value = (invoice["value"] * share).quantize(Decimal("0.01"))
            discount = Line("Descuento global", 1, unit_value=value, code="DSCTO")
            return CreditNote(
                **common, lines=[discount], note_type="04", reason=f"Descuento global del {share * 100:.0f} %"
            )
        if kind < 0.8 and lines:  # the whole operation voided
            return CreditNote(**common, lines=lines, note_type="01", reason="Anulación de la operación")
        interest = (invoice["value"] * Decimal(self.rng.choice((1, 2, 3))) / 100).quantize(Decimal("0.01"))
        return DebitNote(
            **common,
            lines=[Line("Intereses por mora", 1, unit_value=max(interest, Decimal("1.00")), unit="ZZ")],
            note_type="01",
            reason="Intereses por pago fuera de plazo",
        )


def exchange_rates(rng: random.Random, today: dt.date, days: int) -> dict[dt.date, Decimal]:
    """A daily dollar selling rate for the last ``days`` days: a small random walk around S/ 3.75,
    three decimals, as SUNAT publishes them."""
    rate = Decimal("3.750")
    rates = {}
    for offset in range(days, -1, -1):
        rate += Decimal(rng.randint(-8, 8)) / 1000
        rate = min(max(rate, Decimal("3.620")), Decimal("3.880"))
        rates[today - dt.timedelta(days=offset)] = rate
    return rates


#: Tries of a seed document that got no answer (each after the first with the first one's idempotency key).
ISSUE_ATTEMPTS = 3


def lanes_in_date_order(builders: list[Builder]) -> list[list[int]]:
    """The builders' indices by series (a lane each), each lane in order of issue date and time: issued one
    after the other, a series takes the numbers the service gives it in the order of its dates."""
    ordered = sorted(range(len(builders)), key=lambda i: (builders[i].issue_date, builders[i].issue_time))
    lanes: dict[str, list[int]] = {}
    for index in ordered:
        lanes.setdefault(builders[index].series, []).append(index)
    return list(lanes.values())


def seed(
    client: Client,
    documents: int,
    days: int,
    *,
    seed: int = 7,
    workers: int = 4,
    today: dt.date | None = None,
    now: dt.time | None = None,
    progress: Callable[[int], None] | None = None,
    tickets: bool = True,
    stage: Callable[[str], None] | None = None,
) -> SeedReport:
    """Issue ``documents`` documents over the last ``days`` days through ``client``; notes come last,
    against facturas issued by the same run. ``progress`` is called with the number done after each one.

    With ``tickets`` (default), then: declare the boletas of most past days (a daily summary per day;
    today and a few recent days are left to declare), void a few accepted facturas of the last
    :data:`VOID_WINDOW_DAYS` days (a voided communication per day) and a few declared boletas (a
    summary with process 3 per day), and wait for every ticket (:func:`wait_for_ticket`). ``stage`` is
    called with a short name of each phase (``"Issuing"``, ``"Declaring"``, ``"Voiding"``).
    ``today`` and ``now`` pin the run's clock (by default Lima's), so that a run that crosses midnight
    makes the same data as one that does not.
    """
    run_today = today or peru_today()
    if now is None and today is None:
        now = peru_now().time().replace(microsecond=0, tzinfo=None)
    generator = Generator(seed, run_today, days, now)
    notes = max(0, documents // 12)
    sales = [generator.sale() for _ in range(documents - notes)]
    report = SeedReport()
    _stock_for_sales(client, sales, report)
    issued: list[_Issued] = []
    invoices: list[tuple[int, dict[str, Any]]] = []

    lock = threading.Lock()

    run_key = uuid.uuid4().hex[:12]

    def issue(builder: Builder, key: str) -> Any:
        """Issue one document; when no answer came (the service busy, a worker restarted), again with
        the same idempotency key, which answers with the document the first try made, if it made it."""
        for attempt in range(ISSUE_ATTEMPTS):
            try:
                return client.documents.issue(builder, idempotency_key=key)
            except (TransportError, OutcomeUnknownError):
                if attempt == ISSUE_ATTEMPTS - 1:
                    raise
        raise AssertionError("unreachable")

    def lane(builders: list[Builder], indices: list[int], first: int) -> None:
        for index in indices:
            builder = builders[index]
            try:
                result = issue(builder, f"seed-{run_key}-{first + index}")
            except FacturadorError as exc:
                with lock:
                    report.errors.append(str(exc))
                    done()
                continue
            with lock:
                record(first + index, builder, result)
                done()

    def done() -> None:
        if progress is not None:
            progress(report.issued + len(report.errors))

    def record(index: int, builder: Builder, result: Any) -> None:
        report.issued += 1
        report.by_type[builder.document_type] += 1
        issued.append(_Issued(index, builder, result.external_id, result.state_type_id))
        domestic = getattr(builder, "operation_type", "") == "0101" and not (
            builder.discounts or builder.charges  # notes return plain lines only
        )
        if builder.document_type == "01" and domestic and result.state_type_id in ("05", "07"):
            invoices.append(
                (
                    index,
                    {
                        "external_id": result.external_id,
                        "customer": builder.customer,
                        "date": builder.issue_date.isoformat(),
                        "currency": builder.currency,
                        "lines": list(builder.lines),
                        "value": builder.totals().value,
                        "total": builder.totals().total,
                        "cuotas": builder.extra.get("cuotas"),
                    },
                )
            )

    def run(builders: list[Builder], first: int) -> None:
        """Issue ``builders`` with the service's numbers (``"#"``: nothing predicted, so a user issuing
        beside the seed takes the next number and disturbs nothing), a series' documents in date order
        one after the other and the series side by side."""
        lanes = lanes_in_date_order(builders)
        with ThreadPoolExecutor(max(1, min(workers, len(lanes)))) as pool:
            for future in [pool.submit(lane, builders, indices, first) for indices in lanes]:
                future.result()

    if stage is not None:
        stage("Issuing")
    run(sales, 0)
    invoices.sort(key=lambda item: item[0])  # the generator's order, whatever the threads did
    noted: set[str] = set()
    if invoices:
        note_builders: list[Builder] = []
        remaining: dict[str, Decimal] = {}  # of each factura noted: its total, plus debits, less credits
        draws = 0
        while len(note_builders) < notes and draws < 4 * notes:  # a refused draw is drawn again
            draws += 1
            target = generator.rng.choice(invoices)[1]
            note = generator.note(target)
            key, amount = target["external_id"], note.totals().total
            left = remaining.setdefault(key, target["total"])
            if isinstance(note, CreditNote) and amount > left:
                continue  # the service refuses a credit note that takes its factura below zero
            remaining[key] = left + amount if isinstance(note, DebitNote) else left - amount
            noted.add(key)
            note_builders.append(note)
        run(note_builders, len(sales))
    issued.sort(key=lambda item: item.index)
    if tickets:
        _tickets(client, generator.rng, run_today, issued, noted, documents, report, stage)
    _withholding(client, generator, max(1, documents // 60), report, stage)
    _guides(client, generator, [invoice for _, invoice in reversed(invoices)], report, stage)
    report.by_state = Counter(item.state for item in issued)
    _backoffice(client, generator, max(4, documents // 10), report, stage)
    return report


# ----------------------------------------------------------------------------------------------------
# The goods the sales take out, bought before


#: What a seeded product of :data:`PRODUCTS` costs, as a share of its sale price.
COST_SHARE = Decimal("0.62")
#: The stock bought for the run: what its sales take out and this much more, so that every product ends
#: with some left (the service never lets a sale take a product below zero).
STOCK_MARGIN = Decimal("0.3")


def _stock_for_sales(client: Client, sales: list[Builder], report: SeedReport) -> None:
    """Register the goods the run's sales will take out (lines with a product code, services aside) with
    their cost, and put in the stock they need and a margin (:data:`STOCK_MARGIN`): an opening stock for
    a new product, a purchase for one a former run left. Failures go to ``report.errors``."""
    needed: dict[str, Decimal] = {}
    described: dict[str, Line] = {}
    for builder in sales:
        for line in getattr(builder, "lines", ()):
            if line.code and line.unit != "ZZ":
                needed[line.code] = needed.get(line.code, Decimal(0)) + Decimal(str(line.quantity))
                described.setdefault(line.code, line)
    for code, quantity in sorted(needed.items()):
        line = described[code]
        stock = (quantity * (1 + STOCK_MARGIN)).to_integral_value(rounding="ROUND_CEILING") + 10
        price = Decimal(str(line.unit_price if line.unit_price is not None else line.unit_value))
        try:
            if any(p.code == code for p in client.items.search(code, fresh=True)):
                client.inventory.add(code, stock)
            else:
                client.items.create(
                    code=code,
                    description=line.description,
                    sale_price=price,
                    unit=line.unit,
                    affectation=line.affectation,
                    stock=stock,
                    purchase_unit_price=str((price * COST_SHARE).quantize(Decimal("0.01"))),
                    stock_min=max(1, int(quantity / 20)),
                )
        except FacturadorError as exc:
            report.errors.append(f"stock de {code}: {exc}")


# ----------------------------------------------------------------------------------------------------
# Summaries and voided communications


def _wait(resource: TicketResource, ref: TicketRef, report: SeedReport) -> bool:
    """Wait for every summary of ``ref``; True when all were accepted."""
    accepted = True
    for part in ref.every:
        try:
            status = wait_for_ticket(
                resource, external_id=part.external_id, timeout=TICKET_TIMEOUT, initial=0.2
            )
        except TicketTimeout:
            report.tickets["in process"] += 1
            accepted = False
            continue
        report.tickets["accepted" if status.accepted else "rejected"] += 1
        if not status.accepted:
            accepted = False
            report.errors.append(f"{status.identifier}: {status.code} - {status.description}")
    return accepted


def _by_day(items: list[_Issued]) -> dict[dt.date, list[_Issued]]:
    grouped: dict[dt.date, list[_Issued]] = {}
    for item in items:
        grouped.setdefault(item.day, []).append(item)
    return dict(sorted(grouped.items()))


def _tickets(
    client: Client,
    rng: random.Random,
    today: dt.date,
    issued: list[_Issued],
    noted: set[str],
    documents: int,
    report: SeedReport,
    stage: Callable[[str], None] | None,
) -> None:
    """Declare most past days' boletas, void a few recent facturas and declared boletas, and wait."""
    if stage is not None:
        stage("Declaring")
    # 1. daily summaries: every day with registered boletas, but today and about one recent day in ten
    registered = [i for i in issued if i.group == "02" and i.state == "01"]
    days = sorted({i.day for i in registered})
    past = [day for day in days if day < today]
    pending = {today} | ({past[-1]} if past else set())
    pending |= {day for day in past if rng.random() < 0.1}
    # ... but at least one day of the voiding window is declared, so that a boleta can be voided
    recent = [day for day in past if day >= today - dt.timedelta(days=VOID_WINDOW_DAYS - 1)]
    if recent and all(day in pending for day in recent):
        pending.discard(recent[0])
    by_day = _by_day(registered)
    delays = random.Random(len(registered))  # its own: the run's other choices stay as they were
    for day in days:
        if day in pending:
            continue
        # sent as an accountant does: the next day mostly, at times two or three days later (SUNAT takes
        # them up to 7 days after the documents' date)
        sent_on = min(today, day + dt.timedelta(days=delays.choice((1, 1, 1, 1, 2, 3))))
        try:
            ref = client.summaries.declare(day, generated_on=sent_on)
        except FacturadorError as exc:
            report.errors.append(f"summary of {day}: {exc}")
            continue
        report.summaries += len(ref.every)
        if _wait(client.summaries, ref, report):
            report.declared += len(by_day[day])
            for item in by_day[day]:
                item.state = "05"

    # 2. voided communications: a few accepted facturas of the last days (without notes), by day
    if stage is not None:
        stage("Voiding")
    window = today - dt.timedelta(days=VOID_WINDOW_DAYS - 1)
    facturas = [
        i
        for i in issued
        if i.builder.document_type == "01"
        and i.state in ("05", "07")
        and i.day >= window
        and i.external_id not in noted
    ]
    chosen = rng.sample(facturas, k=min(len(facturas), max(1, documents // 300)))
    for day, items in _by_day(chosen).items():
        pairs = [(item.external_id, rng.choice(VOID_REASONS)) for item in items]
        try:
            ref = client.voided.void(day, pairs)
        except FacturadorError as exc:
            report.errors.append(f"voided communication of {day}: {exc}")
            continue
        report.voided_communications += len(ref.every)
        if _wait(client.voided, ref, report):
            report.voided_facturas += len(items)
            for item in items:
                item.state = "11"

    # 3. summaries with process 3: a few declared (accepted) boletas of the last days, by day
    boletas = [i for i in issued if i.builder.document_type == "03" and i.state == "05" and i.day >= window]
    chosen = rng.sample(boletas, k=min(len(boletas), max(1, documents // 400)))
    for day, items in _by_day(chosen).items():
        pairs = [(item.external_id, rng.choice(VOID_REASONS)) for item in items]
        try:
            ref = client.summaries.void(day, pairs)
        except FacturadorError as exc:
            report.errors.append(f"voiding summary of {day}: {exc}")
            continue
        report.voiding_summaries += len(ref.every)
        if _wait(client.summaries, ref, report):
            report.voided_boletas += len(items)
            for item in items:
                item.state = "11"


# ----------------------------------------------------------------------------------------------------
# Retentions and perceptions


def _withholding(
    client: Client, generator: Generator, count: int, report: SeedReport, stage: Callable[[str], None] | None
) -> None:
    """Issue ``count`` retentions (to supplier companies, mostly regime 01) and ``count`` perceptions
    (to customer companies, every regime) of this month, some of dollar invoices; the connector's
    builders compute their amounts."""
    if stage is not None:
        stage("Retentions")
    rng, today = generator.rng, generator.today
    for family in ("retentions", "perceptions"):
        for _ in range(count):
            day = today - dt.timedelta(days=rng.randint(0, min(today.day, generator.days) - 1))
            usd = rng.random() < 0.25
            total = Decimal(rng.randint(700, 25000)) + Decimal(rng.randint(0, 99)) / 100
            paid = total if rng.random() < 0.8 else (total / 2).quantize(Decimal("0.01"))
            payment = Payment(
                "01",
                f"F00{rng.randint(1, 3)}-{rng.randint(1, 9999)}",
                issued=day - dt.timedelta(days=rng.randint(0, 25)),
                total=total,
                paid=paid,
                currency="USD" if usd else "PEN",
                paid_on=day,
                exchange_rate=generator.rate(day) if usd else None,
            )
            party = rng.choice(generator.companies)
            request: Retention | Perception
            if family == "retentions":
                regime = "01" if rng.random() < 0.9 else "02"
                request = Retention(supplier=party, regime=regime, issued=day, payments=[payment])
            else:
                request = Perception(
                    customer=party, regime=rng.choice(("01", "02", "03")), issued=day, payments=[payment]
                )
            try:
                result = getattr(client, family).issue(request)
            except FacturadorError as exc:
                report.errors.append(f"{family}: {exc}")
                continue
            report.withholding[family] += 1
            if not result.accepted:
                report.errors.append(f"{result.number}: {result.response}")


# ----------------------------------------------------------------------------------------------------
# Dispatch guides

#: The demo's driver and vehicle (formats SUNAT's GRE rules take).
GUIDE_DRIVER = Driver("1", "41234567", "HUAMAN QUISPE, CARLOS", "Q41234567")
GUIDE_PLATE = "BKT482"
GUIDE_ORIGIN = Place("150101", "Av. Argentina 2450, Lima", establishment="0000")


def _guides(
    client: Client,
    generator: Generator,
    invoices: list[dict[str, Any]],
    report: SeedReport,
    stage: Callable[[str], None] | None,
) -> None:
    """Issue today's dispatch guides: one for the latest accepted factura (``from_document``: its lines,
    the factura cited, the stock left as the factura moved it), two for sales of goods (reason 01,
    their stock taken out: one sent, one left registered), one between the company's establishments
    (04) and one carrier's guide (31); all sent but one, their tickets waited for. Failures are
    reported in ``report.errors``."""
    if not invoices:
        return
    if stage is not None:
        stage("Guides")
    rng = random.Random(len(invoices) * 7907 + generator.days)
    transport = PrivateTransport(GUIDE_DRIVER, plate=GUIDE_PLATE)
    guides: list[SenderGuide | CarrierGuide] = []

    def delivery(customer: Customer) -> Place:
        return Place(customer.ubigeo or "150101", customer.address or "Jr. de la Unión 500, Lima")

    for invoice in invoices:  # the latest one still accepted (not voided since)
        try:
            guides.append(
                client.dispatches.from_document(
                    invoice["external_id"],
                    origin=GUIDE_ORIGIN,
                    delivery=delivery(invoice["customer"]),
                    transport=transport,
                    weight=Decimal(rng.randint(5, 400)),
                    days=generator.days + 5,
                    packages=rng.randint(1, 12),
                    issue_date=generator.today,
                )
            )
            break
        except (FacturadorError, ValueError):
            continue
    for invoice in rng.sample(invoices, min(2, len(invoices))):
        customer: Customer = invoice["customer"]
        if customer.identity_type != "6":
            continue
        guides.append(
            SenderGuide(
                customer=GuideParty("6", customer.number, customer.name),
                origin=GUIDE_ORIGIN,
                delivery=delivery(customer),
                transport=transport,
                weight=Decimal(rng.randint(5, 400)),
                items=[
                    GuideItem(line.description, line.quantity, line.unit, line.code)
                    for line in invoice["lines"]
                ],
                reason_description="Venta",
                issue_date=generator.today,
            )
        )
    refs = []
    for guide in guides:
        try:
            refs.append(client.dispatches.issue(guide))
        except FacturadorError as exc:
            report.errors.append(f"guía: {exc}")
    if not refs:
        return
    registered = refs[-1].external_id if len(refs) >= 2 else ""  # left to send from the dashboard
    ruc = refs[0].filename.split("-", 1)[0]
    name = rng.choice(generator.companies).name
    more: list[SenderGuide | CarrierGuide] = [
        SenderGuide(
            customer=GuideParty("6", ruc, "NUESTRA EMPRESA"),
            origin=GUIDE_ORIGIN,
            delivery=Place("150122", "Av. Larco 1150, Miraflores (almacén)"),
            transport=transport,
            weight=Decimal(rng.randint(5, 400)),
            items=[GuideItem("Mercadería para reposición de tienda", rng.randint(5, 40), "BX")],
            reason="04",
            reason_description="Traslado entre establecimientos de la misma empresa",
            issue_date=generator.today,
        ),
        CarrierGuide(
            sender=GuideParty("6", generator.companies[0].number, generator.companies[0].name),
            recipient=GuideParty("6", generator.companies[1].number, name),
            origin=Place("150101", "Av. Argentina 2450, Lima"),
            delivery=Place("130101", "Av. Industrial 560, Trujillo"),
            transport=PrivateTransport(GUIDE_DRIVER, plate=GUIDE_PLATE, certificate="TUC0048213"),
            mtc="MTC1548",
            weight=Decimal(rng.randint(500, 9000)),
            items=[GuideItem("Sacos de fertilizante de 50 kg", rng.randint(10, 180), "NIU")],
            issue_date=generator.today,
        ),
    ]
    for guide in more:
        try:
            refs.append(client.dispatches.issue(guide))
        except FacturadorError as exc:
            report.errors.append(f"guía: {exc}")
    for ref in refs:
        if ref.external_id == registered:
            continue
        try:
            client.dispatches.send(ref.external_id)
            status = wait_for_ticket(
                client.dispatches, external_id=ref.external_id, timeout=TICKET_TIMEOUT, initial=0.2
            )
        except (FacturadorError, TicketTimeout) as exc:
            report.errors.append(f"{ref.number}: {exc}")
            continue
        if not status.accepted:
            report.errors.append(f"{ref.number}: {status.message}")


# The commercial back office: products with stock, suppliers, quotations and sale notes


@dataclass(frozen=True)
class StockedProduct:
    """A product of the shop's catalog: sale price with IGV, purchase cost, and the stock it starts with."""

    code: str
    description: str
    price: Decimal
    cost: Decimal
    stock: int


SHOP_PRODUCTS = (
    StockedProduct("A001", "Termo de acero 1 L", Decimal("59.00"), Decimal("32.00"), 120),
    StockedProduct("A002", "Mochila escolar", Decimal("89.90"), Decimal("48.00"), 60),
    StockedProduct("A003", "Cuaderno A4 100 hojas", Decimal("5.90"), Decimal("2.80"), 800),
    StockedProduct("A004", "Lapicero azul (caja x 12)", Decimal("12.50"), Decimal("6.10"), 300),
    StockedProduct("A005", "Taza de cerámica", Decimal("11.80"), Decimal("4.50"), 200),
    StockedProduct("A006", "Audífonos Bluetooth", Decimal("149.00"), Decimal("82.00"), 40),
    StockedProduct("A007", "Cargador USB-C 20 W", Decimal("45.00"), Decimal("21.50"), 75),
    StockedProduct("A008", "Botella deportiva 750 ml", Decimal("24.90"), Decimal("11.00"), 150),
)
SUPPLIERS = (
    ("20100128056", "IMPORTADORA DEL PACIFICO S.A.C."),
    ("20512345671", "LIBRERIA MAYORISTA LIMA E.I.R.L."),
)


def _backoffice(
    client: Client, generator: Generator, count: int, report: SeedReport, stage: Callable[[str], None] | None
) -> None:
    """The shop's back office over the run's days: its catalog with cost and stock (a purchase entry
    each), two suppliers, ``count`` quotations (a third of them converted into sale notes) and
    ``count`` sale notes to the run's customers (a third turned into boletas or facturas today, the
    facturas sent). Runs last, so the documents it makes are today's and follow the run's numbers;
    their states join ``report.by_state``."""
    if stage is not None:
        stage("Back office")
    rng, today, now = generator.rng, generator.today, generator.now
    office = report.backoffice
    try:
        ids = _stock_catalog(client, rng, office, count)
        [series, *_] = client.sale_notes.series()
    except (FacturadorError, ValueError) as exc:
        report.errors.append(f"back office: {exc}")
        return
    for number, name in SUPPLIERS:
        try:
            client.persons.create(number=number, name=name, identity_type="6", person_type="suppliers")
            office["suppliers"] += 1
        except FacturadorError:
            pass  # already registered (a second run on the same tenant)
    buyers = [*generator.companies[:6], *generator.people]

    def lines() -> list[NoteLine]:
        picked = rng.sample(SHOP_PRODUCTS, rng.randint(1, 3))
        return [NoteLine(rng.randint(1, 6), unit_price=p.price, item_id=ids[p.code]) for p in picked]

    def moments() -> list[tuple[dt.date, dt.time]]:
        """``count`` moments of the run's days in date order: a series' numbers follow its dates."""
        days = [generator.day() for _ in range(count)]
        return sorted((day, generator.time(day)) for day in days)

    for day, time in moments():
        quotation = Quotation(
            customer=rng.choice(buyers),
            lines=lines(),
            issue_date=day,
            issue_time=time,
            description="Precios válidos por 15 días",
            date_of_due=day + dt.timedelta(days=15),
        )
        try:
            client.quotations.create(quotation)
            office["quotations"] += 1
        except FacturadorError as exc:
            report.errors.append(f"quotation: {exc}")
    notes: list[tuple[SaleNoteRef, Customer]] = []
    for day, time in moments():
        buyer = rng.choice(buyers)
        note = SaleNote(series_id=series.id, customer=buyer, lines=lines(), issue_date=day, issue_time=time)
        try:
            notes.append((client.sale_notes.issue(note), buyer))
            office["sale notes"] += 1
        except FacturadorError as exc:
            report.errors.append(f"sale note: {exc}")
    # a third of the quotations became sale notes, today
    quotations = client.quotations.list(
        start=today - dt.timedelta(days=generator.days), end=today, fresh=True
    )
    for record in rng.sample(quotations, len(quotations) // 3):
        try:
            client.sale_notes.issue(
                client.quotations.to_sale_note(record, series_id=series.id, issue_date=today, issue_time=now)
            )
            office["quotations converted"] += 1
            office["sale notes"] += 1
        except (FacturadorError, ValueError) as exc:
            report.errors.append(f"{record.number}: {exc}")
    # a third of the sale notes became a boleta (a factura for a company), today, in the run's order
    for ref, buyer in rng.sample(notes, len(notes) // 3):
        kind: Literal["01", "03"] = "01" if buyer.identity_type == "6" else "03"
        try:
            made = client.sale_notes.generate_cpe(
                ref.id, document_type=kind, issue_date=today, issue_time=now
            )
            state = made.state_type_id
            if kind == "01":
                state = client.documents.send(made.external_id).state_type_id
        except FacturadorError as exc:
            report.errors.append(f"{ref.number}: {exc}")
            continue
        office["sale notes converted"] += 1
        report.by_state[state] += 1


def _stock_catalog(client: Client, rng: random.Random, office: Counter[str], count: int) -> dict[str, int]:
    """The id of every product of :data:`SHOP_PRODUCTS`, registered with its cost and opening stock (or
    found, on a second run) and given a purchase entry that covers ``count`` sale notes and quotations."""
    ids: dict[str, int] = {}
    for product in SHOP_PRODUCTS:
        found = [p for p in client.items.search(product.code, fresh=True) if p.code == product.code]
        if found:
            ids[product.code] = found[0].id
        else:
            created = client.items.create(
                code=product.code,
                description=product.description,
                sale_price=product.price,
                stock=product.stock,
                purchase_unit_price=str(product.cost),
                stock_min=5,
            )
            ids[product.code] = created.id
            office["products"] += 1
        # a purchase received, enough for the run's sale notes (each takes 1 to 6 of up to 3 products)
        client.inventory.add(product.code, 2 * count + rng.randint(5, 40))
    return ids
