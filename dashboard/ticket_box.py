"""The ticket box shared by the Void, Summaries and Tickets pages: a summary's or voided communication's
state, its "Consultar estado" button (the family's ``wait`` with a short deadline) and its XML and CDR
downloads. Data work is in :mod:`dashboard.tickets`."""

from __future__ import annotations

from datetime import date, datetime

import streamlit as st

from connector import FacturadorError, TicketRef, TicketTimeout
from dashboard.downloads import download_button
from dashboard.session import (
    Active,
    flash,
    invalidate_documents,
    ticket_book,
    ticket_resource,
)
from dashboard.tickets import TICKET_STATES, TicketEntry, entries_from_ref, status_message
from sunat.calendar import peru_now

#: Seconds a "Consultar estado" click waits for SUNAT before telling the ticket is still in process.
QUERY_TIMEOUT = 10.0

__all__ = ["QUERY_TIMEOUT", "now", "query", "show"]


def now() -> datetime:
    """The time in Lima (naive), for the book's ``created_at`` / ``checked_at``."""
    return peru_now().replace(tzinfo=None, microsecond=0)


def query(active: Active, entry: TicketEntry, *, timeout: float = QUERY_TIMEOUT) -> TicketEntry | None:
    """Ask the ticket's status, waiting up to ``timeout`` seconds while SUNAT processes it; keep the
    answer in the book and flash it for the next run. ``None`` when the query failed (flashed too)."""
    resource = ticket_resource(active, entry.family)
    try:
        with st.spinner("Consultando el ticket en SUNAT…"):
            status = resource.wait(
                external_id=entry.external_id, timeout=timeout, initial=0.5, max_interval=2.0
            )
    except TicketTimeout as exc:
        status = exc.last
    except FacturadorError as exc:
        flash("error", f"No se pudo consultar el ticket {entry.ticket}: {exc.message}")
        return None
    updated = ticket_book(active).answer(entry, status, now())
    kind, text = status_message(status)
    flash(kind, text)
    if not status.processing:
        invalidate_documents()  # the documents moved to 05 / 11 (or back)
    return updated


def show(active: Active, entry: TicketEntry, *, key: str) -> None:
    """A bordered box with the entry's state and its actions (widget keys start with ``key``)."""
    style = TICKET_STATES[entry.state]
    resource = ticket_resource(active, entry.family)
    external_id = entry.external_id
    name = entry.identifier or f"Ticket {entry.ticket}"
    with st.container(border=True, key=f"{key}_box"):
        head, badge = st.columns([4, 1])
        head.markdown(f"#### {name}")
        badge.badge(style.label, color=style.badge)
        facts = [entry.kind]
        if entry.day is not None:
            facts.append(f"documentos del {entry.day:%d/%m/%Y}")
        if entry.documents:
            facts.append(", ".join(entry.documents))
        st.caption(" · ".join(facts))
        st.markdown(f"**Ticket** `{entry.ticket}` · external_id `{external_id}`")
        if entry.description:
            st.markdown(f"**Respuesta de SUNAT** · código `{entry.code}`: {entry.description}")
            for note in entry.notes:
                st.caption(f"• {note}")
        elif entry.state == "sent":
            st.caption("Enviado a SUNAT; consulta el ticket para conocer su respuesta.")
        c1, c2, c3 = st.columns(3)
        clicked = c1.button(
            "Consultar estado",
            key=f"{key}_query",
            icon=":material/sync:",
            type="primary" if not entry.done else "secondary",
            width="stretch",
            help=f"Pregunta a SUNAT por el ticket (espera hasta {QUERY_TIMEOUT:g} s si aún lo procesa).",
        )
        name = entry.identifier or external_id
        download_button(
            c2,
            "xml",
            lambda: resource.download_xml(external_id),
            name=name,
            key=f"{key}_xml",
            width="stretch",
        )
        download_button(
            c3,
            "cdr",
            lambda: resource.download_cdr(external_id),
            name=name,
            key=f"{key}_cdr",
            disabled=not entry.done,
            width="stretch",
            help=None if entry.done else "El CDR existe cuando SUNAT responde el ticket.",
        )
    if clicked:
        query(active, entry)
        st.rerun()


def remember(
    active: Active, ref: TicketRef, *, process: str, day: date, documents: list[str], last_key: str
) -> list[TicketEntry]:
    """Record the tickets of a summary or voided communication just sent, as the page's last request."""
    entries = entries_from_ref(ref, process=process, day=day, documents=documents, now=now())
    ticket_book(active).add(entries)
    st.session_state[last_key] = entries[0].external_id
    return entries


def show_last(active: Active, *, last_key: str, title: str, key: str) -> None:
    """The box of the page's last request (see :func:`remember`), with a link to every ticket."""
    last = ticket_book(active).get(str(st.session_state.get(last_key, "")))
    if last is not None:
        st.subheader(title, anchor=False)
        show(active, last, key=key)
        st.page_link("views/tickets.py", label="Ver todos los tickets", icon=":material/receipt_long:")
