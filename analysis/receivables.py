"""Receivables: the instalments (``cuotas``) of sales on credit, what is due and overdue, by customer and
age, in Decimal.

The service records no collections, so every instalment counts as unpaid; credit notes on a credit
factura reduce what it is owed, taken from its last instalments first (the usual way: a return or a
discount lowers the final payments). A debit note raises it: one with instalments of its own is owed on
their dates; one without is owed with the factura's last instalment (netted with the credit notes).
A credit note of type 13 (adjustment of amounts and payment dates) replaces the factura's instalments
with its own (the latest such note, when there are several). Voided and rejected facturas and notes owe
nothing. Amounts stay in the document's currency; :attr:`OpenInstalment.in_soles` converts at the
document's own rate.

Input: the rows of ``client.documents.list(start, end, details=True)`` (each with ``payment_condition_id``
and ``fee``). Rows without them (real tenants) cannot tell their instalments: :func:`open_instalments`
reports how many such facturas it saw.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import orjson

from analysis.sales import NOT_COUNTED
from connector.models import link_notes
from connector.parsing import exchange_rate_of, gc_paused, parse_date, parse_decimal
from connector.store import LocalStore
from sunat.money import round2

__all__ = ["AGES", "CustomerAging", "OpenInstalment", "aging", "age_of", "open_instalments", "stored_rows"]

#: Age buckets: not due yet, then days since the due date.
AGES = ("Por vencer", "0–30 días", "31–60 días", "61–90 días", "Más de 90 días")
CREDIT = "02"
CREDIT_NOTE, DEBIT_NOTE = "07", "08"
ZERO = Decimal("0")


def age_of(due: dt.date, today: dt.date) -> str:
    """The bucket of an instalment due on ``due``: not due yet, or 0–30, 31–60, 61–90, over 90 days."""
    days = (today - due).days
    if days < 0:
        return AGES[0]
    if days <= 30:
        return AGES[1]
    if days <= 60:
        return AGES[2]
    if days <= 90:
        return AGES[3]
    return AGES[4]


@dataclass(frozen=True)
class OpenInstalment:
    """What is still owed of one instalment."""

    document: str
    position: int  # 1 for Cuota001
    customer_number: str
    customer_name: str
    issue_date: dt.date
    due_date: dt.date
    currency: str
    amount: Decimal
    rate: Decimal | None

    def age(self, today: dt.date) -> str:
        """Its age bucket today (:data:`AGES`)."""
        return age_of(self.due_date, today)

    def days_late(self, today: dt.date) -> int:
        """Days since it fell due (negative: days left)."""
        return (today - self.due_date).days

    @property
    def in_soles(self) -> Decimal | None:
        """The amount in soles at the document's rate, ``None`` when the rate is unknown."""
        if self.currency == "PEN":
            return self.amount
        return round2(self.amount * self.rate) if self.rate is not None else None


def _affected_number(row: Mapping[str, Any]) -> str:
    """The number of the document a note modifies ('' when the row does not say)."""
    affected = row.get("affected_document")
    if isinstance(affected, Mapping) and affected.get("series"):
        return f"{affected['series']}-{affected.get('number')}"
    if isinstance(affected, str):
        return affected.strip()
    return ""


