"""Pure logic of the Void, Summaries and Tickets pages: which documents can be voided or declared, and
the book of the tickets (summaries and voided communications) a session created.

No Streamlit, no HTTP: the functions take the documents DataFrame of ``client.documents.list(...)
.to_dataframe()`` or the connector's :class:`~connector.TicketRef` /
:class:`~connector.TicketStatus`, and return plain values, DataFrames or new
:class:`TicketEntry` objects.

Groups: facturas and their notes (group ``01``, voided with a voided communication, RA)
and boletas and their notes (group ``02``, declared and voided with daily summaries, RC). A note's group
is its series' first letter (``FC01`` / ``BC01``); a note of a numeric contingency series has no group
here (the list does not say what it modifies) and is left out.

The service has no endpoint that lists summaries or voided communications, so the Tickets page shows
those this session created (:class:`TicketBook`), plus any the analyst looks up by its external id or
ticket.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time
from typing import Literal

import pandas as pd

from connector import SummaryRecord, TicketRef, TicketStatus
from dashboard.data import BadgeColor, amount_text, newest_first, series_of, text_column, type_label
from dashboard.figures import plural
from sunat.deadlines import SUMMARY_DAYS, VOIDING_DAYS, summary_deadline

__all__ = [
    "BOLETAS",
    "DECLARE",
    "FACTURAS",
    "TICKET_STATES",
    "VOID",
    "VOIDABLE_STATES",
    "VOID_WINDOW_DAYS",
    "TicketBook",
    "TicketEntry",
    "TicketState",
    "candidate_label",
    "document_groups",
    "entries_from_ref",
    "entry_from_record",
    "entry_from_status",
    "kind_label",
    "state_count_label",
    "merge_entries",
    "pending_declaration",
    "status_message",
    "tickets_frame",
    "void_window_problem",
    "voidable",
    "voidable_days",
]

#: Document groups: facturas and their notes; boletas and their notes.
FACTURAS, BOLETAS = "01", "02"
#: ``codigo_tipo_proceso`` of a daily summary: declare (add) and void.
DECLARE, VOID = "1", "3"
#: States of documents that can be voided: accepted, or accepted with observations.
VOIDABLE_STATES = ("05", "07")
#: State of boletas waiting to be declared.
REGISTERED = "01"
#: Days after its issue date SUNAT still takes a document in a voided communication or summary (2957).
VOID_WINDOW_DAYS = VOIDING_DAYS

Family = Literal["summaries", "voided"]
TicketState = Literal["sent", "processing", "accepted", "rejected"]


@dataclass(frozen=True)
class _StateStyle:
    label: str
    color: str
    badge: BadgeColor


#: How a ticket's state is shown: label, hex color, ``st.badge`` color.
TICKET_STATES: dict[str, _StateStyle] = {
    "sent": _StateStyle("Enviado", "#2f80ed", "blue"),
    "processing": _StateStyle("En proceso", "#f2994a", "orange"),
    "accepted": _StateStyle("Aceptado", "#27ae60", "green"),
    "rejected": _StateStyle("Rechazado", "#eb5757", "red"),
}


# --------------------------------------------------------------------------------------------- documents


def document_groups(df: pd.DataFrame) -> pd.Series:
    """The group of each document: ``"01"`` facturas and their notes, ``"02"`` boletas and their notes,
    ``""`` when it cannot be told (other types, notes of numeric contingency series)."""
    types = text_column(df, "document_type_id")
    series = series_of(df)
    first = series.str[:1].str.upper()
    out = pd.Series("", index=df.index, dtype="object")
    out[types == "01"] = FACTURAS
    out[types == "03"] = BOLETAS
    notes = types.isin(["07", "08"])
    out[notes & (first == "F")] = FACTURAS
    out[notes & (first == "B")] = BOLETAS
    return out


def _of_day(df: pd.DataFrame, day: date | None) -> pd.Series:
    if day is None or not len(df):
        return pd.Series(True, index=df.index)
    return pd.to_datetime(df["date_of_issue"]).dt.date == day


def _sorted(df: pd.DataFrame) -> pd.DataFrame:
    """Newest first: by date, series and numeric correlative (F001-638 before F001-6)."""
    if not len(df):
        return df
    return df.iloc[newest_first(df)]


def voidable(df: pd.DataFrame, group: str, day: date | None = None) -> pd.DataFrame:
    """Documents of ``group`` (issued on ``day`` when given) that can be voided: accepted (05) or
    observed (07). Facturas go in a voided communication, boletas in a summary with process 3."""
    mask = (document_groups(df) == group) & text_column(df, "state_type_id").isin(VOIDABLE_STATES)
    return _sorted(df[mask & _of_day(df, day)])


def voidable_days(df: pd.DataFrame, group: str) -> list[tuple[date, int]]:
    """Days with documents of ``group`` that can be voided, newest first, with how many."""
    found = voidable(df, group)
    if not len(found):
        return []
    counts = pd.to_datetime(found["date_of_issue"]).dt.date.value_counts()
    return sorted(((day, int(n)) for day, n in counts.items()), reverse=True)


def pending_declaration(df: pd.DataFrame, day: date | None = None) -> pd.DataFrame:
    """Boletas and boleta notes (issued on ``day`` when given) still registered (01): what a daily
    summary with process 1 declares."""
    mask = (document_groups(df) == BOLETAS) & (text_column(df, "state_type_id") == REGISTERED)
    return _sorted(df[mask & _of_day(df, day)])


def void_window_problem(day: date, today: date, *, declaring: bool = False) -> str | None:
    """Why documents of ``day`` may be late for SUNAT, or ``None``. SUNAT takes them up to
    :data:`VOID_WINDOW_DAYS` days after their issue (a voiding, 2957 past it) or
    :data:`~sunat.deadlines.SUMMARY_DAYS` (a declaration, accepted with observation 4443 past it)."""
    age = (today - day).days
    if age < 0:
        return f"El {day:%d/%m/%Y} es una fecha futura."
    if declaring:
        if age <= SUMMARY_DAYS:
            return None
        return (
            f"Las boletas del {day:%d/%m/%Y} tienen {age} días: SUNAT pide declararlas dentro de "
            f"{SUMMARY_DAYS} días, hasta el {summary_deadline(day):%d/%m/%Y} (las acepta con la observación "
            "4443)."
        )
    if age <= VOID_WINDOW_DAYS:
        return None
    return (
        f"Los documentos del {day:%d/%m/%Y} tienen {age} días: SUNAT solo acepta anularlos hasta "
        f"{VOID_WINDOW_DAYS} días después de su emisión (código 2957). El ticket puede ser rechazado."
    )


def candidate_label(row: pd.Series | dict[str, object]) -> str:
    """One line naming a document to void or declare: ``"F001-12 · Factura · EMPRESA S.A.C. · S/
    118.00"``."""
    total = row.get("total", 0) if isinstance(row, dict) else row["total"]
    return (
        f"{row['number']} · {type_label(row['document_type_id'])} · {row.get('customer_name', '') or ''} · "
        f"{amount_text(total, str(row.get('currency_type_id', '') or ''))}"
    )


