"""The Registro de Ventas e Ingresos of a month: SUNAT's PLE 14.1 TXT and its simplified 14.2 form, the
SIRE RVIE replacement layout (Anexo 3, also used to compare with SUNAT's proposal), SIRE's adjustment
files for earlier periods (Anexos 5.1 / 5.2: the month's state 8 and 9 lines) and the same as Excel.

Field rules: ``docs/sales_register.md`` (and where the sources disagree, what was decided and why).
In short:

* one entry per document issued in the month, sorted by date, type, series and number; amounts in soles
  (foreign-currency documents converted at their own rate, each amount rounded half up, the total the
  sum of the converted parts) with the currency and the rate in their fields;
* credit notes negative, with the modified document in fields 28–31 (PLE) / 29–32 (SIRE); when that
  document is of an earlier month, base and IGV go to the discount columns;
* voided documents (11): PLE state ``2`` with amounts in zero; SIRE amounts in zero. Rejected documents
  (09): PLE state ``2`` with zeros (their number is used), left out of the SIRE file (SUNAT has no
  such CPE in its proposal);
* PLE state ``8``: a document of an earlier month that arrived after the accountant had closed that
  month (:class:`connector.closes.MonthCloses`: its register filed), in the first later month still
  open when it arrived; state ``9``: a document of a closed month voided after the close (its
  correction, amounts in zero), in the first month open then. Without a close a month's register holds
  all its documents, whenever they were registered. SIRE's RVIE file has no state field: those lines
  go in SIRE's adjustment file (:meth:`SalesRegister.adjustment_rows`);
* PLE 14.2 keeps 14.1's fields 1–12 and 23–35 and its base, IGV and total; what the total carries
  besides base, IGV and ICBPER (exports, exonerated, unaffected, ISC, other charges) is its "otros";
* boletas may be summarized per day and series (PLE fields 8–9) when each is under S/ 700.

:class:`SalesRegister` holds the entries and writes every format; :func:`sales_register` builds one from a
tenant through the connector::

    from analysis.register import sales_register

    register = sales_register(client, "2026-11", folder="registros")  # PLE TXT, RVIE zip, Excel
"""

from __future__ import annotations

import datetime as dt
import functools
import io
import operator
import re
import unicodedata
import zipfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol
from xml.etree import ElementTree

import orjson

from connector.closes import MonthCloses
from connector.closes import lima as lima_time
from connector.columns import REGISTER_AMOUNTS
from connector.errors import FacturadorError
from connector.models import AffectedRef, DocumentList, DocumentRecord, StateChange, link_notes
from connector.parsing import (
    exchange_rate_of,
    gc_paused,
    parse_bool,
    parse_date,
    parse_datetime,
    parse_decimal,
    rate_or_none,
    split_number,
    text,
)
from sunat.calendar import peru_today
from sunat.catalogs import STATE_TYPES
from sunat.money import round2

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "ADJUSTMENT_STATES",
    "FILE_KINDS",
    "Closes",
    "Difference",
    "Figures",
    "Reconciliation",
    "PLE_FIELDS",
    "PLE_SIMPLIFIED_FIELDS",
    "REGISTER_LOOK_BACK_DAYS",
    "SIRE_FIELDS",
    "Period",
    "ProposalComparison",
    "RegisterEntry",
    "SalesRegister",
    "SetByHand",
    "build_entries",
    "issuer_of_xml",
    "ple_file_name",
    "ple_simplified_file_name",
    "reference_of_xml",
    "sales_register",
    "set_by_hand",
    "sire_adjustment_file_name",
    "sire_file_name",
]

ZERO = Decimal("0")
#: What :meth:`SalesRegister.write` writes.
FILE_KINDS = ("ple", "ple-simplified", "sire", "adjustments", "adjustments-simplified", "excel")
#: Boletas of at least this total (soles) are always listed one by one (since 01-07-2016).
BOLETA_DETAIL_FROM = Decimal("700")
VOIDED, REJECTED = "11", "09"
#: The end of the warning on a factura or note of the month without a CDR, and on a boleta not declared
#: yet (after the document's number): :meth:`SalesRegister.pending` finds them by it.
WITHOUT_CDR = ": sin CDR (no enviado a SUNAT); no estará en su propuesta."
UNDECLARED = ": boleta aún no declarada en un resumen diario."
#: When the accountant closed each month (``"2026-10"``, a :class:`Period` or a date in it → the moment,
#: naive Lima time or aware): :class:`connector.closes.MonthCloses`, or any mapping.
Closes = Mapping[Any, dt.datetime]
NOTES = ("07", "08")
_RATE = Decimal("0.001")

#: PLE 14.1 fields 1–35 (MUCHIK 140100.csv), short Spanish names for the Excel headers.
PLE_FIELDS = (
    "Periodo",
    "CUO",
    "Correlativo del asiento",
    "Fecha de emisión",
    "Fecha de vencimiento o pago",
    "Tipo de comprobante",
    "Serie",
    "Número",
    "Número final",
    "Tipo doc. identidad",
    "Nro. doc. identidad",
    "Apellidos y nombres / razón social",
    "Valor facturado exportación",
    "Base imponible gravada",
    "Descuento base imponible",
    "IGV / IPM",
    "Descuento IGV / IPM",
    "Exonerado",
    "Inafecto",
    "ISC",
    "Base imponible IVAP",
    "IVAP",
    "ICBPER",
    "Otros tributos y cargos",
    "Importe total",
    "Moneda",
    "Tipo de cambio",
    "Fecha CP modificado",
    "Tipo CP modificado",
    "Serie CP modificado",
    "Número CP modificado",
    "Contrato o proyecto",
    "Error tipo 1",
    "Indicador medios de pago",
    "Estado",
)
#: PLE 14.2 (simplified) fields 1–26 (MUCHIK 140200.csv): the 14.1 fields it keeps, in its order, with
#: "otros" carrying what the total has besides the taxed base, IGV and ICBPER (see the docs).
PLE_SIMPLIFIED_FIELDS = (
    *PLE_FIELDS[:12],
    "Base imponible gravada",
    "IGV / IPM",
    "ICBPER",
    "Otros conceptos, tributos y cargos",
    "Importe total",
    "Moneda",
    "Tipo de cambio",
    "Fecha CP modificado",
    "Tipo CP modificado",
    "Serie CP modificado",
    "Número CP modificado",
    "Error tipo 1",
    "Indicador medios de pago",
    "Estado",
)
#: States of the lines of an adjustment file (earlier periods): not recorded then (8), corrected (9).
ADJUSTMENT_STATES = ("8", "9")
#: SIRE RVIE Anexo 3 fields 1–33.
SIRE_FIELDS = (
    "RUC",
    "Razón social",
    "Periodo",
    "CAR SUNAT",
    "Fecha de emisión",
    "Fecha de vencimiento o pago",
    "Tipo CP",
    "Serie",
    "Número",
    "Número final",
    "Tipo doc. identidad",
    "Nro. doc. identidad",
    "Apellidos y nombres / razón social",
    "Valor facturado exportación",
    "BI gravada",
    "Descuento BI",
    "IGV / IPM",
    "Descuento IGV / IPM",
    "Exonerado",
    "Inafecto",
    "ISC",
    "BI gravada IVAP",
    "IVAP",
    "ICBPER",
    "Otros tributos",
    "Total CP",
    "Moneda",
    "Tipo de cambio",
    "Fecha CP modificado",
    "Tipo CP modificado",
    "Serie CP modificado",
    "Número CP modificado",
    "ID proyecto",
)


# --------------------------------------------------------------------------------------------- period