def _own_terms(row: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The instalments of a row sold on credit (none for a sale paid at once or a row without them)."""
    if str(row.get("payment_condition_id") or "") != CREDIT:
        return []
    return [f for f in row.get("fee") or [] if isinstance(f, Mapping)]


def _notes(
    rows: Iterable[Mapping[str, Any]],
) -> tuple[dict[str, Decimal], dict[str, list[tuple[dt.date | None, Decimal]]]]:
    """Of the counted notes, by the number of the document they modify: what they take from it (credit
    notes' totals less those of the debit notes without instalments of their own: negative when the
    debit notes add more), and the instalments of the latest credit note of type 13 (adjustment of
    amounts and payment dates) that has them."""
    totals: dict[str, Decimal] = defaultdict(lambda: ZERO)
    adjusted: dict[str, tuple[tuple[str, str, int], list[tuple[dt.date | None, Decimal]]]] = {}
    for row in rows:
        kind = str(row.get("document_type_id"))
        if kind not in (CREDIT_NOTE, DEBIT_NOTE) or str(row.get("state_type_id")) in NOT_COUNTED:
            continue
        number = _affected_number(row)
        if not number:
            continue
        if kind == DEBIT_NOTE:
            if not _own_terms(row):  # owed with the document it raises (its own terms: on its own dates)
                totals[number] -= parse_decimal(row.get("total"))
            continue
        totals[number] += parse_decimal(row.get("total"))
        fees = [f for f in row.get("fee") or [] if isinstance(f, Mapping)]
        if str(row.get("note_type_id") or "") == "13" and fees:
            issued = parse_date(row.get("date_of_issue"))
            moment = (issued.isoformat() if issued else "", str(row.get("time_of_issue") or ""), _id(row))
            if number not in adjusted or moment > adjusted[number][0]:
                owed = [(parse_date(f.get("date")), parse_decimal(f.get("amount"))) for f in fees]
                adjusted[number] = (moment, owed)
    return totals, {number: owed for number, (_, owed) in adjusted.items()}


def _id(row: Mapping[str, Any]) -> int:
    try:
        return int(row.get("id") or 0)
    except (TypeError, ValueError):
        return 0


def open_instalments(rows: Sequence[Mapping[str, Any]]) -> tuple[list[OpenInstalment], int]:
    """The instalments still owed of the counted credit sales in ``rows`` (as a note of type 13 left
    them, credit notes applied, last instalments first), by due date; and how many facturas came
    without their payment terms."""
    reductions, adjustments = _notes(rows)
    out: list[OpenInstalment] = []
    without_terms = 0
    for row in rows:
        kind = str(row.get("document_type_id"))
        if kind not in ("01", "03", DEBIT_NOTE) or str(row.get("state_type_id")) in NOT_COUNTED:
            continue
        if "fee" not in row:
            without_terms += kind != DEBIT_NOTE
            continue
        fees = _own_terms(row)
        if not fees:
            continue
        number = str(row.get("number") or "")
        owed = adjustments.get(number) or [
            (parse_date(f.get("date")), parse_decimal(f.get("amount"))) for f in fees
        ]
        owed = list(owed)  # a copy: the credit notes lower it below
        left = reductions.get(number, ZERO)
        if left < 0 and owed:  # debit notes without terms of their own: owed with the last instalment
            due, amount = owed[-1]
            owed[-1] = (due, amount - left)
        for index in range(len(owed) - 1, -1, -1):  # credit notes lower the last instalments first
            if left <= 0:
                break
            due, amount = owed[index]
            taken = min(amount, left)
            owed[index] = (due, amount - taken)
            left -= taken
        issued = parse_date(row.get("date_of_issue"))
        currency = str(row.get("currency_type_id") or "PEN")
        for position, (due, amount) in enumerate(owed, start=1):
            if amount <= 0 or due is None or issued is None:
                continue
            out.append(
                OpenInstalment(
                    document=number,
                    position=position,
                    customer_number=str(row.get("customer_number") or ""),
                    customer_name=str(row.get("customer_name") or ""),
                    issue_date=issued,
                    due_date=due,
                    currency=currency,
                    amount=amount,
                    rate=exchange_rate_of(row) if currency != "PEN" else None,
                )
            )
    out.sort(key=lambda i: (i.due_date, i.document, i.position))
    return out, without_terms


def stored_rows(store: LocalStore, start: dt.date, end: dt.date) -> tuple[list[dict[str, Any]], bool]:
    """The rows issued from ``start`` to ``end`` :func:`open_instalments` can take an instalment or a
    reduction from, read out of a local store (its list order), and whether the store's rows carry
    their details (its newest row has its lines: a store is synced from one tenant, with or without).

    Those are the facturas and boletas on credit (their stored JSON text, written compact by the
    store, reads ``"payment_condition_id":"02"``) and the credit and debit notes; the rest (sales paid
    at once, most of a year) owe nothing and are not read: :func:`open_instalments`' own rules still decide on
    every row kept."""
    order = "ORDER BY date_of_issue DESC, id DESC NULLS LAST"
    found = store.sql(
        "SELECT raw FROM documents WHERE date_of_issue BETWEEN ? AND ? AND (document_type_id IN ('07', '08') "
        f"OR (document_type_id IN ('01', '03') AND contains(decode(raw), ?))) {order}",
        [start, end, f'"payment_condition_id":"{CREDIT}"'],
    )["raw"].tolist()
    newest = store.sql(f"SELECT raw FROM documents WHERE date_of_issue BETWEEN ? AND ? {order} LIMIT 1",
                       [start, end])["raw"].tolist()  # fmt: skip
    with gc_paused():
        rows = [orjson.loads(raw) for raw in found]
        link_notes(rows)  # as the store's lists do: a real tenant's note named by its factura's notes
    return rows, not newest or "items" in orjson.loads(newest[0])


@dataclass(frozen=True)
class CustomerAging:
    """What one customer owes in one currency, by age bucket."""

    customer_number: str
    customer_name: str
    currency: str
    buckets: dict[str, Decimal] = field(default_factory=dict)

    @property
    def total(self) -> Decimal:
        """Everything owed (due or not)."""
        return sum(self.buckets.values(), ZERO)

    @property
    def due(self) -> Decimal:
        """What is due today or overdue."""
        return self.total - self.buckets.get(AGES[0], ZERO)

    @property
    def overdue(self) -> Decimal:
        """What is past due by more than 30 days."""
        return sum((self.buckets.get(age, ZERO) for age in AGES[2:]), ZERO)


def aging(instalments: Iterable[OpenInstalment], today: dt.date) -> list[CustomerAging]:
    """Open instalments by customer and currency, in buckets; the customers who owe most first."""
    table: dict[tuple[str, str], dict[str, Decimal]] = {}
    names: dict[tuple[str, str], str] = {}
    for item in instalments:
        key = (item.customer_number, item.currency)
        buckets = table.setdefault(key, dict.fromkeys(AGES, ZERO))
        buckets[item.age(today)] += item.amount
        names.setdefault(key, item.customer_name)
    rows = [
        CustomerAging(number, names[(number, currency)], currency, b)
        for (number, currency), b in table.items()
    ]
    rows.sort(key=lambda r: (r.currency != "PEN", -r.total, r.customer_number))
    return rows