@dataclass(frozen=True)
class Review:
    """What an irreversible request would send, to read before confirming it: its documents (a table
    with Spanish headers), how many, their issue dates and their totals per currency."""

    frame: pd.DataFrame
    count: int
    days: tuple[date, ...]
    totals: tuple[tuple[str, float], ...]

    def lines(self, verb: str) -> list[str]:
        """The review in words: ``Vas a anular **3 documentos** emitidos el 24/11/2026, por **S/ 354.00 y
        US$ 120.00** en total.``"""
        days = " y ".join(f"{day:%d/%m/%Y}" for day in self.days)
        amounts = " y ".join(amount_text(total, currency) for currency, total in self.totals)
        what = plural(self.count, "documento", "documentos")
        issued = "emitido" if self.count == 1 else "emitidos"
        return [f"Vas a {verb} **{what}** {issued} el {days}, por **{amounts}** en total."]


def review(df: pd.DataFrame, external_ids: Iterable[str] | None = None) -> Review:
    """The review of the documents of ``df`` (those of ``external_ids`` when given, in their order):
    number, type, issue date, customer, currency and total of each."""
    if external_ids is not None:
        wanted = [str(e) for e in external_ids]
        by_id = {str(e): position for position, e in enumerate(df["external_id"].astype(str))}
        df = df.iloc[[by_id[e] for e in wanted if e in by_id]]
    dates = pd.to_datetime(df["date_of_issue"]).dt.date if len(df) else pd.Series([], dtype="object")
    frame = pd.DataFrame(
        {
            "Número": df["number"].astype(str).tolist(),
            "Tipo": [type_label(code) for code in df["document_type_id"].astype(str)],
            "Fecha": [f"{day:%d/%m/%Y}" for day in dates],
            "Cliente": df["customer_name"].fillna("").astype(str).tolist(),
            "Moneda": df["currency_type_id"].astype(str).tolist(),
            "Total": df["total"].astype("float64").round(2).tolist(),
        }
    )
    totals = (
        frame.groupby("Moneda", sort=True)["Total"].sum().round(2) if len(frame) else pd.Series(dtype=float)
    )
    return Review(
        frame=frame,
        count=len(frame),
        days=tuple(sorted(set(dates))),
        totals=tuple((str(currency), float(total)) for currency, total in totals.items()),
    )


# --------------------------------------------------------------------------------------------- tickets


