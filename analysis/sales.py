"""Sales figures as an accountant reads them, computed with :class:`~decimal.Decimal` from list rows.

The rules, in one place:

* **What counts**: every document except those the authority rejected (``09``) and those voided
  (``11``). A document being voided (``13``) still counts until the authority accepts the voiding.
* **Sign**: credit notes (``07``) subtract, everything else adds (facturas, boletas, debit notes and
  whatever other sales document a tenant lists).
* **Valor de venta** is the value without taxes: taxed + exonerated + unaffected + export. Free
  transfers (*gratuitas*) are not sales value: they are shown apart. **IGV**, **ICBPER** and the
  **importe total** are their own figures; the total also carries ISC and other charges, if any.
* **Currencies are never added.** Figures are kept per currency; the **consolidation in soles** converts
  each foreign-currency document with *its own* exchange rate (``exchange_rate_sale``), each amount
  rounded half up to the cent, and the total of a converted document is the sum of its converted parts
  (so a document's soles figures add up, as in the sales register). A foreign-currency document whose
  rate is unknown (real tenants that do not list it) is left out of the soles figures and named in
  :attr:`SalesSummary.unconverted`.

Everything here takes the rows of ``client.documents.list(...)`` (``DocumentList.rows``: the JSON dicts)
or :class:`Sale` objects made from them by :func:`sales_of`; nothing does HTTP. The dashboard and the
notebooks show these figures; charts may turn them into floats at the very end.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from decimal import Decimal
from functools import cached_property
from typing import Any, ClassVar, TypeVar

from connector.models import DocumentList
from connector.parsing import exchange_rate_of, gc_paused, parse_date, parse_decimal, split_number
from sunat.money import round2

__all__ = [
    "CREDIT_NOTE",
    "NOT_COUNTED",
    "SOLES",
    "Amounts",
    "GroupTotal",
    "ProductLine",
    "Sale",
    "SalesSummary",
    "affectation_mix",
    "by_customer",
    "by_day",
    "by_month",
    "by_series",
    "by_type",
    "compare_periods",
    "group_totals",
    "listed_sales",
    "previous_period",
    "product_totals",
    "rejection_rate",
    "sales_of",
    "summarize",
]

#: The document type whose amounts subtract.
CREDIT_NOTE = "07"
#: States whose documents are out of every sales figure: rejected by the authority, voided.
NOT_COUNTED = frozenset({"09", "11"})
#: The currency of the consolidated figures.
SOLES = "PEN"
ZERO = Decimal("0")
T = TypeVar("T")


@dataclass(frozen=True)
class Amounts:
    """The amounts of one document or a sum of documents, in one currency (already signed)."""

    taxed: Decimal = ZERO
    exonerated: Decimal = ZERO
    unaffected: Decimal = ZERO
    export: Decimal = ZERO
    free: Decimal = ZERO
    igv: Decimal = ZERO
    icbper: Decimal = ZERO
    total: Decimal = ZERO
    documents: int = 0

    @property
    def value(self) -> Decimal:
        """Valor de venta: taxed + exonerated + unaffected + export (without taxes, without gratuitas)."""
        return self.taxed + self.exonerated + self.unaffected + self.export

    @property
    def other(self) -> Decimal:
        """What the total carries besides value, IGV and ICBPER (ISC, other charges): usually zero."""
        return self.total - self.value - self.igv - self.icbper

    def __add__(self, other: Amounts) -> Amounts:
        return Amounts(
            self.taxed + other.taxed,
            self.exonerated + other.exonerated,
            self.unaffected + other.unaffected,
            self.export + other.export,
            self.free + other.free,
            self.igv + other.igv,
            self.icbper + other.icbper,
            self.total + other.total,
            self.documents + other.documents,
        )

    @classmethod
    def total_of(cls, amounts: Iterable[Amounts]) -> Amounts:
        """The sum of many amounts: the same as adding them one by one with ``+``, without building an
        intermediate :class:`Amounts` per addition (20,000 documents: one object instead of 20,000)."""
        taxed = exonerated = unaffected = export = free = igv = icbper = total = ZERO
        documents = 0
        for a in amounts:
            taxed += a.taxed
            exonerated += a.exonerated
            unaffected += a.unaffected
            export += a.export
            free += a.free
            igv += a.igv
            icbper += a.icbper
            total += a.total
            documents += a.documents
        return cls(taxed, exonerated, unaffected, export, free, igv, icbper, total, documents)

    def scaled(self, sign: int) -> Amounts:
        """The same amounts times ``sign`` (``-1`` for a credit note); the count stays."""
        values = {f.name: getattr(self, f.name) * sign for f in fields(self) if f.name != "documents"}
        return Amounts(**values, documents=self.documents)


@dataclass(frozen=True)
class ProductLine:
    """One line of a document (from a list asked ``details=True``): product code and description,
    unit, quantity and its amounts in the document's currency (unsigned; free lines have no value)."""

    code: str
    description: str
    unit: str
    quantity: Decimal
    affectation: str
    value: Decimal
    igv: Decimal
    icbper: Decimal
    total: Decimal

    @property
    def free(self) -> bool:
        """A free transfer (affectations 11-16, 21, 31-37): no sales value."""
        return self.affectation not in PAID_AFFECTATIONS

    @classmethod
    def from_wire(cls, item: Mapping[str, Any]) -> ProductLine:
        """From an ``items[]`` entry of a detailed list row."""
        affectation = str(item.get("affectation_igv_type_id") or "10")
        line = cls(
            code=str(item.get("internal_id") or ""),
            description=str(item.get("description") or "").strip(),
            unit=str(item.get("unit_type_id") or ""),
            quantity=parse_decimal(item.get("quantity")),
            affectation=affectation,
            value=parse_decimal(item.get("total_value")),
            igv=parse_decimal(item.get("total_igv")),
            icbper=parse_decimal(item.get("total_plastic_bag_taxes")),
            total=parse_decimal(item.get("total")),
        )
        if line.free:  # the referential value of a gift is not a sale
            return cls(
                line.code, line.description, line.unit, line.quantity, affectation, ZERO, ZERO, ZERO, ZERO
            )
        return line


