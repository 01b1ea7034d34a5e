"""Realistic demo data issued through the API with the connector: customers, products, every line type,
PEN and USD, credit and debit notes, and some documents the tax authority rejects or observes.

Used by ``facturador seed`` and ``facturador demo``. Deterministic for a given ``seed``.
"""

from __future__ import annotations

import datetime as dt
import random
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from facturador.connector import Client, FacturadorError
from facturador.connector.builders import Builder, CreditNote, Customer, DebitNote, Invoice, Line, Receipt
from facturador.sunat.calendar import peru_today
from facturador.sunat.identity import ruc_check_digit

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
BAG = Product("B001", "Bolsa plástica", Decimal("0.10"), sunat_code="24111503")
GIFT = Product("G001", "Muestra gratuita", Decimal("15.00"), "15", "NIU", "50202301")


def make_ruc(prefix: str, rng: random.Random, *, valid: bool = True) -> str:
    """A RUC with a correct check digit (or, with ``valid=False``, a wrong one: a typo SUNAT rejects)."""
    body = prefix + "".join(rng.choice("0123456789") for _ in range(8))
    digit = ruc_check_digit(body)
    return body + str(digit if valid else (digit + 1) % 10)


@dataclass
class SeedReport:
    """What a seeding run issued: counts by document type and by state, and the errors met."""

    issued: int = 0
    by_type: Counter[str] = field(default_factory=Counter)
    by_state: Counter[str] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)

    def summary(self) -> str:
        types = ", ".join(f"{k}: {v}" for k, v in sorted(self.by_type.items()))
        states = ", ".join(f"{k}: {v}" for k, v in sorted(self.by_state.items()))
        text = f"{self.issued} documents issued (types {types}; states {states})"
        if self.errors:
            text += f"; {len(self.errors)} refused by the service, first: {self.errors[0]}"
        return text


class Generator:
    """Builds the documents of a seeding run from a seeded random generator."""

    def __init__(self, seed: int, today: dt.date, days: int):
        self.rng = random.Random(seed)
        self.today = today
        self.days = max(1, days)
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

    def time(self) -> dt.time:
        return dt.time(self.rng.randint(8, 19), self.rng.randint(0, 59), self.rng.randint(0, 59))

    def lines(self, products: list[Product], count: int, *, bags: bool = False) -> list[Line]:
        chosen = self.rng.sample(products, k=min(count, len(products)))
        lines = []
        for product in chosen:
            quantity = (
                self.rng.choice((1, 1, 1, 2, 3, 5, 10, 12, 24))
                if product.unit != "KGM"
                else Decimal(self.rng.randint(50, 5000))
            )
            price_key = "unit_price" if product.affectation == "10" else "unit_value"
            lines.append(
                Line(
                    product.description,
                    quantity,
                    affectation=product.affectation,
                    unit=product.unit,
                    code=product.code,
                    sunat_code=product.sunat_code,
                    **{price_key: product.price},
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
        day, time = self.day(), self.time()
        domestic = [p for p in PRODUCTS if p.affectation != "40"]
        if r < 0.40:  # boleta to a person, sometimes with bags
            return Receipt(
                customer=self.rng.choice(self.people),
                lines=self.lines(
                    domestic[:4] + domestic[11:13], self.rng.randint(1, 4), bags=self.rng.random() < 0.3
                ),
                issue_date=day,
                issue_time=time,
            )
        if r < 0.48:  # export
            return Invoice(
                customer=self.rng.choice(self.foreign),
                currency="USD",
                operation_type="0200",
                lines=self.lines([p for p in PRODUCTS if p.affectation == "40"], self.rng.randint(1, 2)),
                exchange_rate="3.75",
                issue_date=day,
                issue_time=time,
            )
        customer = self.bad_ruc if self.rng.random() < 0.03 else self.rng.choice(self.companies)
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
        return Invoice(
            customer=customer,
            lines=lines,
            currency=currency,
            issue_date=day,
            issue_time=time,
            exchange_rate="3.75" if currency == "USD" else None,
        )

    def note(self, invoice: dict[str, Any]) -> Builder:
        """A credit note (mostly) or a debit note against an issued factura."""
        day = dt.date.fromisoformat(invoice["date"])
        day = min(self.today, day + dt.timedelta(days=self.rng.randint(0, 5)))
        customer = invoice["customer"]
        if self.rng.random() < 0.8:
            return CreditNote(
                customer=customer,
                lines=[Line("Devolución de mercadería", 1, unit_price="59.00")],
                affected_external_id=invoice["external_id"],
                note_type="07",
                reason="Devolución parcial de mercadería",
                currency=invoice["currency"],
                issue_date=day,
                issue_time=self.time(),
            )
        return DebitNote(
            customer=customer,
            lines=[Line("Intereses por mora", 1, unit_value="25.00", unit="ZZ")],
            affected_external_id=invoice["external_id"],
            note_type="01",
            reason="Intereses por pago fuera de plazo",
            currency=invoice["currency"],
            issue_date=day,
            issue_time=self.time(),
        )


def seed(
    client: Client,
    documents: int,
    days: int,
    *,
    seed: int = 7,
    workers: int = 4,
    today: dt.date | None = None,
    progress: Callable[[int], None] | None = None,
) -> SeedReport:
    """Issue ``documents`` documents over the last ``days`` days through ``client``; notes come last,
    against facturas issued by the same run. ``progress`` is called with the number done after each one.
    """
    generator = Generator(seed, today or peru_today(), days)
    notes = max(0, documents // 12)
    sales = [generator.sale() for _ in range(documents - notes)]
    report = SeedReport()
    invoices: list[dict[str, Any]] = []

    def issue(builder: Builder) -> tuple[Builder, Any]:
        return builder, client.documents.issue(builder)

    def run(builders: Iterator[Builder] | list[Builder]) -> None:
        with ThreadPoolExecutor(workers) as pool:
            for future in as_completed([pool.submit(issue, b) for b in builders]):
                try:
                    builder, result = future.result()
                except FacturadorError as exc:
                    report.errors.append(str(exc))
                else:
                    report.issued += 1
                    report.by_type[builder.document_type] += 1
                    report.by_state[result.state_type_id] += 1
                    domestic = getattr(builder, "operation_type", "") == "0101"
                    if builder.document_type == "01" and domestic and result.state_type_id in ("05", "07"):
                        invoices.append(
                            {
                                "external_id": result.external_id,
                                "customer": builder.customer,
                                "date": builder.issue_date.isoformat(),
                                "currency": builder.currency,
                            }
                        )
                if progress is not None:
                    progress(report.issued + len(report.errors))

    run(sales)
    invoices.sort(key=lambda item: item["external_id"])  # deterministic order whatever the threads did
    if invoices:
        run([generator.note(generator.rng.choice(invoices)) for _ in range(notes)])
    return report