def state_count_label(state: str, count: int) -> str:
    """The state's word after a count: ``1 aceptado``, ``86 aceptados``, ``3 en proceso``."""
    label = TICKET_STATES[state].label.lower()
    return label if count == 1 or " " in label else label + "s"


def kind_label(family: str, process: str) -> str:
    """Spanish name of a ticket's request: ``"Resumen diario"`` (declare boletas), ``"Anulación de
    boletas"`` (summary, process 3), ``"Comunicación de baja"`` (voided facturas)."""
    if family == "voided":
        return "Comunicación de baja"
    return "Anulación de boletas" if process == VOID else "Resumen diario"


@dataclass(frozen=True)
class TicketEntry:
    """A summary or voided communication the session knows: what was asked and how its ticket stands.

    ``day`` is the issue date of its documents, ``documents`` their numbers (empty when unknown: looked
    up by id; ``document_count`` then says how many, when the service's list told it); ``state`` is
    ``sent`` (not answered yet), ``processing`` (asked: 98), ``accepted`` or ``rejected``,
    with the authority's ``code``, ``description`` and ``notes``; ``identifier`` is ``RC-...``/``RA-...``
    once an answer told it.
    """

    family: Family
    process: str
    external_id: str
    ticket: str
    day: date | None
    documents: tuple[str, ...]
    created_at: datetime
    state: TicketState = "sent"
    code: str = ""
    description: str = ""
    notes: tuple[str, ...] = ()
    identifier: str = ""
    checked_at: datetime | None = None
    document_count: int | None = None

    @property
    def count(self) -> int:
        """How many documents it carries (their numbers when known, else the service's count)."""
        return len(self.documents) if self.documents else (self.document_count or 0)

    @property
    def kind(self) -> str:
        """Spanish name of the request (:func:`kind_label`)."""
        return kind_label(self.family, self.process)

    @property
    def done(self) -> bool:
        """The authority answered (accepted or rejected): the CDR exists."""
        return self.state in ("accepted", "rejected")

    @property
    def label(self) -> str:
        """One line naming it: ``"RA-20261121-1 · Comunicación de baja · 2 documentos"``."""
        name = self.identifier or f"ticket {self.ticket}"
        count = self.count
        what = f" · {count} documento{'' if count == 1 else 's'}" if count else ""
        return f"{name} · {self.kind}{what}"

    def with_status(self, status: TicketStatus, now: datetime) -> TicketEntry:
        """This entry after the answer ``status``."""
        state: TicketState = (
            "processing" if status.processing else "accepted" if status.accepted else "rejected"
        )
        return dataclasses.replace(
            self,
            state=state,
            code=status.code,
            description=status.description,
            notes=tuple(status.notes),
            identifier=status.identifier or self.identifier,
            ticket=self.ticket or status.ticket,
            checked_at=now,
        )


def entries_from_ref(
    ref: TicketRef,
    *,
    process: str,
    day: date,
    documents: Sequence[str],
    now: datetime,
) -> list[TicketEntry]:
    """The entries of a request's answer (one per summary created: a day with more than 500 boletas
    makes several; the documents are then not told apart, each entry lists none)."""
    family: Family = "voided" if ref.family == "voided" else "summaries"
    parts = ref.every
    numbers = tuple(documents) if len(parts) == 1 else ()
    return [TicketEntry(family, process, part.external_id, part.ticket, day, numbers, now) for part in parts]


def entry_from_status(family: Family, status: TicketStatus, now: datetime) -> TicketEntry:
    """An entry for a summary or voided communication looked up by its external id or ticket: what the
    answer tells (its documents and their issue date are unknown)."""
    process = VOID if family == "voided" else ""
    entry = TicketEntry(family, process, status.external_id, status.ticket, None, (), now)
    return entry.with_status(status, now)


_RECORD_STATES: dict[str, TicketState] = {"05": "accepted", "09": "rejected"}


def entry_from_record(record: SummaryRecord) -> TicketEntry:
    """An entry from a row of the service's list of summaries or voided communications (its
    documents' numbers are not listed: only their count). ``created_at`` is Lima's time (as the
    connector reads it), on the summary's own generation date when that is earlier (a summary generated
    for a past day, as the demo's history: the date SUNAT reads in it)."""
    if record.created_at is not None:
        created = record.created_at
        if record.date_of_issue is not None and record.date_of_issue < created.date():
            created = datetime.combine(record.date_of_issue, created.time())
    else:
        created = datetime.combine(record.date_of_issue or date.min, time.min)
    answer = record.response
    family: Family = "voided" if record.family == "voided" else "summaries"
    return TicketEntry(
        family=family,
        process=record.process_type or (VOID if family == "voided" else DECLARE),
        external_id=record.external_id,
        ticket=record.ticket,
        day=record.date_of_reference,
        documents=(),
        created_at=created,
        state=_RECORD_STATES.get(record.state_type_id, "sent"),
        code=answer.code if answer else "",
        description=answer.description if answer else "",
        notes=tuple(answer.notes) if answer else (),
        identifier=record.identifier,
        document_count=record.documents,
    )