@dataclass(frozen=True)
class Sale:
    """One listed document with what the figures need, amounts as Decimal (unsigned, as issued)."""

    position: int
    date: dt.date
    number: str
    series: str
    correlative: int | None
    document_type: str
    state: str
    currency: str
    rate: Decimal | None
    customer_type: str
    customer_number: str
    customer_name: str
    amounts: Amounts
    affected_number: str = ""
    lines: tuple[ProductLine, ...] | None = None  # None: the row did not carry its lines
    has_cdr: bool = False
    #: A sale is one document (a :class:`SalesCell` stands for many).
    documents: ClassVar[int] = 1

    @property
    def sign(self) -> int:
        """``-1`` for a credit note, ``1`` otherwise."""
        return -1 if self.document_type == CREDIT_NOTE else 1

    @property
    def counted(self) -> bool:
        """Whether it counts in sales (neither rejected nor voided)."""
        return self.state not in NOT_COUNTED

    @cached_property
    def signed(self) -> Amounts:
        """Its amounts with the sign they have in net sales (one document)."""
        return self.amounts if self.sign == 1 else self.amounts.scaled(self.sign)

    @property
    def convertible(self) -> bool:
        """In soles already, or with a known exchange rate."""
        return self.currency == SOLES or self.rate is not None

    @cached_property
    def soles(self) -> Amounts | None:
        """:meth:`in_soles`, computed once."""
        return self.in_soles()

    def in_soles(self) -> Amounts | None:
        """Its signed amounts in soles (each converted at its rate and rounded; the total is the sum of
        the converted parts), or ``None`` when it is in another currency and its rate is unknown."""
        signed = self.signed
        if self.currency == SOLES:
            return signed
        if self.rate is None:
            return None
        rate = self.rate
        taxed = round2(signed.taxed * rate)
        exonerated = round2(signed.exonerated * rate)
        unaffected = round2(signed.unaffected * rate)
        export = round2(signed.export * rate)
        igv = round2(signed.igv * rate)
        icbper = round2(signed.icbper * rate)
        other = round2(signed.other * rate)
        total = ZERO + taxed + exonerated + unaffected + export + igv + icbper + other  # free is no sale
        return _frozen(
            Amounts,
            {
                "taxed": taxed,
                "exonerated": exonerated,
                "unaffected": unaffected,
                "export": export,
                "free": round2(signed.free * rate),
                "igv": igv,
                "icbper": icbper,
                "total": total,
                "documents": 1,
            },
        )


def _lines(value: Any) -> tuple[ProductLine, ...] | None:
    if not isinstance(value, list):
        return None
    return tuple(ProductLine.from_wire(item) for item in value if isinstance(item, Mapping))


def _affected_number(value: Any) -> str:
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, Mapping) and value:
        series, number = value.get("series"), value.get("number")
        if series and number not in (None, ""):
            return f"{series}-{number}"
        return str(number or "")
    return ""


_NO_CENTS = Decimal("0.00")


def _amount(value: Any) -> Decimal:
    """An amount of a list row: the fast path for this service's ``"118.00"`` strings (``"0.00"``, most
    of a row's amounts, shared), the tolerant one (:func:`~connector.parsing.parse_decimal`) for
    anything else."""
    if value == "0.00":
        return _NO_CENTS
    if type(value) is str:
        try:
            number = Decimal(value)
        except ArithmeticError:
            return parse_decimal(value)
        if number.is_finite():
            return number
    return parse_decimal(value)


def _day(value: Any) -> dt.date | None:
    if type(value) is str and len(value) == 10 and value[4] == "-":
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            pass
    return parse_date(value)