@dataclass(frozen=True, order=True)
class Period:
    """A month of the register."""

    year: int
    month: int

    def __post_init__(self) -> None:
        if not 1 <= self.month <= 12 or not 2000 <= self.year <= 2100:
            raise ValueError(f"not a period: {self.year}-{self.month}")

    @classmethod
    def of(cls, value: Period | dt.date | str | tuple[int, int]) -> Period:
        """From a period, a date (its month), ``"2026-03"``, ``"202603"``, ``"03/2026"`` or ``(2026, 3)``."""
        if isinstance(value, Period):
            return value
        if isinstance(value, dt.date):
            return cls(value.year, value.month)
        if isinstance(value, tuple):
            return cls(int(value[0]), int(value[1]))
        text = str(value).strip()
        for pattern, order in ((r"(\d{4})-?(\d{2})", "ym"), (r"(\d{2})/(\d{4})", "my")):
            match = re.fullmatch(pattern, text)
            if match:
                first, second = (int(g) for g in match.groups())
                return cls(first, second) if order == "ym" else cls(second, first)
        raise ValueError(f"a period is YYYY-MM, YYYYMM or MM/YYYY (got {value!r})")

    @property
    def start(self) -> dt.date:
        """Its first day."""
        return dt.date(self.year, self.month, 1)

    @property
    def end(self) -> dt.date:
        """Its last day."""
        following = dt.date(self.year + self.month // 12, self.month % 12 + 1, 1)
        return following - dt.timedelta(days=1)

    def contains(self, day: dt.date) -> bool:
        """Whether ``day`` is in this month."""
        return (day.year, day.month) == (self.year, self.month)

    @functools.cached_property
    def code(self) -> str:
        """``AAAAMM`` (``202603``), as the files write it."""
        return f"{self.year:04d}{self.month:02d}"

    def __str__(self) -> str:
        return self.code


def _period_of(day: dt.date) -> Period:
    return _period(day.year, day.month)


@functools.lru_cache(maxsize=512)
def _period(year: int, month: int) -> Period:
    return Period(year, month)  # immutable: one object per month, not one per document


# --------------------------------------------------------------------------------------------- entries


@dataclass(frozen=True)
class RegisterEntry:
    """One line of the register, as values (amounts in soles, already signed)."""

    period: Period  # the period of the operation (field 1: earlier for states 8 and 9)
    cuo: str
    date: dt.date
    document_type: str
    series: str
    number: int
    customer_type: str = ""
    customer_number: str = ""
    customer_name: str = ""
    export: Decimal = ZERO
    taxed: Decimal = ZERO
    taxed_discount: Decimal = ZERO
    igv: Decimal = ZERO
    igv_discount: Decimal = ZERO
    exonerated: Decimal = ZERO
    unaffected: Decimal = ZERO
    isc: Decimal = ZERO
    icbper: Decimal = ZERO
    other: Decimal = ZERO
    total: Decimal = ZERO
    currency: str = "PEN"
    rate: Decimal | None = None
    due_date: dt.date | None = None
    number_end: int | None = None
    affected_date: dt.date | None = None
    affected_type: str = ""
    affected_series: str = ""
    affected_number: str = ""
    state: str = "1"
    in_sire: bool = True  # SIRE's file leaves rejected documents and PLE-only corrections out
    in_ple: bool = True  # a line only SIRE's file has (a document voided after the month, at zero)
    source: str = ""  # the document number (F001-12) or range it comes from
    #: A document of the month that arrived after the month was closed: no line here (``in_ple`` and
    #: ``in_sire`` false), it is the line (state 8) of this later month's register.
    moved_to: Period | None = None

    @property
    def money_texts(self) -> list[str]:
        """Fields 13–25 of its PLE line as text (see :func:`_money_fields`), computed once (kept in the
        instance's ``__dict__``: ``functools.cached_property`` takes a lock each time, 100,000 times)."""
        found = self.__dict__.get("_money_texts")
        if found is None:
            found = self.__dict__["_money_texts"] = _format_money(self)
        return found

    @property
    def amounts_sum(self) -> Decimal:
        """Fields 13–24 (PLE) added up: equal to the total on every line."""
        return (
            self.export
            + self.taxed
            + self.taxed_discount
            + self.igv
            + self.igv_discount
            + self.exonerated
            + self.unaffected
            + self.isc
            + self.icbper
            + self.other
        )


@functools.lru_cache(maxsize=4096)
def _fold(text: str) -> str:
    """ASCII text for the register's text fields: accents dropped (Ñ -> N), ``|``, ``/`` and ``\\``
    (forbidden) and control characters turned into spaces, spaces collapsed (remembered: a month
    repeats its customers' names)."""
    decomposed = unicodedata.normalize("NFKD", text)
    ascii_text = "".join(c for c in decomposed if not unicodedata.combining(c)).encode("ascii", "ignore")
    cleaned = re.sub(r"[|/\\\x00-\x1f\x7f]", " ", ascii_text.decode("ascii"))
    return " ".join(cleaned.split())


def _convert(amount: Decimal, rate: Decimal | None) -> Decimal:
    return amount if rate is None else round2(amount * rate)


@dataclass(slots=True)
class _Listed:
    """What the register reads of a list row: the same values :meth:`DocumentRecord.from_row` reads
    for these fields, without the rest of a record (the raw row's copy, the download links, the
    descriptions) nor a frozen dataclass's cost: 20,000 of them are built for a month."""

    date_of_issue: dt.date | None
    number: str
    series: str
    correlative: int | None
    document_type_id: str
    customer_name: str
    customer_number: str
    customer_identity_type: str
    currency_type_id: str
    exchange_rate: Decimal | None
    state_type_id: str
    has_cdr: bool
    affected: AffectedRef | None
    created_at: dt.datetime | None
    updated_at: dt.datetime | None
    total_exportation: Decimal
    total_taxed: Decimal
    total_igv: Decimal
    total_exonerated: Decimal
    total_unaffected: Decimal
    total_plastic_bag_taxes: Decimal
    total: Decimal

    @property
    def is_note(self) -> bool:
        """A credit (07) or debit (08) note."""
        return self.document_type_id in NOTES


_NO_CENTS = Decimal("0.00")


def _money(value: Any) -> Decimal:
    """:func:`parse_decimal`, with the most common amount of a row (``"0.00"``) shared."""
    return _NO_CENTS if value == "0.00" else parse_decimal(value)


def _listed(row: Mapping[str, Any]) -> _Listed:
    """The register's reading of a list row (see :class:`_Listed`; the rules of ``from_row``)."""
    get = row.get
    number = str(get("number") or "")
    series, correlative = split_number(number)
    if get("series"):
        series = str(row["series"])
    if get("correlative") not in (None, ""):
        try:
            correlative = int(row["correlative"])
        except (TypeError, ValueError):
            pass
    return _Listed(
        parse_date(get("date_of_issue")),
        number,
        series,
        correlative,
        text(get("document_type_id")),
        text(get("customer_name")),
        text(get("customer_number")),
        text(get("customer_identity_document_type_id")),
        text(get("currency_type_id")),
        exchange_rate_of(row),
        text(get("state_type_id")),
        parse_bool(get("has_cdr")),
        AffectedRef.from_wire(get("affected_document")),
        parse_datetime(get("created_at")),
        parse_datetime(get("updated_at")),
        _money(get("total_exportation")),
        _money(get("total_taxed")),
        _money(get("total_igv")),
        _money(get("total_exonerated")),
        _money(get("total_unaffected")),
        _money(get("total_plastic_bag_taxes")),
        _money(get("total")),
    )


#: A document as the register reads it: a list record, or (faster) the list row's reading.
_Document = DocumentRecord | _Listed


def _customer(record: _Document) -> tuple[str, str, str]:
    """Identity type, number and name; the type is inferred from the number when a tenant does not list
    it (11 digits: RUC, 8 digits: DNI)."""
    number = record.customer_number.strip()
    kind = record.customer_identity_type.strip()
    if not kind:
        kind = "6" if re.fullmatch(r"\d{11}", number) else "1" if re.fullmatch(r"\d{8}", number) else "0"
    if kind == "-" or number in ("", "-"):
        return "", "", _fold(record.customer_name)
    return kind, number, _fold(record.customer_name)


def _cuo(record: _Document) -> str:
    """A stable unique key of the document's entry (field 2): type + series + number."""
    return f"{record.document_type_id}{record.series}{record.correlative or 0}"


def _entry(
    record: _Document, period: Period, state: str, affected_dates: Mapping[str, dt.date]
) -> RegisterEntry:
    sign = -1 if record.document_type_id == "07" else 1
    foreign = record.currency_type_id != "PEN"
    rate = record.exchange_rate if foreign else None
    kind, number, name = _customer(record)
    common: dict[str, Any] = {
        "period": period,
        "cuo": _cuo(record),
        "date": record.date_of_issue,
        "document_type": record.document_type_id,
        "series": record.series,
        "number": record.correlative or 0,
        "customer_type": kind,
        "customer_number": number,
        "customer_name": name,
        "currency": record.currency_type_id or "PEN",
        "rate": rate,
        "state": state,
        "source": record.number,
        "in_sire": record.state_type_id != REJECTED and state in ("1", "2"),
    }
    if record.is_note and record.affected is not None:
        affected = record.affected
        common.update(
            affected_type=affected.document_type_id or ("01" if affected.series[:1].upper() == "F" else "03"),
            affected_series=affected.series,
            affected_number=str(affected.number or ""),
            affected_date=affected.date_of_issue or affected_dates.get(affected.full_number),
        )
    if state == "2" or state == "9" or record.state_type_id in (VOIDED, REJECTED):
        return _new_entry(common)  # voided / rejected / corrected: every amount zero
    export, taxed, igv = record.total_exportation, record.total_taxed, record.total_igv
    exonerated, unaffected, icbper = (
        record.total_exonerated,
        record.total_unaffected,
        record.total_plastic_bag_taxes,
    )
    other = record.total - (export + taxed + igv + exonerated + unaffected + icbper)
    if rate is not None:
        export, taxed, igv = _convert(export, rate), _convert(taxed, rate), _convert(igv, rate)
        exonerated, unaffected = _convert(exonerated, rate), _convert(unaffected, rate)
        icbper, other = _convert(icbper, rate), _convert(other, rate)
    if sign == -1:
        export, taxed, igv, exonerated = export * sign, taxed * sign, igv * sign, exonerated * sign
        unaffected, icbper, other = unaffected * sign, icbper * sign, other * sign
    common["total"] = export + taxed + igv + exonerated + unaffected + icbper + other
    earlier = (
        record.document_type_id == "07"
        and common.get("affected_date") is not None
        and _period_of(common["affected_date"]) < period
    )
    if earlier:  # a credit note on an earlier month's document: base and IGV in the discount columns
        common["taxed_discount"], common["igv_discount"], taxed, igv = taxed, igv, ZERO, ZERO
    common.update(
        export=export,
        taxed=taxed,
        igv=igv,
        exonerated=exonerated,
        unaffected=unaffected,
        icbper=icbper,
        other=other,
    )
    return _new_entry(common)


def _new_entry(values: dict[str, Any]) -> RegisterEntry:
    """``RegisterEntry(**values)`` without the frozen dataclass's ``__init__`` (32 ``object.__setattr__``
    a line, 100,000 lines a month): the fields not in ``values`` keep their defaults (class attributes),
    so the entry equals, hashes and prints as the one ``__init__`` would make."""
    entry = object.__new__(RegisterEntry)
    entry.__dict__.update(values)
    return entry


def _month_key(day: dt.date) -> int:
    """The month of ``day`` as a number that orders as :class:`Period` does."""
    return day.year * 12 + day.month


def _month_of_key(key: int) -> Period:
    """The :class:`Period` of a :func:`_month_key`."""
    year, month = divmod(key - 1, 12)
    return _period(year, month + 1)


def build_entries(
    records: Iterable[DocumentRecord | Mapping[str, Any]],
    period: Period | dt.date | str,
    *,
    consolidate_boletas: bool = False,
    closes: Closes | None = None,
) -> tuple[list[RegisterEntry], list[str]]:
    """The entries of ``period`` from list records (or the list's raw rows: the same entries, without
    building a record per row) that cover it (and the weeks before it, for the
    states 8 and 9), and the warnings an accountant should read before filing.

    A month's register holds the month's documents. Only a month the accountant has **closed**
    (``closes``: when) changes that: a document of it that arrived (``created_at``, Lima time) after the
    close goes, as state 8, in the first later month that was still open when it arrived; a document
    of it voided (``updated_at``) after the close stays there as filed (state 1 with its amounts) and
    gets its correction (state 9) in the first later month open when it was voided. The time a row
    was inserted alone never moves a document (:func:`_home_month`)."""
    with gc_paused():
        return _build_entries(records, Period.of(period), consolidate_boletas, closes=closes)


def _close_keys(closes: Closes | None) -> dict[int, dt.datetime]:
    """``closes`` by month number (:func:`_month_key`), each moment as Lima's wall clock (naive)."""
    if not closes:
        return {}
    return {_month_key(Period.of(key).start): lima_time(moment) for key, moment in closes.items()}


def _home_month(issued: int, moment: dt.datetime | None, closed: Mapping[int, dt.datetime]) -> int:
    """The month (number) whose register takes what happened at ``moment`` to a document of month
    ``issued``: its own while it was not closed before ``moment``, else the first later month not
    closed before ``moment`` (the one rule of states 8 and 9; no moment known: its own month)."""
    month = issued
    while moment is not None and (close := closed.get(month)) is not None and close < moment:
        month += 1
    return month


def _build_entries(
    records: Iterable[_Document | Mapping[str, Any]],
    month: Period,
    consolidate_boletas: bool,
    known: Mapping[str, dt.date] | None = None,
    *,
    closes: Closes | None = None,
) -> tuple[list[RegisterEntry], list[str]]:
    """:func:`build_entries`; ``known``: the issue dates by number of every listed document, when
    ``records`` are only those that can make a line (:func:`_stored_rows`)."""
    closed = _close_keys(closes)
    read = (r if isinstance(r, DocumentRecord | _Listed) else _listed(r) for r in records)
    documents = [r for r in read if r.date_of_issue is not None]
    dates: Mapping[str, dt.date]
    if known is not None:
        dates = known
    else:
        dates = {r.number: r.date_of_issue for r in documents if r.date_of_issue is not None}
    entries: list[RegisterEntry] = []
    warnings: list[str] = []
    this = _month_key(month.start)  # months as numbers: a Period's comparison is a tuple's, 200,000 times
    for record in documents:
        day = record.date_of_issue
        assert day is not None
        issued = _month_key(day)
        if issued > this:
            continue
        home = _home_month(issued, record.created_at, closed) if closed else issued
        if issued == this and home > this:  # arrived after the close: named here, a line there
            state = "2" if record.state_type_id in (VOIDED, REJECTED) else "8"
            moved = _entry(record, month, state, dates)
            entries.append(replace(moved, in_ple=False, in_sire=False, moved_to=_month_of_key(home)))
            continue
        if home == this and issued == this:
            voided_after = (
                record.state_type_id == VOIDED
                and bool(closed)
                and _home_month(issued, record.updated_at, closed) > this
            )
            if voided_after:  # voided after the month was closed: as it was filed, corrected later
                entry = _entry(replace(record, state_type_id="05"), month, "1", dates)
                entries.append(replace(entry, in_sire=False))
                entries.append(replace(_entry(record, month, "2", dates), in_ple=False))
                warnings.append(
                    f"{record.number}: anulado después del cierre del mes; figura con sus importes "
                    "(estado 1) y su corrección irá con estado 9 en el primer mes abierto."
                )
                continue
            state = "2" if record.state_type_id in (VOIDED, REJECTED) else "1"
            entries.append(_entry(record, month, state, dates))
        elif home == this:  # of a month closed before it arrived: this month's, state 8
            state = "2" if record.state_type_id in (VOIDED, REJECTED) else "8"
            entries.append(replace(_entry(record, _period_of(day), state, dates), in_sire=False))
        elif (
            home == issued
            and record.state_type_id == VOIDED
            and closed
            and _home_month(issued, record.updated_at, closed) == this
        ):  # recorded in its closed month, voided after the close: its correction here
            entries.append(replace(_entry(record, _period_of(day), "9", dates), in_sire=False))
    # the month's own lines first, then those of earlier periods (8, 9, and a late one voided, 2)
    entries.sort(key=lambda e: (e.period != month, e.date, e.document_type, e.series, e.number))
    if consolidate_boletas:
        entries = _consolidate(entries)
    for entry in entries:
        if entry.moved_to is not None:
            warnings.append(
                f"{entry.source}: llegó después del cierre del mes; va al registro de "
                f"{entry.moved_to.month:02d}/{entry.moved_to.year} con estado 8."
            )
        elif entry.currency != "PEN" or entry.document_type in NOTES:  # (only those can warn)
            warnings.extend(_warnings_of(entry))
    for record in documents:
        if record.date_of_issue is not None and month.contains(record.date_of_issue):
            if (
                record.state_type_id in ("01", "03")
                and not record.has_cdr
                and record.series[:1].upper() == "F"
            ):
                warnings.append(f"{record.number}{WITHOUT_CDR}")
            elif record.state_type_id == "01" and record.series[:1].upper() == "B":
                warnings.append(f"{record.number}{UNDECLARED}")
    return entries, warnings


def _warnings_of(entry: RegisterEntry) -> list[str]:
    found = []
    if entry.currency != "PEN" and entry.rate is None and entry.state in ("1", "8"):
        found.append(
            f"{entry.source}: en {entry.currency} sin tipo de cambio; sus importes no se convirtieron."
        )
    if entry.document_type in NOTES and entry.state in ("1", "8"):
        if not entry.affected_series:
            found.append(f"{entry.source}: nota sin documento modificado conocido (campos 28 a 31).")
        elif entry.affected_date is None:
            found.append(f"{entry.source}: no se conoce la fecha del documento modificado (campo 28).")
    return found


def _consolidate(entries: list[RegisterEntry]) -> list[RegisterEntry]:
    """Boletas in soles, state 1, each under S/ 700, of one day and series, with consecutive numbers:
    one line with the first and last number, amounts added, no customer."""
    out: list[RegisterEntry] = []
    run: list[RegisterEntry] = []

    def flush() -> None:
        if len(run) == 1:
            out.append(run[0])
        elif run:
            first, last = run[0], run[-1]
            sums: dict[str, Any] = {
                name: sum((getattr(e, name) for e in run), ZERO)
                for name in (
                    "export",
                    "taxed",
                    "igv",
                    "exonerated",
                    "unaffected",
                    "isc",
                    "icbper",
                    "other",
                    "total",
                )
            }
            out.append(
                replace(
                    first,
                    number_end=last.number,
                    customer_type="",
                    customer_number="",
                    customer_name="",
                    source=f"{first.source}..{last.number}",
                    **sums,
                )
            )
        run.clear()

    for entry in entries:
        small = (
            entry.document_type == "03"
            and entry.state == "1"
            and entry.currency == "PEN"
            and entry.total < BOLETA_DETAIL_FROM
        )
        if run and not (
            small
            and entry.date == run[-1].date
            and entry.series == run[-1].series
            and entry.number == run[-1].number + 1
        ):
            flush()
        if small:
            run.append(entry)
        else:
            out.append(entry)
    flush()
    return out


# --------------------------------------------------------------------------------------------- formats


def _amount(value: Decimal) -> str:
    if not value:
        return "0.00"  # most columns of most lines
    text = f"{value:f}"
    if text[-3:-2] == ".":
        return text  # already in cents (what lists send): rounding to the cent would change nothing
    text = f"{round2(value):f}"
    return "0.00" if text in ("-0.00", "0.00") else text


@functools.lru_cache(maxsize=4096)
def _date(value: dt.date | None) -> str:
    return f"{value:%d/%m/%Y}" if value is not None else ""  # a month has a few dozen dates


def _rate(value: Decimal | None) -> str:
    return f"{value.quantize(_RATE, rounding=ROUND_HALF_UP):f}" if value is not None else ""


def _money_fields(entry: RegisterEntry) -> list[str]:
    """Exportación … total, common to PLE 13–25 and SIRE 14–26 (IVAP columns always zero here);
    formatted once per entry (both files show them)."""
    return entry.money_texts


#: The entry's amount in each of PLE fields 13–25 (``None``: the IVAP columns, always zero), as
#: :func:`_format_money` writes them; :data:`_TOTALLED`: those that can be other than zero.
_MONEY_ATTRIBUTES = (
    "export",
    "taxed",
    "taxed_discount",
    "igv",
    "igv_discount",
    "exonerated",
    "unaffected",
    "isc",
    None,
    None,
    "icbper",
    "other",
    "total",
)
_TOTALLED = tuple(name for name in _MONEY_ATTRIBUTES if name)


def _format_money(entry: RegisterEntry) -> list[str]:
    """(A zero amount is ``"0.00"`` without a call of :func:`_amount`: most of a line's are zero.)"""
    z, a = "0.00", _amount
    e = entry
    return [
        a(e.export) if e.export else z,
        a(e.taxed) if e.taxed else z,
        a(e.taxed_discount) if e.taxed_discount else z,
        a(e.igv) if e.igv else z,
        a(e.igv_discount) if e.igv_discount else z,
        a(e.exonerated) if e.exonerated else z,
        a(e.unaffected) if e.unaffected else z,
        a(e.isc) if e.isc else z,
        z,
        z,
        a(e.icbper) if e.icbper else z,
        a(e.other) if e.other else z,
        a(e.total) if e.total else z,
    ]


def _reference(entry: RegisterEntry) -> list[str]:
    if not entry.affected_series:
        return ["", "", "", ""]
    return [_date(entry.affected_date), entry.affected_type, entry.affected_series, entry.affected_number]


def _document_fields(entry: RegisterEntry, *, name_length: int) -> list[str]:
    """The document and its customer, as both layouts write them (PLE fields 4–12, SIRE 5–13): dates,
    type, series, numbers, the customer's identity and name (cut to ``name_length``)."""
    return [
        _date(entry.date),
        _date(entry.due_date) if entry.document_type == "14" else "",
        entry.document_type,
        entry.series,
        str(entry.number),
        str(entry.number_end) if entry.number_end is not None else "",
        entry.customer_type,
        entry.customer_number,
        entry.customer_name[:name_length],
    ]


def ple_fields(entry: RegisterEntry, index: int) -> list[str]:
    """The 35 fields of a PLE 14.1 line (``index``: the entry's place in the month, for field 3)."""
    return [
        entry.period.code + "00",
        entry.cuo,
        f"M{index}",
        *_document_fields(entry, name_length=100),
        *_money_fields(entry),
        entry.currency,
        _rate(entry.rate) if entry.currency != "PEN" else "1.000",
        *_reference(entry),
        "",
        "",
        "",
        entry.state,
    ]


def ple_simplified_fields(entry: RegisterEntry, index: int) -> list[str]:
    """The 26 fields of a PLE 14.2 line: 14.1's fields 1–12, base (with its discount: 14.2 has no
    discount columns), IGV (idem), ICBPER, *otros* (the total less those three: exports, exonerated,
    unaffected, ISC and other charges, so the line adds up), total, currency and rate, the modified
    document, error type 1, means of payment and state."""
    full = ple_fields(entry, index)
    base = entry.taxed + entry.taxed_discount
    igv = entry.igv + entry.igv_discount
    other = entry.total - base - igv - entry.icbper
    return [
        *full[:12],
        _amount(base),
        _amount(igv),
        _amount(entry.icbper),
        _amount(other),
        _amount(entry.total),
        *full[25:31],
        *full[32:35],
    ]


def sire_fields(entry: RegisterEntry, ruc: str, name: str, period: Period) -> list[str]:
    """The 33 fields of a SIRE RVIE Anexo-3 line."""
    return [
        ruc,
        name[:1500],
        period.code,
        "",
        *_document_fields(entry, name_length=1500),
        *_money_fields(entry),
        entry.currency,
        _rate(entry.rate) if entry.currency != "PEN" else "",
        *_reference(entry),
        "",
    ]


def ple_file_name(ruc: str, period: Period, *, has_data: bool, currency: str = "PEN") -> str:
    """``LE`` + RUC + ``AAAAMM00`` + ``140100`` + ``00`` + operations 1 + content (1 data, 0 empty) +
    currency (1 soles, 2 dollars) + generator 1 + ``.TXT``."""
    return f"LE{ruc}{period}00140100001{int(has_data)}{'2' if currency == 'USD' else '1'}1.TXT"


def ple_simplified_file_name(ruc: str, period: Period, *, has_data: bool) -> str:
    """PLE 14.2: as 14.1's name with book ``140200``."""
    return f"LE{ruc}{period}00140200001{int(has_data)}11.TXT"


def sire_adjustment_file_name(
    ruc: str, period: Period, *, simplified: bool, has_data: bool, sequence: int = 1
) -> str:
    """A SIRE adjustment file for periods before SIRE (SIRE-EST tabla 6): ``LE`` + RUC + ``AAAAMM00``
    (the period it is presented in) + ``140400`` + ``04`` (general, Anexo 5.1 = 14.1 fields) or ``05``
    (simplified, Anexo 5.2 = 14.2 fields) + ``1`` + content + ``1`` soles + ``2`` generator + ``NN``."""
    if not 1 <= sequence <= 99:
        raise ValueError(f"sequence is 1 to 99 (got {sequence})")
    kind = "05" if simplified else "04"
    return f"LE{ruc}{period}00140400{kind}1{int(has_data)}12{sequence:02d}.TXT"


def sire_file_name(ruc: str, period: Period, *, has_data: bool) -> str:
    """The RVIE replacement file: ``LE`` + RUC + ``AAAAMM00`` + ``140400`` + ``02`` + ``1`` + content +
    ``1`` soles + ``2`` generator + ``.TXT`` (zipped under the same base name)."""
    return f"LE{ruc}{period}0014040002{'1'}{int(has_data)}12.TXT"


def _zipped(name: str, text: str) -> bytes:
    """``text`` (ASCII) as the file ``name`` inside a zip, as SUNAT takes SIRE files."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(name, text.encode("ascii"))
    return buffer.getvalue()


# --------------------------------------------------------------------------------------------- register


@dataclass(frozen=True)
class ProposalComparison:
    """Our RVIE file against SUNAT's proposal (by ``contaperu.tributos.comparar_sire``)."""

    common: int
    only_in_proposal: list[str]
    only_ours: list[str]
    differences: list[dict[str, Any]]
    report: str

    @property
    def matches(self) -> bool:
        """Nothing missing, nothing extra, no field differs."""
        return not (self.only_in_proposal or self.only_ours or self.differences)


@dataclass(frozen=True)
class Figures:
    """The three figures the register is reconciled on, in soles: value of sales (exports, taxed base
    with its discount, exonerated, unaffected), IGV (with its discount) and total."""

    value: Decimal = ZERO
    igv: Decimal = ZERO
    total: Decimal = ZERO

    @classmethod
    def of(cls, entries: Iterable[RegisterEntry]) -> Figures:
        """The figures of ``entries`` as their lines write them (each amount rounded to the cent)."""
        value = igv = total = ZERO
        for e in entries:
            value += sum(
                (round2(a) for a in (e.export, e.taxed, e.taxed_discount, e.exonerated, e.unaffected)), ZERO
            )
            igv += round2(e.igv) + round2(e.igv_discount)
            total += round2(e.total)
        return cls(value, igv, total)

    def __add__(self, other: Figures) -> Figures:
        return Figures(self.value + other.value, self.igv + other.igv, self.total + other.total)

    def __sub__(self, other: Figures) -> Figures:
        return Figures(self.value - other.value, self.igv - other.igv, self.total - other.total)

    def __neg__(self) -> Figures:
        return Figures(-self.value, -self.igv, -self.total)

    @property
    def zero(self) -> bool:
        """All three are zero."""
        return not (self.value or self.igv or self.total)


@dataclass(frozen=True)
class Difference:
    """Why the register's figures differ from the month's sales figures by ``figures`` (register less
    sales), and the documents that make it."""

    reason: str
    documents: tuple[str, ...]
    figures: Figures


@dataclass(frozen=True)
class Reconciliation:
    """The register's figures against the month's sales figures (Documentos, the same month): each
    difference named with its documents, and what is left unexplained (zero when they agree)."""

    register: Figures
    sales: Figures
    differences: list[Difference]

    @property
    def unexplained(self) -> Figures:
        """Register less sales less every named difference."""
        named = sum((d.figures for d in self.differences), Figures())
        return self.register - self.sales - named

    @property
    def agrees(self) -> bool:
        """Nothing is left unexplained."""
        return self.unexplained.zero


@dataclass(frozen=True)
class SetByHand:
    """A document of the register whose state was set by hand in the service (not told to SUNAT), with
    its latest change: who, when, from which state to which, and why."""

    number: str
    date: dt.date | None
    change: StateChange

    def describe(self) -> str:
        """``F001-3: estado cambiado a mano el 03/11/2026 10:15 por Ana, de Aceptado a Anulado: «…»``."""
        change = self.change
        when = f" el {change.changed_at:%d/%m/%Y %H:%M}" if change.changed_at else ""
        who = f" por {change.user_name}" if change.user_name else ""
        states = f"de {_state_name(change.from_state)} a {_state_name(change.to_state)}"
        reason = f": «{change.reason}»" if change.reason else " (sin motivo)"
        return f"{self.number}: estado cambiado a mano{when}{who}, {states}{reason}; no se informó a SUNAT."


def _state_name(code: str) -> str:
    return STATE_TYPES.get(code, f"estado {code}" if code else "sin estado")


def set_by_hand(rows: Iterable[Any], month: Period, sources: Iterable[str] = ()) -> list[SetByHand]:
    """The documents of ``rows`` (list rows or records) whose row carries ``state_changes``, issued in
    ``month`` or named in ``sources`` (a line of an earlier period), by date and number."""
    named = set(sources)
    found = []
    for row in rows:
        raw = row.raw if isinstance(row, DocumentRecord) else row
        if not isinstance(raw, Mapping):
            continue
        changes = [c for c in raw.get("state_changes") or () if isinstance(c, Mapping)]
        day = parse_date(raw.get("date_of_issue"))
        number = str(raw.get("number") or "")
        if changes and ((day is not None and month.contains(day)) or number in named):
            found.append(SetByHand(number, day, StateChange.from_wire(changes[-1])))
    return sorted(found, key=lambda item: (item.date or dt.date.min, item.number))


def _by_hand_warnings(by_hand: Sequence[SetByHand]) -> list[str]:
    return [item.describe() for item in by_hand]


@dataclass
class SalesRegister:
    """A month's sales register: its entries and warnings, and every file made from them (``by_hand``:
    its documents whose state was set by hand, each named among the warnings too)."""

    period: Period
    ruc: str
    name: str
    entries: list[RegisterEntry]
    warnings: list[str] = field(default_factory=list)
    by_hand: list[SetByHand] = field(default_factory=list)
    _lines: dict[str, tuple[Any, list[list[str]]]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    @classmethod
    def build(
        cls,
        records: Iterable[DocumentRecord | Mapping[str, Any]],
        period: Period | dt.date | str,
        *,
        ruc: str,
        name: str,
        consolidate_boletas: bool = False,
        closes: Closes | None = None,
    ) -> SalesRegister:
        """The register of ``period`` from list records or raw list rows (see :func:`build_entries`)."""
        month = Period.of(period)
        records = list(records)
        entries, warnings = build_entries(
            records, month, consolidate_boletas=consolidate_boletas, closes=closes
        )
        by_hand = set_by_hand(records, month, _earlier_sources(entries, month))
        return cls(month, ruc, _fold(name), entries, warnings + _by_hand_warnings(by_hand), by_hand)

    # -- lines ---------------------------------------------------------------------------------------

    def _lines_key(self) -> tuple[int, int, str, str]:
        """What the kept lines were made of: they are made again when it changes."""
        return (id(self.entries), len(self.entries), self.ruc, self.name)

    def _made(self, kind: str, make: Callable[[], list[list[str]]]) -> list[list[str]]:
        """``make()``'s lines, made once while the entries, RUC and name stay the same (a page shows the
        PLE lines and offers them as a file: 100,000 of them are worth keeping), with the cycle collector
        paused (the lines hold no cycles)."""
        key = self._lines_key()
        found = self._lines.get(kind)
        if found is None or found[0] != key:
            with gc_paused():
                found = self._lines[kind] = (key, make())
        return list(found[1])

    def ple_rows(self) -> list[list[str]]:
        """The PLE 14.1 lines as lists of 35 fields."""

        def make() -> list[list[str]]:
            return [ple_fields(entry, index) for index, entry in enumerate(self._ple_entries(), start=1)]

        return self._made("ple", make)

    def _ple_entries(self) -> list[RegisterEntry]:
        """The entries that are PLE 14.1 lines, in the lines' order."""
        return [entry for entry in self.entries if entry.in_ple]

    def ple_count(self) -> int:
        """How many lines :meth:`ple_rows` has, without making them."""
        return len(self._ple_entries())

    def ple_frame(
        self, fields: Sequence[str] = PLE_FIELDS, *, first: int = 0, count: int | None = None
    ) -> pd.DataFrame:
        """The PLE 14.1 lines as a pandas DataFrame, a column per field (:data:`PLE_FIELDS`, or those of
        ``fields`` in that order): text as in the file, amounts (fields 13–25) as floats to show and
        sort; made column by column from :meth:`ple_rows` (a month's 100,000 lines in a fraction of a
        second). With ``count``, only the lines ``first`` to ``first + count - 1`` (0-based), made
        alone when the whole :meth:`ple_rows` are not made yet (a page showing a month a thousand lines
        at a time does not make its 100,000 lines)."""
        import numpy as np
        import pandas as pd

        places = {name: place for place, name in enumerate(PLE_FIELDS)}
        unknown = [name for name in fields if name not in places]
        if unknown:
            raise ValueError(f"not PLE 14.1 fields: {', '.join(unknown)}")
        if first < 0 or (count is not None and count < 0):
            raise ValueError(f"lines from {first}, {count} of them: neither can be negative")
        if count is None:
            rows = self.ple_rows()[first:]
        elif "ple" in self._lines and self._lines["ple"][0] == self._lines_key():
            rows = self._lines["ple"][1][first : first + count]
        else:
            lines = self._ple_entries()[first : first + count]
            with gc_paused():
                rows = [ple_fields(entry, index) for index, entry in enumerate(lines, start=first + 1)]
        with gc_paused():
            columns = list(zip(*rows, strict=True)) if rows else [()] * len(PLE_FIELDS)
            return pd.DataFrame(
                {
                    name: np.array(columns[place], dtype=float) if 12 <= place < 25 else list(columns[place])
                    for name, place in ((name, places[name]) for name in fields)
                },
                columns=list(fields),
            )

    def ple_simplified_rows(self) -> list[list[str]]:
        """The PLE 14.2 (simplified) lines as lists of 26 fields: the same lines as 14.1."""
        lines = self._ple_entries()
        return [ple_simplified_fields(entry, index) for index, entry in enumerate(lines, start=1)]

    def adjustment_rows(self, *, simplified: bool = False) -> list[list[str]]:
        """The lines of SIRE's adjustment file for earlier periods: this month's state-8 and state-9
        lines (documents of an earlier month not recorded there, corrections of recorded ones), in the
        14.1 layout (Anexo 5.1) or, ``simplified``, the 14.2 one (Anexo 5.2); field 3 numbers them
        within the file."""
        lines = [e for e in self.entries if e.in_ple and e.state in ADJUSTMENT_STATES]
        fields_of = ple_simplified_fields if simplified else ple_fields
        return [fields_of(entry, index) for index, entry in enumerate(lines, start=1)]

    def sire_rows(self) -> list[list[str]]:
        """The RVIE replacement lines as lists of 33 fields (rejected documents and state 8/9 left out)."""

        def make() -> list[list[str]]:
            return [sire_fields(e, self.ruc, self.name, self.period) for e in self.entries if e.in_sire]
            # (the same lines :meth:`sire_count` counts)

        return self._made("sire", make)

    def sire_count(self) -> int:
        """How many lines :meth:`sire_rows` has, without making them."""
        return sum(1 for e in self.entries if e.in_sire)

    @staticmethod
    def _text(rows: Sequence[Sequence[str]]) -> str:
        with gc_paused():
            return "".join(["|".join(row) + "|\r\n" for row in rows])

    def ple_simplified_text(self) -> str:
        """The PLE 14.2 TXT (26 fields + ``|``, CRLF)."""
        return self._text(self.ple_simplified_rows())

    def adjustment_text(self, *, simplified: bool = False) -> str:
        """SIRE's adjustment TXT for earlier periods (see :meth:`adjustment_rows`)."""
        return self._text(self.adjustment_rows(simplified=simplified))

    def ple_text(self) -> str:
        """The PLE 14.1 TXT: a line per entry, fields joined and ended by ``|``, CRLF; empty month: ``""``."""
        return self._text(self.ple_rows())

    def sire_text(self) -> str:
        """The RVIE replacement TXT (Anexo 3, 33 fields + ``|``, CRLF)."""
        return self._text(self.sire_rows())

    @property
    def ple_name(self) -> str:
        """The PLE file name (content indicator 0 when the month is empty)."""
        return ple_file_name(self.ruc, self.period, has_data=any(e.in_ple for e in self.entries))

    @property
    def ple_simplified_name(self) -> str:
        """The PLE 14.2 file name."""
        return ple_simplified_file_name(self.ruc, self.period, has_data=any(e.in_ple for e in self.entries))

    def adjustment_name(self, *, simplified: bool = False, sequence: int = 1) -> str:
        """The adjustment TXT's name (CC ``04``, or ``05`` simplified; the zip takes the same base name)."""
        has_data = any(e.in_ple and e.state in ADJUSTMENT_STATES for e in self.entries)
        return sire_adjustment_file_name(
            self.ruc, self.period, simplified=simplified, has_data=has_data, sequence=sequence
        )

    def adjustment_zip(self, *, simplified: bool = False, sequence: int = 1) -> bytes:
        """The adjustment TXT inside a zip of the same base name."""
        return _zipped(
            self.adjustment_name(simplified=simplified, sequence=sequence),
            self.adjustment_text(simplified=simplified),
        )

    @property
    def sire_name(self) -> str:
        """The RVIE TXT's name (the zip takes the same base name)."""
        return sire_file_name(self.ruc, self.period, has_data=any(e.in_sire for e in self.entries))

    def ple_bytes(self) -> bytes:
        """The PLE file's bytes (ASCII: text fields are folded, see the docs)."""
        return self.ple_text().encode("ascii")

    def ple_simplified_bytes(self) -> bytes:
        """The PLE 14.2 file's bytes (ASCII)."""
        return self.ple_simplified_text().encode("ascii")

    def sire_zip(self) -> bytes:
        """The RVIE replacement TXT inside a zip of the same base name, as SUNAT takes it."""
        return _zipped(self.sire_name, self.sire_text())

    # -- figures -------------------------------------------------------------------------------------

    def totals(self) -> dict[str, Decimal]:
        """Fields 13–25 (PLE numbering) added up over every line: what the documents add to. Each
        amount is added as its line writes it (:func:`_amount`: rounded to the cent, half up), read
        from the entry without writing the line (a page shows the totals before any line is made)."""
        get = operator.attrgetter(*_TOTALLED)
        start = _NO_CENTS if any(e.in_ple for e in self.entries) else ZERO  # sums of cents have 2 decimals
        sums = [start] * len(_TOTALLED)
        cents = round2
        with gc_paused():
            for entry in self.entries:
                if entry.in_ple:
                    for place, value in enumerate(get(entry)):
                        if value:  # (most amounts of most lines are zero)
                            sums[place] += cents(value)
        found = dict(zip(_TOTALLED, sums, strict=True))
        return {  # the IVAP columns are always zero
            name: found.get(attribute, start) if attribute else start
            for name, attribute in zip(PLE_FIELDS[12:25], _MONEY_ATTRIBUTES, strict=True)
        }

    def moved_out(self) -> list[RegisterEntry]:
        """The month's documents that arrived after it was closed: not lines of this register, each goes
        to its ``moved_to`` month's as state 8."""
        return [entry for entry in self.entries if entry.moved_to is not None]

    def pending(self) -> dict[str, list[str]]:
        """The month's documents SUNAT's proposal will not have yet, by what is missing: ``"cdr"``
        (facturas and notes not sent, or without their CDR) and ``"summary"`` (boletas not declared in a
        daily summary); their numbers."""
        found: dict[str, list[str]] = {"cdr": [], "summary": []}
        for warning in self.warnings:
            for kind, end in (("cdr", WITHOUT_CDR), ("summary", UNDECLARED)):
                if warning.endswith(end):
                    found[kind].append(warning[: -len(end)])
        return found

    def figures(self) -> Figures:
        """The value of sales, IGV and total of the register's PLE lines."""
        return Figures.of(e for e in self.entries if e.in_ple)

    def reconcile(self, sales: Figures) -> Reconciliation:
        """The register against ``sales``: the month's figures as the sales pages give them (documents
        of the month, voided and rejected left out, notes of credit subtracted, in soles at each
        document's rate). The differences the rules make are named: lines of earlier months (state 8),
        documents voided after the month was closed (kept as filed), documents of the month that go to a
        later month, and amounts in another currency without a rate (unconverted here, left out there)."""
        corrected = {e.cuo for e in self.entries if not e.in_ple and e.in_sire and e.state == "2"}
        groups: dict[str, list[RegisterEntry]] = {}
        for entry in self.entries:
            if entry.moved_to is not None:
                reason = (
                    "Del mes, llegaron después del cierre: van al registro de un mes posterior (estado 8)"
                )
            elif not entry.in_ple:
                continue
            elif entry.period != self.period and entry.state == "8":
                reason = "De meses anteriores, llegaron después de su cierre (estado 8)"
            elif entry.period == self.period and entry.state == "1" and entry.cuo in corrected:
                reason = "Anulados después del cierre del mes: figuran como se presentaron (estado 1)"
            elif entry.period == self.period and entry.currency != "PEN" and entry.rate is None:
                reason = "En moneda extranjera sin tipo de cambio: sin convertir aquí, fuera de las ventas"
            else:
                continue
            groups.setdefault(reason, []).append(entry)
        differences = []
        for reason, entries in groups.items():
            amounts = Figures.of(entries)
            if entries[0].moved_to is not None:
                amounts = -amounts
            named = tuple(
                e.source + (f" → {e.moved_to.month:02d}/{e.moved_to.year}" if e.moved_to is not None else "")
                for e in entries
            )
            differences.append(Difference(reason, named, amounts))
        return Reconciliation(self.figures(), sales, differences)

    # -- files ---------------------------------------------------------------------------------------

    def excel_bytes(self) -> bytes:
        """An .xlsx with the PLE 14.1 lines (sheet ``PLE 14.1``) and the RVIE lines (``SIRE RVIE``):
        dates as dates, amounts as numbers, headers bold and frozen; and, when there are any, the
        documents whose state was set by hand (``Estado cambiado a mano``). Needs openpyxl."""
        from openpyxl import Workbook
        from openpyxl.styles import Font

        workbook = Workbook()
        sheets = (
            ("PLE 14.1", PLE_FIELDS, self.ple_rows(), range(12, 25), {3, 4, 27}, {26}),
            ("SIRE RVIE", SIRE_FIELDS, self.sire_rows(), range(13, 26), {4, 5, 28}, {27}),
        )
        first = True
        for title, headers, rows, amounts, dates, rates in sheets:
            ws = workbook.active if first else workbook.create_sheet()
            assert ws is not None
            first = False
            ws.title = title
            ws.append(list(headers))
            for cell in ws[1]:
                cell.font = Font(bold=True)
            ws.freeze_panes = "A2"
            for row in rows:
                values: list[Any] = []
                for index, field_text in enumerate(row):
                    if index in amounts or (index in rates and field_text):
                        values.append(Decimal(field_text))
                    elif index in dates and field_text:
                        values.append(dt.datetime.strptime(field_text, "%d/%m/%Y").date())
                    else:
                        values.append(field_text)
                ws.append(values)
            for column in ws.iter_cols(min_row=2):
                for cell in column:
                    if cell.column - 1 in amounts:
                        cell.number_format = "#,##0.00"
                    elif cell.column - 1 in dates:
                        cell.number_format = "DD/MM/YYYY"
                    elif cell.column - 1 in rates:
                        cell.number_format = "0.000"
        if self.by_hand:  # who set a document's state by hand, when, from which to which, and why
            ws = workbook.create_sheet("Estado cambiado a mano")
            ws.append(["Documento", "Fecha de emisión", "Cambiado el", "Por", "De", "A", "Motivo"])
            for cell in ws[1]:
                cell.font = Font(bold=True)
            for item in self.by_hand:
                change = item.change
                ws.append(
                    [
                        item.number,
                        item.date,
                        change.changed_at,
                        change.user_name,
                        _state_name(change.from_state),
                        _state_name(change.to_state),
                        change.reason,
                    ]
                )
            for row in ws.iter_rows(min_row=2, max_col=3):
                row[1].number_format, row[2].number_format = "DD/MM/YYYY", "DD/MM/YYYY HH:MM"
        buffer = io.BytesIO()
        workbook.save(buffer)
        return buffer.getvalue()

    def write(self, folder: str | Path, kinds: Iterable[str] = ("ple", "sire", "excel")) -> list[Path]:
        """Write the files (``ple``: the 14.1 TXT, ``ple-simplified``: the 14.2 TXT, ``sire``: the RVIE
        zip, ``adjustments`` / ``adjustments-simplified``: SIRE's adjustment zip for earlier periods in
        the 14.1 / 14.2 layout, ``excel``: the workbook) into ``folder``; returns their paths."""
        target = Path(folder)
        target.mkdir(parents=True, exist_ok=True)
        written = []
        for kind in kinds:
            if kind == "ple":
                path, content = target / self.ple_name, self.ple_bytes()
            elif kind == "ple-simplified":
                path, content = target / self.ple_simplified_name, self.ple_simplified_bytes()
            elif kind == "sire":
                path, content = target / (self.sire_name[:-4] + ".zip"), self.sire_zip()
            elif kind in ("adjustments", "adjustments-simplified"):
                simplified = kind == "adjustments-simplified"
                name = self.adjustment_name(simplified=simplified)[:-4] + ".zip"
                path, content = target / name, self.adjustment_zip(simplified=simplified)
            elif kind == "excel":
                path, content = target / f"registro_ventas_{self.period}.xlsx", self.excel_bytes()
            else:
                raise ValueError(f"unknown kind {kind!r} (one of {', '.join(FILE_KINDS)})")
            path.write_bytes(content)
            written.append(path)
        return written

    # -- SUNAT's proposal ----------------------------------------------------------------------------

    def compare_with_proposal(self, proposal: bytes) -> ProposalComparison:
        """Compare this register's RVIE lines with SUNAT's proposal export (TXT, or the ZIP it comes in),
        with ``contaperu``'s comparer: by type, series and number; fields 5–33 (the CAR skipped), amounts
        and rates normalised; names compared ASCII-folded on both sides (ours are folded)."""
        from contaperu.tributos import comparar_sire

        theirs = comparar_sire.leer_bytes(proposal)
        for row in theirs:
            if len(row) >= 13:
                row[12] = _fold(row[12])
                row[1] = _fold(row[1])
        ours = [list(row) for row in self.sire_rows()]
        result = comparar_sire.comparar(ours, theirs, comparar_sire.VENTAS)
        return ProposalComparison(
            common=len(result["comunes"]),
            only_in_proposal=["-".join(key) for key in result["solo_en_sunat"]],
            only_ours=["-".join(key) for key in result["solo_nuestros"]],
            differences=list(result["diferencias"]),
            report=comparar_sire.informe(result),
        )


# -- from a tenant -----------------------------------------------------------------------------------

#: Days before a month that its register lists (earlier documents registered or voided in the month).
REGISTER_LOOK_BACK_DAYS = 45

_CAC = "{urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2}"
_CBC = "{urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2}"


def reference_of_xml(xml: bytes) -> tuple[str, str] | None:
    """The document a signed note modifies (``BillingReference/InvoiceDocumentReference``): its number
    (``F001-12``) and type code, or ``None`` when the XML names none."""
    root = ElementTree.fromstring(xml)
    reference = root.find(f"{_CAC}BillingReference/{_CAC}InvoiceDocumentReference")
    if reference is None:
        return None
    number = (reference.findtext(f"{_CBC}ID") or "").strip()
    return (number, (reference.findtext(f"{_CBC}DocumentTypeCode") or "").strip()) if number else None


def issuer_of_xml(xml: bytes) -> tuple[str, str]:
    """The issuer's RUC and registration name in a signed UBL document (``AccountingSupplierParty``)."""
    root = ElementTree.fromstring(xml)
    party = root.find(f"{_CAC}AccountingSupplierParty/{_CAC}Party")
    if party is None:
        raise ValueError("the XML names no AccountingSupplierParty")
    ruc = party.findtext(f"{_CAC}PartyIdentification/{_CBC}ID") or ""
    name = party.findtext(f"{_CAC}PartyLegalEntity/{_CBC}RegistrationName") or ""
    return ruc.strip(), name.strip()


class _Documents(Protocol):
    """What :func:`sales_register` asks of ``client.documents``."""

    def list(self, start: dt.date | str, end: dt.date | str, *, fresh: bool = ...) -> DocumentList: ...

    def download_xml(self, external_id: str) -> bytes: ...


class _Client(Protocol):
    """What :func:`sales_register` asks of a :class:`connector.Client`."""

    @property
    def documents(self) -> _Documents: ...

    @property
    def progress(self) -> Callable[[str], None] | None: ...


class _Store(Protocol):
    """What :func:`sales_register` asks of a local store (:class:`connector.store.LocalStore`), which a
    client reading through one (:meth:`~connector.store.LocalStore.reading`) holds as ``store``."""

    def sync(self, start: dt.date, end: dt.date, *, client: Any = ..., full: bool = ...) -> Any: ...

    def sql(self, query: str, parameters: list[Any] | None = None) -> Any: ...

    def fetch(self, query: str, parameters: Sequence[Any] = ...) -> list[tuple[Any, ...]]: ...


def sales_register(
    client: _Client,
    period: Period | dt.date | str,
    *,
    folder: str | Path | None = None,
    kinds: Iterable[str] = ("ple", "sire", "excel"),
    ruc: str | None = None,
    name: str | None = None,
    consolidate_boletas: bool = False,
    fresh: bool = False,
    closes: Closes | None = None,
) -> SalesRegister:
    """The Registro de Ventas e Ingresos of a month (``"2026-03"``, a date in it, ...) of ``client``'s
    tenant: its entries (:meth:`SalesRegister.ple_rows`, :meth:`~SalesRegister.sire_rows`), the warnings
    to read before filing, and, with ``folder``, its files written there (PLE 14.1 TXT, SIRE RVIE zip,
    Excel).

    Lists the month and the :data:`REGISTER_LOOK_BACK_DAYS` days before it (documents of a closed
    earlier month that arrived, or were voided, after its close take states 8 and 9). ``closes``: when
    each month was closed (:class:`connector.closes.MonthCloses`); by default those kept beside the
    client's local store, none for a client without one. The issuer's RUC and name come from a
    document's signed XML unless given.
    """
    month = Period.of(period)
    documents = client.documents
    first = month.start - dt.timedelta(days=REGISTER_LOOK_BACK_DAYS)
    store: _Store | None = getattr(client, "store", None)
    if closes is None:
        where = getattr(store, "path", None)
        closes = MonthCloses.beside(where) if where is not None else {}
    if store is not None:  # a local store: only the rows that can make a line, read once
        store.sync(first, month.end, client=getattr(client, "client", None), full=fresh)
        rows, dates, head = _stored_rows(store, first, month, _listed, closes)
    else:
        listed = documents.list(first, month.end, fresh=fresh)
        rows, dates, head = listed.rows, None, listed.rows[:1]
    _read_references(client, [row for row in rows if isinstance(row, dict)], month.start, month.end, dates)
    if ruc is None or name is None:
        found_ruc, found_name = _issuer(documents, DocumentList(head or _any_document(client, store)))
        ruc, name = ruc or found_ruc, name or found_name
    with gc_paused():
        entries, warnings = _build_entries(rows, month, consolidate_boletas, dates, closes=closes)
    earlier = _earlier_sources(entries, month)
    if store is not None:  # the stored rows carrying state_changes (read whole: few a month)
        flagged = "hand_set" if getattr(store, "schema", 1) >= 3 else _HAND_SET_TEXT
        changed = store.sql(
            f"SELECT raw FROM documents WHERE date_of_issue BETWEEN ? AND ? AND {flagged}", [first, month.end]
        )
        by_hand = set_by_hand(map(orjson.loads, changed["raw"].tolist()), month, earlier)
    else:
        by_hand = set_by_hand(rows, month, earlier)
    warnings += _by_hand_warnings(by_hand)
    register = SalesRegister(month, ruc, _fold(name), entries, warnings, by_hand)  # no record each
    if folder is not None:
        register.write(folder, kinds)
    return register


def _read_references(
    client: _Client,
    rows: list[dict[str, Any]],
    start: dt.date,
    end: dt.date,
    known: Mapping[str, dt.date] | None = None,
) -> None:
    """The modified document of each note of ``start``..``end`` its row does not name, from the note's
    signed XML (``BillingReference``; the XML is cached a day): real tenants' lists never say it. Its
    date comes from the listed rows when that document is among them (or from ``known``: the issue
    dates by number of every listed document, when ``rows`` are only some of them)."""
    pending = [
        row
        for row in rows
        if row.get("document_type_id") in NOTES
        and not row.get("affected_document")
        and row.get("external_id")
        and (day := parse_date(row.get("date_of_issue"))) is not None
        and start <= day <= end
    ]
    if not pending:
        return
    dates: Mapping[str, Any]
    if known is not None:
        dates = {number.upper(): day for number, day in known.items()}
    else:
        dates = {str(row.get("number") or "").upper(): row.get("date_of_issue") for row in rows}
    for index, note in enumerate(pending, 1):
        if client.progress is not None:
            client.progress(
                f"Leyendo el documento modificado de {note.get('number')} ({index} de {len(pending)})."
            )
        try:
            found = reference_of_xml(client.documents.download_xml(str(note["external_id"])))
        except (FacturadorError, ValueError, ElementTree.ParseError):
            continue
        if found is None:
            continue
        number, document_type = found
        series, correlative = split_number(number)
        note["affected_document"] = {
            "document_type_id": document_type,
            "series": series,
            "number": correlative,
            "date_of_issue": dates.get(number.upper()),
        }


#: The keys of a list row the register reads (:func:`_listed`, the notes' links, the issuer's file name):
#: all it keeps of a stored row.
_ROW_KEYS = (
    "external_id",
    "number",
    "series",
    "correlative",
    "date_of_issue",
    "document_type_id",
    "customer_name",
    "customer_number",
    "customer_identity_document_type_id",
    "currency_type_id",
    "exchange_rate_sale",
    "state_type_id",
    "has_cdr",
    "affected_document",
    "notes",
    "created_at",
    "updated_at",
    "filename",
    *REGISTER_AMOUNTS,
)
#: A stored row that lists its state's changes by hand, by its JSON text (a store before ``hand_set``).
_HAND_SET_TEXT = """contains(decode(raw), '"state_changes":[{')"""
_NEWEST_FIRST = "ORDER BY date_of_issue DESC, id DESC NULLS LAST"  # the store's list order
#: A stored row read from the typed columns (a store of schema 2): ``raw`` only when they cannot be
#: trusted to hold what :func:`_listed` reads (not ``exact``), or the row is a note or lists notes (the
#: notes' links are made on the rows); else the :class:`_Listed` fields, amounts as text (DuckDB's
#: DECIMAL to Python is 7 times slower than a Decimal made of its text).
_TYPED_COLUMNS = (
    "CASE WHEN exact AND NOT lists_notes AND document_type_id NOT IN ('07', '08') "
    "THEN NULL ELSE raw END, date_of_issue, number, series, correlative, document_type_id, "
    "coalesce(customer_name, ''), coalesce(customer_number, ''), coalesce(customer_identity_type, ''), "
    "coalesce(currency_type_id, ''), CAST(exchange_rate_sale AS VARCHAR), coalesce(state_type_id, ''), "
    "has_cdr, created_at, updated_at, " + ", ".join(f"CAST({name} AS VARCHAR)" for name in REGISTER_AMOUNTS)
)


def _typed(row: tuple[Any, ...]) -> _Listed:
    """A :data:`_TYPED_COLUMNS` row of an ``exact`` document as :func:`_listed` reads its ``raw``."""
    _, day, number, series, correlative, kind, name, customer, identity, currency, rate, *rest = row
    state, cdr, created, updated, export, taxed, igv, exonerated, unaffected, icbper, total = rest
    zero = _NO_CENTS
    return _Listed(
        day,
        number,
        series,
        correlative,
        kind,
        name,
        customer,
        identity,
        currency,
        rate_or_none(Decimal(rate)) if rate is not None else None,
        state,
        cdr,
        None,  # not a note
        created,
        updated,
        zero if export == "0.00" else Decimal(export),
        Decimal(taxed),
        Decimal(igv),
        zero if exonerated == "0.00" else Decimal(exonerated),
        zero if unaffected == "0.00" else Decimal(unaffected),
        zero if icbper == "0.00" else Decimal(icbper),
        Decimal(total),
    )


#: Days of stored rows read at a time (their JSON text, ~20,000 rows of a large tenant's week).
_READ_DAYS = 7


def _stored_rows(
    store: _Store,
    first: dt.date,
    month: Period,
    read_as: Callable[[dict[str, Any]], Any] | None = None,
    closes: Closes | None = None,
) -> tuple[list[Any], Mapping[str, dt.date], list[dict[str, Any]]]:
    """The rows of ``first``..the month's end a register can take a line or a link from, read out of a
    local store, with the issue date of every document of that range by number and the range's first
    row (the issuer is read from it), as :meth:`connector.store.LocalStore.documents` would list them. With
    ``read_as`` (:func:`_listed`), each row that is not a note nor lists notes (nothing links or
    reads its reference) is given as ``read_as(row)`` as soon as it is read: a month of dicts is
    never held.

    A document issued before the month gives a line only when a month was closed before it arrived
    (``created_at``) or was voided (state 11, ``updated_at``): so, without ``closes``, none does, and
    with them only those registered, or voided, since the month began; a note without its modified
    document is linked only through a row listing its notes. The other earlier rows are left out by
    those tests on their typed columns (a row whose typed columns are not ``exact`` is kept), which keep
    every row that can pass :func:`build_entries`' own rules: those rules still decide. Of each row
    only :data:`_ROW_KEYS`."""
    within = "date_of_issue BETWEEN ? AND ?"
    typed = read_as is _listed and getattr(store, "schema", 1) >= 2
    columns = _TYPED_COLUMNS if typed else "raw"
    if not closes:
        earlier, marks = "FALSE", []
    elif getattr(store, "schema", 1) >= 2:  # an exact row's typed times are what the rules read
        earlier = "(NOT exact OR created_at >= ? OR (state_type_id = ? AND updated_at >= ?))"
        marks = [month.start, VOIDED, month.start]
    else:
        earlier, marks = "TRUE", []

    def kept(row: dict[str, Any]) -> Any:
        if read_as is None or row.get("document_type_id") in NOTES or "notes" in row:
            return row
        return read_as(row)

    def read(notes: bool) -> list[Any]:
        rows: list[Any] = []
        loads, keys = orjson.loads, _ROW_KEYS
        last = month.end
        while last >= first:  # a week at a time, newest first: a month's JSON is never held whole
            start = max(first, last - dt.timedelta(days=_READ_DAYS - 1))
            query = (
                f"SELECT {columns} FROM documents WHERE {within} AND (date_of_issue >= ? OR {earlier}"
                + (" OR contains(decode(raw), ?)" if notes else "")
                + f") {_NEWEST_FIRST}"
            )
            parameters = [start, last, month.start, *marks, *(['"notes":[{'] if notes else [])]
            if typed:
                for row in store.fetch(query, parameters):
                    if row[0] is None:
                        rows.append(_typed(row))
                    else:
                        found = loads(row[0])
                        rows.append(kept({k: found[k] for k in keys if k in found}))
            else:
                found = store.sql(query, parameters)["raw"].tolist()
                rows.extend(kept({k: row[k] for k in keys if k in row}) for row in map(loads, found))
            last = start - dt.timedelta(days=1)
        return rows

    with gc_paused():
        rows = read(notes=False)
        if any(
            isinstance(row, dict)
            and row.get("document_type_id") in NOTES
            and not row.get("affected_document")
            for row in rows
        ):
            rows = read(notes=True)  # a real tenant's notes: the rows listing them too (every row's text)
            link_notes([row for row in rows if isinstance(row, dict)])
    dates = _IssueDates(store, first, month.end)
    notes = (row for row in rows if isinstance(row, dict) and row.get("document_type_id") in NOTES)
    dates.read(AffectedRef.from_wire(note.get("affected_document")) for note in notes)
    head = store.sql(f"SELECT raw FROM documents WHERE {within} {_NEWEST_FIRST} LIMIT 1", [first, month.end])
    return rows, dates, [orjson.loads(raw) for raw in head["raw"].tolist()]


class _IssueDates(Mapping[str, dt.date]):
    """The issue date by number of every document a store lists from ``first`` to ``last`` (of a number
    listed twice, the last in the list's order), read when asked: :meth:`read` reads those of some
    numbers (the documents a range's notes modify: all a register usually asks), any other number asked
    reads them all (a month's 250,000 numbers, 0.2 s: only for a tenant's notes whose reference comes
    from their XML)."""

    def __init__(self, store: _Store, first: dt.date, last: dt.date) -> None:
        self._store, self._first, self._last = store, first, last
        self._asked: set[str] = set()
        self._found: dict[str, dt.date] = {}
        self._all: dict[str, dt.date] | None = None

    def _dates(self, where: str, parameters: list[Any]) -> dict[str, dt.date]:
        listed = self._store.sql(
            f"SELECT coalesce(number, '') AS n, date_diff('day', ?, date_of_issue) AS d FROM documents "
            f"WHERE date_of_issue BETWEEN ? AND ? {where} {_NEWEST_FIRST}",
            [self._first, self._first, self._last, *parameters],
        )
        first, span = self._first, (self._last - self._first).days + 1
        days = [first + dt.timedelta(days=n) for n in range(span)]
        return dict(zip(listed["n"].tolist(), map(days.__getitem__, listed["d"].tolist()), strict=True))

    def read(self, references: Iterable[AffectedRef | None]) -> None:
        """Read the dates of the documents ``references`` name (by their full number), in one query."""
        numbers = {ref.full_number for ref in references if ref is not None} - self._asked
        if numbers and self._all is None:
            self._found.update(
                self._dates("AND coalesce(number, '') IN (SELECT unnest(?))", [sorted(numbers)])
            )
            self._asked |= numbers

    def _whole(self) -> dict[str, dt.date]:
        if self._all is None:
            self._all = self._dates("", [])
        return self._all

    def get(self, number: str, default: Any = None) -> Any:  # type: ignore[override]
        """The date of ``number`` (``default`` when the range lists no such document)."""
        if self._all is None and number in self._asked:
            return self._found.get(number, default)
        return self._whole().get(number, default)

    def __getitem__(self, number: str) -> dt.date:
        found = self.get(number, _MISSING)
        if found is _MISSING:
            raise KeyError(number)
        return found  # type: ignore[no-any-return]

    def __iter__(self) -> Iterator[str]:
        return iter(self._whole())

    def __len__(self) -> int:
        return len(self._whole())


_MISSING = object()


def _earlier_sources(entries: Iterable[RegisterEntry], month: Period) -> set[str]:
    """The numbers of the register's lines of earlier periods (states 8 and 9)."""
    return {e.source for e in entries if e.period != month and e.in_ple}


def _any_document(client: _Client, store: _Store | None) -> list[dict[str, Any]]:
    """A document of the tenant's from outside the register's range (its newest stored one, or one of
    the last :data:`REGISTER_LOOK_BACK_DAYS` days listed): an empty month's files still need the
    issuer's RUC in their names."""
    if store is not None:
        head = store.sql(f"SELECT raw FROM documents {_NEWEST_FIRST} LIMIT 1")
        return [orjson.loads(raw) for raw in head["raw"].tolist()]
    today = peru_today()
    try:
        return client.documents.list(today - dt.timedelta(days=REGISTER_LOOK_BACK_DAYS), today).rows[:1]
    except FacturadorError:
        return []


def _issuer(documents: _Documents, records: Sequence[DocumentRecord]) -> tuple[str, str]:
    """The issuer's RUC and name from the first document's signed XML (cached a day); the RUC from a
    file name when there is no XML to read; ``("", "")`` for a month without documents."""
    for record in records[:1]:
        if record.external_id:
            try:
                return issuer_of_xml(documents.download_xml(record.external_id))
            except (FacturadorError, ValueError):
                pass
        head = str(record.raw.get("filename") or "").split("-", 1)[0]
        if len(head) == 11 and head.isdigit():
            return head, ""
    return "", ""