def merge_entries(
    book: Sequence[TicketEntry],
    records: Sequence[SummaryRecord],
    between: tuple[date, date] | None = None,
) -> list[TicketEntry]:
    """The service's list joined with what the session knows, newest first.

    A listed summary takes the service's state and answer; from the session it keeps its documents'
    numbers, when it was sent, and "in process" when the session asked and the service still has no
    answer. Summaries only the session knows are added, those sent (or looked up) ``between`` the two
    dates when given.
    """
    known = {entry.external_id: entry for entry in book}
    merged: dict[str, TicketEntry] = {}
    for record in records:
        entry = entry_from_record(record)
        mine = known.get(entry.external_id)
        if mine is not None:
            entry = dataclasses.replace(
                entry,
                documents=mine.documents,
                created_at=mine.created_at,
                checked_at=mine.checked_at,
                day=entry.day or mine.day,
            )
            if entry.state == "sent" and mine.state == "processing":
                entry = dataclasses.replace(
                    entry, state="processing", code=mine.code, description=mine.description
                )
        merged[entry.external_id] = entry
    for entry in book:
        if between is None or between[0] <= entry.created_at.date() <= between[1]:
            merged.setdefault(entry.external_id, entry)
    return sorted(merged.values(), key=lambda e: e.created_at, reverse=True)


def status_message(status: TicketStatus) -> tuple[Literal["info", "success", "error"], str]:
    """How to tell the analyst a ticket's answer: ``(kind, markdown)``."""
    if status.processing:
        return "info", (
            f"SUNAT aún procesa el ticket (código {status.code}): {status.description}. "
            "Vuelve a consultar en unos segundos."
        )
    name = status.identifier or "El ticket"
    if status.accepted:
        return "success", f"**{name}** aceptado por SUNAT: {status.description or 'código 0'}"
    return "error", f"**{name}** rechazado por SUNAT (código `{status.code}`): {status.description}"


@dataclass
class TicketBook:
    """The tickets of one tenant in one session, newest first, keyed by the summary's external id."""

    entries: dict[str, TicketEntry] = field(default_factory=dict)

    def add(self, entries: Iterable[TicketEntry]) -> None:
        """Add (or replace) entries."""
        for entry in entries:
            self.entries[entry.external_id] = entry

    def get(self, external_id: str) -> TicketEntry | None:
        """The entry of ``external_id``, if known."""
        return self.entries.get(external_id)

    def update(self, external_id: str, status: TicketStatus, now: datetime) -> TicketEntry | None:
        """Apply a status answer to a known entry; return the new entry (``None`` when unknown)."""
        entry = self.entries.get(external_id)
        if entry is None:
            return None
        self.entries[external_id] = entry.with_status(status, now)
        return self.entries[external_id]

    def answer(self, entry: TicketEntry, status: TicketStatus, now: datetime) -> TicketEntry:
        """Keep ``entry`` (added when the book did not know it, e.g. listed by the service) with the
        answer ``status``; return the new entry."""
        known = self.entries.get(entry.external_id, entry)
        self.entries[entry.external_id] = known.with_status(status, now)
        return self.entries[entry.external_id]

    def ordered(self) -> list[TicketEntry]:
        """Entries, newest first."""
        return sorted(self.entries.values(), key=lambda e: e.created_at, reverse=True)

    def pending(self) -> list[TicketEntry]:
        """Entries whose ticket has no answer yet (sent or in process), newest first."""
        return [e for e in self.ordered() if not e.done]

    def __len__(self) -> int:
        return len(self.entries)


def tickets_frame(entries: Sequence[TicketEntry]) -> pd.DataFrame:
    """The Tickets table: one row per entry with Spanish labels (``state`` a one-element list, for a
    colored label column)."""
    columns = [
        "created_at",
        "kind",
        "identifier",
        "day",
        "documents",
        "state",
        "code",
        "description",
        "ticket",
        "external_id",
    ]
    rows = [
        {
            "created_at": entry.created_at,
            "kind": entry.kind,
            "identifier": entry.identifier,
            "day": entry.day,
            "documents": ", ".join(entry.documents)
            or (plural(entry.count, "documento", "documentos") if entry.count else ""),
            "state": [TICKET_STATES[entry.state].label],
            "code": entry.code,
            "description": entry.description,
            "ticket": entry.ticket,
            "external_id": entry.external_id,
        }
        for entry in entries
    ]
    return pd.DataFrame(rows, columns=columns)