def sales_of(rows: Sequence[Mapping[str, Any]]) -> list[Sale]:
    """The :class:`Sale` of every list row (this service's or a real tenant's), in the rows' order;
    rows without a readable issue date are left out (nothing can place them in a period)."""
    with gc_paused():
        return _sales_of(rows)


def listed_sales(documents: DocumentList) -> list[Sale]:
    """The :class:`Sale` of a list answer (``client.documents.list(...)``), in its rows' order; built
    once per answer, and shared by the copies the client serves from its cache."""
    return list(documents.derived(sales_of))


def _frozen(cls: type[T], values: dict[str, Any]) -> T:
    """An instance of the frozen dataclass ``cls`` holding ``values`` (every one of its fields), made
    without its generated ``__init__``, which sets each field through ``object.__setattr__``: for
    20,000 sales and their amounts that was most of the time spent building them. Equal to
    ``cls(**values)`` (the tests compare them)."""
    made = object.__new__(cls)
    made.__dict__.update(values)
    return made


def _sales_of(rows: Sequence[Mapping[str, Any]]) -> list[Sale]:
    out: list[Sale] = []
    for position, row in enumerate(rows):
        get = row.get
        day = _day(get("date_of_issue"))
        if day is None:
            continue
        number = str(get("number") or "")
        series, correlative = split_number(number)
        if get("series"):
            series = str(row["series"])
        amounts = _frozen(
            Amounts,
            {
                "taxed": _amount(get("total_taxed")),
                "exonerated": _amount(get("total_exonerated")),
                "unaffected": _amount(get("total_unaffected")),
                "export": _amount(get("total_exportation")),
                "free": _amount(get("total_free")),
                "igv": _amount(get("total_igv")),
                "icbper": _amount(get("total_plastic_bag_taxes")),
                "total": _amount(get("total")),
                "documents": 1,
            },
        )
        currency = str(get("currency_type_id") or SOLES)
        document_type = str(get("document_type_id") or "")
        values = {
            "position": position,
            "date": day,
            "number": number,
            "series": series,
            "correlative": correlative,
            "document_type": document_type,
            "state": str(get("state_type_id") or ""),
            "currency": currency,
            "rate": exchange_rate_of(row) if currency != SOLES else None,
            "customer_type": str(get("customer_identity_document_type_id") or ""),
            "customer_number": str(get("customer_number") or ""),
            "customer_name": str(get("customer_name") or ""),
            "amounts": amounts,
            "affected_number": _affected_number(get("affected_document")),
            "lines": _lines(get("items")),
            "has_cdr": str(get("has_cdr")).strip().lower() in ("1", "true"),
        }
        if document_type != CREDIT_NOTE:  # what Sale.signed (and, in soles, Sale.soles) would give
            values["signed"] = amounts
            if currency == SOLES:
                values["soles"] = amounts
        out.append(_frozen(Sale, values))
    return out


# --------------------------------------------------------------------------------------------- summary


@dataclass(frozen=True)
class SalesSummary:
    """Net figures of a set of documents.

    ``per_currency`` maps each currency to its signed :class:`Amounts` (counted documents only);
    ``soles`` is everything consolidated in soles (documents without a known rate left out and listed
    in ``unconverted``); ``rates`` the exchange rates used, by document number; ``listed`` how many
    documents were given and ``excluded`` how many of them are out of the figures (rejected, voided).
    """

    listed: int
    excluded: int
    per_currency: dict[str, Amounts]
    soles: Amounts
    rates: dict[str, Decimal] = field(default_factory=dict)
    unconverted: list[str] = field(default_factory=list)

    @property
    def counted(self) -> int:
        """Documents in the figures."""
        return self.listed - self.excluded

    @property
    def currencies(self) -> list[str]:
        """Currencies present, soles first, then by number of documents."""
        return sorted(self.per_currency, key=lambda c: (c != SOLES, -self.per_currency[c].documents, c))

    @property
    def converted(self) -> bool:
        """Whether more than soles were consolidated (some rate was used)."""
        return bool(self.rates)

    def rate_range(self) -> tuple[Decimal, Decimal] | None:
        """The lowest and highest rate used, or ``None``."""
        if not self.rates:
            return None
        values = self.rates.values()
        return min(values), max(values)


def summarize(sales: Iterable[Sale]) -> SalesSummary:
    """Net sales per currency and consolidated in soles (see the module's rules)."""
    by_currency: dict[str, list[Amounts]] = {}
    in_soles: list[Amounts] = []
    rates: dict[str, Decimal] = {}
    unconverted: list[str] = []
    listed = excluded = 0
    for sale in sales:
        listed += sale.documents
        if sale.state in NOT_COUNTED:
            excluded += sale.documents
            continue
        currency = sale.currency
        signed = sale.signed
        part = by_currency.get(currency)
        if part is None:
            by_currency[currency] = [signed]
        else:
            part.append(signed)
        if currency == SOLES:
            in_soles.append(signed)
            continue
        converted = sale.soles
        if converted is None:
            unconverted.append(sale.number)
            continue
        in_soles.append(converted)
        if sale.rate is not None:
            rates[sale.number] = sale.rate
    per_currency = {currency: Amounts.total_of(parts) for currency, parts in by_currency.items()}
    return SalesSummary(listed, excluded, per_currency, Amounts.total_of(in_soles), rates, unconverted)


# --------------------------------------------------------------------------------------------- groups


@dataclass(frozen=True)
class GroupTotal:
    """The figures of one group (a month, a series, a customer ...), consolidated in soles."""

    key: str
    label: str
    amounts: Amounts

    @property
    def value(self) -> Decimal:
        """Valor de venta in soles."""
        return self.amounts.value


Key = Callable[[Sale], tuple[str, str]]


def by_month(sale: Sale) -> tuple[str, str]:
    """``("2026-03", "03/2026")``."""
    return f"{sale.date:%Y-%m}", f"{sale.date:%m/%Y}"


def by_day(sale: Sale) -> tuple[str, str]:
    """``("2026-03-05", "05/03/2026")``."""
    return sale.date.isoformat(), f"{sale.date:%d/%m/%Y}"


def by_series(sale: Sale) -> tuple[str, str]:
    """The series (``F001``)."""
    return sale.series, sale.series


_TYPE_NAMES = {"01": "Factura", "03": "Boleta", "07": "Nota de crédito", "08": "Nota de débito"}


def by_type(sale: Sale) -> tuple[str, str]:
    """The document type code and its short Spanish name."""
    return sale.document_type, _TYPE_NAMES.get(sale.document_type, sale.document_type)


#: Customer numbers of unidentified buyers (grouped together by :func:`by_customer`), and their label.
ANONYMOUS = ("", "-", "0", "00000000")
ANONYMOUS_LABEL = "Clientes varios (sin documento)"


def by_customer(sale: Sale) -> tuple[str, str]:
    """The customer's document number (its name as label; unidentified buyers together)."""
    number = sale.customer_number.strip()
    if number in ANONYMOUS:
        return "-", ANONYMOUS_LABEL
    return number, sale.customer_name or number


def group_totals(sales: Iterable[Sale], key: Key) -> tuple[list[GroupTotal], list[str]]:
    """Counted documents grouped by ``key`` (:func:`by_month`, :func:`by_series`, :func:`by_type`,
    :func:`by_customer`, :func:`by_day` ...), in soles, sorted by key; and the numbers of the documents
    left out because their rate is unknown."""
    parts: dict[str, list[Amounts]] = defaultdict(list)
    labels: dict[str, str] = {}
    unconverted: list[str] = []
    for sale in sales:
        if sale.state in NOT_COUNTED:
            continue
        converted = sale.soles
        if converted is None:
            unconverted.append(sale.number)
            continue
        code, label = key(sale)
        parts[code].append(converted)
        labels.setdefault(code, label)
    groups = [GroupTotal(code, labels[code], Amounts.total_of(parts[code])) for code in sorted(parts)]
    return groups, unconverted


def previous_period(start: dt.date, end: dt.date) -> tuple[dt.date, dt.date]:
    """The period just before ``start..end``, like with like: the previous calendar month(s) when the
    range is whole months; the same days of the previous month when it is a month so far (1 to 26
    November against 1 to 26 October, never the whole of October); else the same number of days right
    before."""
    if start.day == 1 and (end + dt.timedelta(days=1)).day == 1:
        months = (end.year - start.year) * 12 + end.month - start.month + 1
        first_month = start.year * 12 + start.month - 1 - months
        prev_start = dt.date(first_month // 12, first_month % 12 + 1, 1)
        return prev_start, start - dt.timedelta(days=1)
    if start.day == 1 and (end.year, end.month) == (start.year, start.month):
        last_before = start - dt.timedelta(days=1)
        return last_before.replace(day=1), last_before.replace(day=min(end.day, last_before.day))
    days = (end - start).days + 1
    return start - dt.timedelta(days=days), start - dt.timedelta(days=1)


@dataclass(frozen=True)
class Comparison:
    """A group's figure now and in the previous period (valor de venta in soles by default)."""

    key: str
    label: str
    current: Decimal
    previous: Decimal

    @property
    def change(self) -> Decimal:
        """Current minus previous."""
        return self.current - self.previous

    @property
    def percent(self) -> Decimal | None:
        """The change as a percentage of the previous figure (one decimal); ``None`` when the previous
        figure is not a positive base: none, or a negative one (credit notes: «−100 to −150» read −50 %,
        a fall, when the notes had grown by half; from −100 to +50 no percentage means anything)."""
        if self.previous <= 0:
            return None
        return round(self.change * 100 / self.previous, 1)


def compare_periods(
    current: Sequence[GroupTotal],
    previous: Sequence[GroupTotal],
    figure: Callable[[Amounts], Decimal] = lambda a: a.value,
) -> list[Comparison]:
    """Join two periods' groups by key (groups of either side, zero where missing), in key order."""
    now = {g.key: g for g in current}
    before = {g.key: g for g in previous}
    out = []
    for code in sorted(set(now) | set(before)):
        label = (now.get(code) or before[code]).label
        out.append(
            Comparison(
                code,
                label,
                figure(now[code].amounts) if code in now else ZERO,
                figure(before[code].amounts) if code in before else ZERO,
            )
        )
    return out


def compare_months(
    current: Sequence[GroupTotal],
    previous: Sequence[GroupTotal],
    figure: Callable[[Amounts], Decimal] = lambda a: a.value,
) -> list[Comparison]:
    """Months (groups of :func:`by_month`) against the months of the previous period in the same place:
    the first month of each, then the second... (November against October, not against a "November" of
    the period before, which it never has). A month of the chosen period without sales counts zero."""
    before = sorted(previous, key=lambda g: g.key)
    out = []
    for index, group in enumerate(sorted(current, key=lambda g: g.key)):
        earlier = figure(before[index].amounts) if index < len(before) else ZERO
        out.append(Comparison(group.key, group.label, figure(group.amounts), earlier))
    return out


# --------------------------------------------------------------------------------------------- mixes


#: Affectation groups of the header amounts, in the order an accountant reads them.
AFFECTATIONS = {
    "taxed": "Gravado",
    "exonerated": "Exonerado",
    "unaffected": "Inafecto",
    "export": "Exportación",
    "free": "Gratuito",
}


def affectation_mix(sales: Iterable[Sale]) -> tuple[dict[str, Decimal], list[str]]:
    """Net amounts in soles by affectation (gravado, exonerado, inafecto, exportación, gratuito: the
    referential value of free transfers), and the documents left out for lack of a rate."""
    mix = dict.fromkeys(AFFECTATIONS, ZERO)
    unconverted: list[str] = []
    for sale in sales:
        if not sale.counted:
            continue
        converted = sale.soles
        if converted is None:
            unconverted.append(sale.number)
            continue
        for name in mix:
            mix[name] += getattr(converted, name)
    return {AFFECTATIONS[k]: v for k, v in mix.items()}, unconverted


@dataclass(frozen=True)
class ProductTotal:
    """Net figures of one product (by internal code, or description when it has none), in soles."""

    code: str
    description: str
    unit: str
    quantity: Decimal
    value: Decimal
    igv: Decimal
    icbper: Decimal
    total: Decimal
    documents: int


def product_totals(sales: Iterable[Sale]) -> tuple[list[ProductTotal], int, list[str]]:
    """Products by net valor de venta in soles, largest first (credit-note lines subtract their
    quantities and amounts); how many counted documents had no lines listed (a tenant that does not
    send them); and the documents left out for lack of a rate."""
    sums: dict[str, dict[str, Any]] = {}
    without_lines = 0
    unconverted: list[str] = []
    for sale in sales:
        if not sale.counted:
            continue
        if sale.lines is None:
            without_lines += 1
            continue
        if sale.currency != SOLES and sale.rate is None:
            unconverted.append(sale.number)
            continue
        rate = Decimal(1) if sale.currency == SOLES else sale.rate
        assert rate is not None
        for line in sale.lines:
            code = line.code or line.description.upper()
            entry = sums.setdefault(
                code,
                {"description": line.description, "unit": line.unit, "docs": set(), "quantity": ZERO}
                | dict.fromkeys(("value", "igv", "icbper", "total"), ZERO),
            )
            entry["quantity"] += line.quantity * sale.sign
            for name in ("value", "igv", "icbper", "total"):
                entry[name] += round2(getattr(line, name) * rate) * sale.sign
            entry["docs"].add(sale.position)
    products = [
        ProductTotal(
            code,
            e["description"],
            e["unit"],
            e["quantity"],
            e["value"],
            e["igv"],
            e["icbper"],
            e["total"],
            len(e["docs"]),
        )
        for code, e in sums.items()
    ]
    products.sort(key=lambda p: (-p.value, p.code))
    return products, without_lines, unconverted


@dataclass(frozen=True)
class DayRate:
    """Documents the authority judged on a day (facturas and their notes: boletas go in summaries)
    and how many it rejected."""

    day: dt.date
    judged: int
    rejected: int

    @property
    def rate(self) -> Decimal:
        """Rejected over judged, as a percentage with one decimal."""
        return round(Decimal(self.rejected) * 100 / self.judged, 1) if self.judged else ZERO


#: States that mean the authority gave its verdict on the document itself.
_JUDGED = frozenset({"05", "07", "09", "11", "13"})


def rejection_rate(sales: Iterable[Sale]) -> list[DayRate]:
    """Per issue day: documents with the authority's verdict and how many were rejected (09)."""
    judged: dict[dt.date, int] = defaultdict(int)
    rejected: dict[dt.date, int] = defaultdict(int)
    for sale in sales:
        if sale.state not in _JUDGED or sale.series[:1].upper() == "B":
            continue  # boletas are judged in summaries, not one by one
        judged[sale.date] += sale.documents
        rejected[sale.date] += sale.documents if sale.state == "09" else 0
    return [DayRate(day, judged[day], rejected[day]) for day in sorted(judged)]


# --------------------------------------------------------------------------------------------- in SQL

#: Runs one SQL query with its parameters and gives its rows (``LocalStore.fetch``).
Run = Callable[[str, Sequence[Any]], list[tuple[Any, ...]]]

#: The header amounts of :class:`Amounts` and the typed columns of the local store that hold them.
AMOUNT_COLUMNS = {
    "taxed": "total_taxed",
    "exonerated": "total_exonerated",
    "unaffected": "total_unaffected",
    "export": "total_exportation",
    "free": "total_free",
    "igv": "total_igv",
    "icbper": "total_plastic_bag_taxes",
    "total": "total",
}
_PARTS = [name for name in AMOUNT_COLUMNS if name != "total"]
_VALUE = ("taxed", "exonerated", "unaffected", "export")


def _quoted(values: Iterable[str]) -> str:
    return ", ".join("'" + value.replace("'", "''") + "'" for value in sorted(values))


def sales_sql(source: str) -> str:
    """A ``WITH`` clause naming ``sales``: one row per document of ``source`` (a query over the local
    store's typed columns, ``connector/store.py``, with its ``raw`` rows) read by this module's rules,
    as :func:`sales_of` and :class:`Sale` read a list row: ``counted``, ``sign``, ``rate`` (``NULL`` in
    soles or unknown), the signed amounts ``signed_<name>`` and, converted to soles, ``soles_<name>``
    (``NULL`` when the rate is unknown: :meth:`Sale.in_soles`). Follow it with a ``SELECT ... FROM sales``."""
    signed = ", ".join(f"{column} * sign AS signed_{name}" for name, column in AMOUNT_COLUMNS.items())
    soles = ", ".join(
        f"CASE WHEN currency = '{SOLES}' THEN signed_{name} WHEN rate IS NULL THEN NULL "
        f"ELSE round(signed_{name} * rate, 2) END AS soles_{name}"
        for name in _PARTS
    )
    other = f"signed_total - {' - '.join(f'signed_{name}' for name in [*_VALUE, 'igv', 'icbper'])}"
    parts = " + ".join(f"soles_{name}" for name in [*_VALUE, "igv", "icbper"])
    return f"""WITH base AS (
    SELECT date_of_issue AS day, id, coalesce(number, '') AS number,
        CASE WHEN coalesce(series, '') = '' THEN coalesce(number, '') ELSE series END AS series,
        coalesce(document_type_id, '') AS document_type, coalesce(state_type_id, '') AS state,
        coalesce(nullif(currency_type_id, ''), '{SOLES}') AS currency, exchange_rate_sale,
        coalesce(customer_number, '') AS customer_number, coalesce(customer_name, '') AS customer_name,
        {", ".join(AMOUNT_COLUMNS.values())}, external_id, raw
    FROM ({source}) AS source WHERE date_of_issue IS NOT NULL
), ruled AS (
    SELECT *, state NOT IN ({_quoted(NOT_COUNTED)}) AS counted,
        CASE WHEN document_type = '{CREDIT_NOTE}' THEN -1 ELSE 1 END AS sign,
        CASE WHEN currency <> '{SOLES}' AND exchange_rate_sale > 0 AND exchange_rate_sale <> 1
            THEN exchange_rate_sale END AS rate
    FROM base
), signed AS (SELECT *, {signed} FROM ruled
), converted AS (SELECT *, {soles} FROM signed
), sales AS (
    SELECT *, CASE WHEN currency = '{SOLES}' THEN signed_total WHEN rate IS NULL THEN NULL
        ELSE {parts} + round(({other}) * rate, 2) END AS soles_total
    FROM converted
)
"""


def _sums(prefix: str) -> str:
    return ", ".join(f"coalesce(sum({prefix}_{name}), 0)" for name in AMOUNT_COLUMNS)


def _amounts(values: Sequence[Any], documents: int) -> Amounts:
    taxed, exonerated, unaffected, export, free, igv, icbper, total = (Decimal(v) for v in values)
    return Amounts(taxed, exonerated, unaffected, export, free, igv, icbper, total, documents)


@dataclass(frozen=True)
class SalesCell:
    """The documents alike in all the figures group them by (issue day, type, state, currency, series,
    and whether they convert to soles), summed: :func:`sales_cells` reads a range in SQL as a few
    thousand cells instead of a million :class:`Sale` objects. :func:`summarize`, :func:`group_totals`
    (by day, month, type, series), :func:`affectation_mix`, :func:`rejection_rate` and the daily chart
    take cells where they take sales: a cell counts as its ``documents``. ``amounts`` are unsigned,
    ``signed`` and ``soles`` as :class:`Sale`'s (``soles`` ``None``: rate unknown)."""

    date: dt.date
    document_type: str
    state: str
    currency: str
    series: str
    documents: int
    amounts: Amounts
    signed: Amounts
    soles: Amounts | None
    number: str = ""
    rate: Decimal | None = None

    @property
    def counted(self) -> bool:
        """Whether its documents count in sales (neither rejected nor voided)."""
        return self.state not in NOT_COUNTED


def sales_cells(run: Run, source: str, parameters: Sequence[Any] = ()) -> list[SalesCell]:
    """The documents of ``source`` as :class:`SalesCell` objects, in one pass of SQL: each document
    signed and converted by :func:`sales_sql` (its own rate, each amount rounded), then summed by cell."""
    found = run(
        f"{sales_sql(source)} SELECT day, document_type, state, currency, series, soles_total IS NOT NULL, "
        f"count(*), {_sums('signed')}, {_sums('soles')} FROM sales GROUP BY ALL ORDER BY 1, 2, 3, 4, 5",
        list(parameters),
    )
    width = len(AMOUNT_COLUMNS)
    cells = []
    for day, kind, state, currency, series, converted, documents, *sums in found:
        signed = _amounts(sums[:width], documents)
        unsigned = signed if kind != CREDIT_NOTE else signed.scaled(-1)
        soles = _amounts(sums[width:], documents) if converted else None
        cells.append(SalesCell(day, kind, state, currency, series, documents, unsigned, signed, soles))
    return cells


def foreign_rates(
    run: Run, source: str, parameters: Sequence[Any] = ()
) -> tuple[dict[str, Decimal], list[str]]:
    """The rates the counted documents in another currency were converted at, by number, and the
    numbers of those whose rate is unknown (:attr:`SalesSummary.rates` and ``unconverted``)."""
    rates: dict[str, Decimal] = {}
    unconverted: list[str] = []
    currency = f"coalesce(nullif(currency_type_id, ''), '{SOLES}')"
    foreign = f"SELECT * FROM ({source}) AS whole WHERE {currency} <> '{SOLES}'"
    for number, rate in run(
        f"{sales_sql(foreign)} SELECT number, rate FROM sales WHERE counted ORDER BY day, number",
        list(parameters),
    ):
        if rate is None:
            unconverted.append(number)
        else:
            rates[number] = Decimal(rate)
    return rates, unconverted


def summarize_cells(
    cells: Sequence[SalesCell], run: Run, source: str, parameters: Sequence[Any] = ()
) -> SalesSummary:
    """:func:`summarize` of the cells of ``source`` (:func:`sales_cells`), with the rates used and the
    documents left out read by number (only when some counted document is in another currency)."""
    summary = summarize(cells)  # type: ignore[arg-type]  # cells stand for sales
    if not any(cell.counted and cell.currency != SOLES for cell in cells):
        return summary
    rates, unconverted = foreign_rates(run, source, parameters)
    return replace(summary, rates=rates, unconverted=unconverted)


def summarize_sql(run: Run, source: str, parameters: Sequence[Any] = ()) -> SalesSummary:
    """:func:`summarize` of the documents of ``source`` computed in SQL: the same figures to the cent,
    out of :func:`sales_cells` instead of one :class:`Sale` each."""
    return summarize_cells(sales_cells(run, source, parameters), run, source, parameters)


def customer_totals_sql(
    run: Run, source: str, parameters: Sequence[Any] = (), *, top: int | None = None
) -> list[GroupTotal]:
    """:func:`group_totals` by :func:`by_customer` in SQL, sorted by key; with ``top``, only the ``top``
    largest by valor de venta, largest first (the customers chart: their keys are found first, with
    one sum a customer, then only theirs are summed whole)."""
    value = " + ".join(f"soles_{name}" for name in _VALUE)
    anonymous = f"trim(customer_number) IN ({_quoted(ANONYMOUS)})"
    code = f"CASE WHEN {anonymous} THEN '-' ELSE trim(customer_number) END"
    label = (
        f"CASE WHEN {anonymous} THEN {_quoted([ANONYMOUS_LABEL])} "
        "ELSE coalesce(nullif(customer_name, ''), trim(customer_number)) END"
    )
    keyed = f"""{sales_sql(source)}, keyed AS (
        SELECT *, {code} AS customer, {value} AS value FROM sales WHERE counted AND soles_total IS NOT NULL
    )"""
    values = list(parameters)
    if top is not None:
        best = [
            str(row[0])
            for row in run(
                f"{sales_sql(source)}, listed AS (SELECT customer_number, sum({value}) AS value FROM sales "
                "WHERE counted AND soles_total IS NOT NULL GROUP BY 1) "  # by the number as listed first
                f"SELECT {code} AS customer FROM listed GROUP BY 1 "
                f"ORDER BY sum(value) DESC, 1 LIMIT {int(top)}",
                values,
            )
        ]
        if not best:
            return []
        numbers = sorted({*best, *(ANONYMOUS if "-" in best else ())})  # their rows only, read again
        marks = ", ".join("?" for _ in numbers)
        theirs = f"SELECT * FROM ({source}) AS whole WHERE trim(coalesce(customer_number, '')) IN ({marks})"
        keyed = keyed.replace(sales_sql(source), sales_sql(theirs), 1)
        values = [*values, *numbers]
    found = run(
        f"{keyed} SELECT customer, arg_max({label}, day), count(*), {_sums('soles')} FROM keyed "
        "GROUP BY 1 ORDER BY " + ("sum(value) DESC, 1" if top is not None else "1"),
        values,
    )
    return [GroupTotal(str(c), str(name), _amounts(rest, int(n))) for c, name, n, *rest in found]


def rejection_rate_sql(run: Run, source: str, parameters: Sequence[Any] = ()) -> list[DayRate]:
    """:func:`rejection_rate` of the documents of ``source`` (over their cells)."""
    return rejection_rate(sales_cells(run, source, parameters))  # type: ignore[arg-type]


def mix_of(summary: SalesSummary) -> dict[str, Decimal]:
    """:func:`affectation_mix` out of a summary: the soles figures are the same sums."""
    return {label: getattr(summary.soles, name) for name, label in AFFECTATIONS.items()}


#: Affectations whose lines are sales (:attr:`ProductLine.free` is every other one).
PAID_AFFECTATIONS = ("10", "17", "20", "30", "40")


def _line_amount(field: str) -> str:
    """A line's amount as :func:`~connector.parsing.parse_decimal` reads it (0 when unreadable)."""
    text = f"trim(json_extract_string(item, '$.{field}'))"
    return f"coalesce(TRY_CAST(replace({text}, ',', '') AS DECIMAL(24, 8)), 0)"


def product_totals_sql(
    run: Run, source: str, parameters: Sequence[Any] = ()
) -> tuple[list[ProductTotal], int, list[str]]:
    """:func:`product_totals` in SQL over the lines kept in the store's rows (``items``)."""
    affectation = "coalesce(nullif(json_extract_string(item, '$.affectation_igv_type_id'), ''), '10')"
    paid = f"{affectation} IN ({_quoted(PAID_AFFECTATIONS)})"
    factor = f"CASE WHEN currency = '{SOLES}' THEN 1 ELSE rate END"
    sums = ", ".join(
        f"sum(CASE WHEN {paid} THEN round({_line_amount(field)} * {factor}, 2) ELSE 0 END * sign)"
        for field in ("total_value", "total_igv", "total_plastic_bag_taxes", "total")
    )
    code = "coalesce(json_extract_string(item, '$.internal_id'), '')"
    description = "trim(coalesce(json_extract_string(item, '$.description'), ''))"
    listed = f"""{sales_sql(source)}, documents AS (
        SELECT *, json_extract(decode(raw), '$.items') AS items FROM sales WHERE counted
    ), lines AS (
        SELECT *, unnest(CAST(items AS JSON[])) AS item, generate_subscripts(CAST(items AS JSON[]), 1) AS n
        FROM documents WHERE json_type(items) = 'ARRAY' AND (currency = '{SOLES}' OR rate IS NOT NULL)
    )"""
    found = run(
        f"""{listed} SELECT CASE WHEN {code} <> '' THEN {code} ELSE upper({description}) END AS product,
            first({description} ORDER BY day DESC, id DESC, n),
            first(coalesce(json_extract_string(item, '$.unit_type_id'), '') ORDER BY day DESC, id DESC, n),
            sum({_line_amount("quantity").replace("DECIMAL(24, 8)", "DECIMAL(24, 10)")} * sign),
            {sums}, count(DISTINCT external_id)
        FROM lines GROUP BY 1""",
        list(parameters),
    )
    products = [
        ProductTotal(
            str(c), str(d), str(u), Decimal(q), Decimal(v), Decimal(i), Decimal(b), Decimal(t), int(n)
        )
        for c, d, u, q, v, i, b, t, n in found
    ]
    products.sort(key=lambda p: (-p.value, p.code))
    counts = run(
        f"""{listed} SELECT count(*) FILTER (WHERE json_type(items) IS DISTINCT FROM 'ARRAY'),
            list(number ORDER BY day, number) FILTER (WHERE json_type(items) = 'ARRAY'
                AND currency <> '{SOLES}' AND rate IS NULL) FROM documents""",
        list(parameters),
    )
    without_lines, unconverted = counts[0]
    return products, int(without_lines), list(unconverted or [])


def has_lines_sql(run: Run, source: str, parameters: Sequence[Any] = ()) -> bool:
    """Whether the documents of ``source`` carry their lines (``DocumentList.has_details``: every row
    has ``items``; none at all counts as carrying them)."""
    found = run(
        f"SELECT coalesce(bool_and(json_exists(decode(raw), '$.items')), true) FROM ({source})",
        list(parameters),
    )
    return bool(found[0][0])
