"""Unit tests of :mod:`dashboard.tickets` (no Streamlit, no HTTP)."""

from __future__ import annotations

from datetime import date, datetime

import pandas as pd
import pytest

from connector import SummaryRecord, TicketRef, TicketStatus
from connector.frames import documents_frame
from dashboard import tickets
from tests.dashboard.test_data import row

IN_PROCESS = {
    "success": False,
    "message": "Code: 98; Description: El procesamiento del comprobante aún no ha terminado",
}
NOW = datetime(2026, 11, 21, 10, 30)


def accepted(identifier: str = "RA-20261121-1") -> TicketStatus:
    return TicketStatus.from_body(
        {
            "success": True,
            "data": {"filename": f"20100066603-{identifier}", "external_id": "e-1"},
            "links": {"xml": "x", "cdr": "c"},
            "response": {
                "code": "0",
                "description": f"La Comunicación de baja {identifier}, ha sido aceptada",
                "notes": ["4443 - observación"],
                "is_accepted": True,
                "status_code": 0,
            },
        }
    )


def rejected() -> TicketStatus:
    return TicketStatus.from_body(
        {
            "success": True,
            "data": {"filename": "20100066603-RA-20261121-2", "external_id": "e-2"},
            "response": {
                "code": "2957",
                "description": "Fuera de plazo",
                "is_accepted": False,
                "status_code": 99,
            },
        }
    )


@pytest.fixture
def frame() -> pd.DataFrame:
    rows = [
        row("F001-1", day="2026-11-20"),
        row("F001-2", day="2026-11-20", state="07"),
        row("F001-3", day="2026-11-20", state="09"),
        row("F001-4", day="2026-11-20", state="11"),
        row("FC01-1", day="2026-11-20", doc_type="07"),
        row("F001-5", day="2026-11-21"),
        row("B001-1", day="2026-11-20", doc_type="03", state="01", total=59.0, igv=9.0),
        row("B001-2", day="2026-11-20", doc_type="03", state="05"),
        row("B001-3", day="2026-11-21", doc_type="03", state="01", total=20.0, igv=3.05),
        row("BC01-1", day="2026-11-21", doc_type="07", state="01", total=10.0, igv=1.53),
        row("B001-4", day="2026-11-21", doc_type="03", state="03"),
        row("0001-1", day="2026-11-21", doc_type="07", state="01"),  # contingency note: no group
    ]
    return documents_frame(rows)


def test_document_groups(frame: pd.DataFrame) -> None:
    groups = dict(zip(frame["number"], tickets.document_groups(frame), strict=True))
    assert groups["F001-1"] == groups["FC01-1"] == "01"
    assert groups["B001-1"] == groups["BC01-1"] == "02"
    assert groups["0001-1"] == ""


def test_voidable_documents(frame: pd.DataFrame) -> None:
    facturas = tickets.voidable(frame, tickets.FACTURAS, date(2026, 11, 20))
    assert list(facturas["number"]) == ["FC01-1", "F001-2", "F001-1"]  # accepted or observed, newest first
    assert list(tickets.voidable(frame, tickets.FACTURAS)["number"]) == [
        "F001-5",
        "FC01-1",
        "F001-2",
        "F001-1",
    ]
    assert list(tickets.voidable(frame, tickets.BOLETAS)["number"]) == ["B001-2"]
    assert tickets.voidable(frame, tickets.BOLETAS, date(2026, 11, 21)).empty


def test_pending_declaration(frame: pd.DataFrame) -> None:
    assert list(tickets.pending_declaration(frame, date(2026, 11, 21))["number"]) == ["BC01-1", "B001-3"]
    assert list(tickets.pending_declaration(frame)["number"]) == ["BC01-1", "B001-3", "B001-1"]


def test_void_window() -> None:
    today = date(2026, 11, 21)
    assert tickets.void_window_problem(today, today) is None
    assert tickets.void_window_problem(date(2026, 11, 14), today) is None  # 7 days: still in time
    late = tickets.void_window_problem(date(2026, 11, 13), today)
    assert late is not None and "8 días" in late and "2957" in late
    declaring = tickets.void_window_problem(date(2026, 11, 1), today, declaring=True)
    assert declaring is not None and "4443" in declaring and "hasta el 08/11/2026" in declaring
    assert tickets.void_window_problem(date(2026, 11, 14), today, declaring=True) is None
    assert "futura" in str(tickets.void_window_problem(date(2026, 11, 22), today))


def test_candidate_label(frame: pd.DataFrame) -> None:
    first = frame.iloc[0]
    assert tickets.candidate_label(first) == "F001-1 · Factura · EMPRESA XYZ S.A. · S/ 118.00"


def test_entries_follow_the_ticket() -> None:
    ref = TicketRef("e-1", "171", {"success": True}, family="voided")
    (entry,) = tickets.entries_from_ref(
        ref, process=tickets.VOID, day=date(2026, 11, 21), documents=["F001-1"], now=NOW
    )
    assert entry.state == "sent" and not entry.done and entry.kind == "Comunicación de baja"
    assert entry.label == "ticket 171 · Comunicación de baja · 1 documento"

    waiting = entry.with_status(TicketStatus.in_process(IN_PROCESS), NOW)
    assert waiting.state == "processing" and waiting.code == "98" and not waiting.done
    done = waiting.with_status(accepted(), NOW)
    assert done.state == "accepted" and done.done and done.identifier == "RA-20261121-1"
    assert done.notes == ("4443 - observación",) and done.ticket == "171"
    assert done.label == "RA-20261121-1 · Comunicación de baja · 1 documento"
    assert entry.with_status(rejected(), NOW).state == "rejected"


def test_several_summaries_of_one_request() -> None:
    parts = (TicketRef("s-1", "1", {}, "summaries"), TicketRef("s-2", "2", {}, "summaries"))
    ref = TicketRef("s-1", "1", {}, "summaries", parts)
    entries = tickets.entries_from_ref(
        ref, process=tickets.DECLARE, day=date(2026, 11, 21), documents=["B"], now=NOW
    )
    assert [e.external_id for e in entries] == ["s-1", "s-2"]
    assert all(e.documents == () and e.kind == "Resumen diario" for e in entries)


def test_kind_labels() -> None:
    assert tickets.kind_label("summaries", "1") == "Resumen diario"
    assert tickets.kind_label("summaries", "3") == "Anulación de boletas"
    assert tickets.kind_label("voided", "3") == "Comunicación de baja"


def test_ticket_book() -> None:
    book = tickets.TicketBook()
    older = tickets.TicketEntry("voided", "3", "e-1", "1", None, (), datetime(2026, 11, 20, 9))
    newer = tickets.TicketEntry("summaries", "1", "e-2", "2", date(2026, 11, 21), ("B001-1",), NOW)
    book.add([older, newer])
    assert len(book) == 2 and [e.external_id for e in book.ordered()] == ["e-2", "e-1"]
    assert book.update("e-1", accepted(), NOW) is not None
    assert [e.external_id for e in book.pending()] == ["e-2"]
    assert book.update("unknown", accepted(), NOW) is None
    looked_up = tickets.entry_from_status("voided", rejected(), NOW)
    assert looked_up.external_id == "e-2" and looked_up.state == "rejected" and looked_up.day is None

    table = tickets.tickets_frame(book.ordered())
    assert list(table["external_id"]) == ["e-2", "e-1"]
    assert list(table["state"]) == [["Enviado"], ["Aceptado"]]
    assert list(table["kind"]) == ["Resumen diario", "Comunicación de baja"]
    assert table.loc[0, "documents"] == "B001-1" and table.loc[1, "identifier"] == "RA-20261121-1"
    assert tickets.tickets_frame([]).empty


def test_status_messages() -> None:
    kind, text = tickets.status_message(TicketStatus.in_process(IN_PROCESS))
    assert kind == "info" and "código 98" in text
    kind, text = tickets.status_message(accepted())
    assert kind == "success" and "**RA-20261121-1** aceptado" in text
    kind, text = tickets.status_message(rejected())
    assert kind == "error" and "`2957`" in text and "Fuera de plazo" in text
    assert len({s.label for s in tickets.TICKET_STATES.values()}) == len(tickets.TICKET_STATES)


def test_voidable_days(frame: pd.DataFrame) -> None:
    assert tickets.voidable_days(frame, tickets.FACTURAS) == [
        (date(2026, 11, 21), 1),
        (date(2026, 11, 20), 3),
    ]
    assert tickets.voidable_days(frame, tickets.BOLETAS) == [(date(2026, 11, 20), 1)]
    assert tickets.voidable_days(frame[frame["state_type_id"] == "01"], tickets.BOLETAS) == []


def record(external_id: str, state: str = "03", **overrides: object) -> SummaryRecord:
    row: dict[str, object] = {
        "id": 7,
        "external_id": external_id,
        "identifier": "RA-20261121-3",
        "filename": "20100066603-RA-20261121-3",
        "ticket": "555",
        "summary_type": "RA",
        "process_type": "3",
        "date_of_issue": "2026-11-21",
        "date_of_reference": "2026-11-20",
        "documents": 2,
        "state_type_id": state,
        "state_type_description": "x",
        "response": None
        if state == "03"
        else {"code": "0" if state == "05" else "2957", "description": "respuesta", "notes": []},
        "has_cdr": state != "03",
        "download_xml": "http://x/xml",
        "download_cdr": "",
        "created_at": "2026-11-21 10:30:00",  # Lima's time, as tenants write it
        **overrides,
    }
    return SummaryRecord.from_row(row)


def test_entries_from_the_service_list() -> None:
    listed = record("e-9", "05")
    assert listed.family == "voided" and listed.accepted is True and not listed.processing
    entry = tickets.entry_from_record(listed)
    assert entry.state == "accepted" and entry.code == "0" and entry.identifier == "RA-20261121-3"
    assert entry.created_at == datetime(2026, 11, 21, 10, 30)  # as written: Lima's time
    assert entry.day == date(2026, 11, 20) and entry.count == 2 and entry.documents == ()
    assert entry.label == "RA-20261121-3 · Comunicación de baja · 2 documentos"
    assert tickets.entry_from_record(record("e-8", "09")).state == "rejected"
    assert tickets.entry_from_record(record("e-7", "03", created_at=None)).created_at == datetime(
        2026, 11, 21
    )
    summary = tickets.entry_from_record(record("e-6", summary_type="RC", process_type="1"))
    assert summary.family == "summaries" and summary.kind == "Resumen diario" and summary.state == "sent"
    assert tickets.tickets_frame([entry])["documents"].item() == "2 documentos"
    # a summary generated for a past day (the demo's history) is shown on its own date, not the day the
    # service stored it
    seeded = tickets.entry_from_record(
        record("e-5", date_of_issue="2026-11-18", created_at="2026-11-26 10:30:00")
    )
    assert seeded.created_at == datetime(2026, 11, 18, 10, 30)


def test_merge_keeps_what_the_session_knows() -> None:
    mine = tickets.TicketEntry(
        "voided",
        "3",
        "e-1",
        "555",
        date(2026, 11, 20),
        ("F001-1", "F001-2"),
        NOW,
        state="processing",
        code="98",
    )
    only_mine = tickets.TicketEntry("summaries", "1", "e-2", "1", None, (), datetime(2026, 11, 1, 9))
    merged = tickets.merge_entries([mine, only_mine], [record("e-1"), record("e-3", "05")])
    assert [e.external_id for e in merged] == ["e-1", "e-3", "e-2"]  # newest first
    first = merged[0]
    assert first.documents == ("F001-1", "F001-2") and first.created_at == NOW
    assert first.state == "processing" and first.code == "98"  # asked, and the service has no answer yet
    answered = tickets.merge_entries([mine], [record("e-1", "05")])[0]
    assert answered.state == "accepted" and answered.documents == ("F001-1", "F001-2")
    in_range = tickets.merge_entries([mine, only_mine], [], (date(2026, 11, 15), date(2026, 11, 30)))
    assert [e.external_id for e in in_range] == ["e-1"]
    book = tickets.TicketBook()
    added = book.answer(tickets.entry_from_record(record("e-4")), accepted(), NOW)
    assert added.state == "accepted" and book.get("e-4") == added


def test_ticket_counts_read_in_plural() -> None:
    assert tickets.state_count_label("accepted", 1) == "aceptado"
    assert tickets.state_count_label("accepted", 86) == "aceptados"
    assert tickets.state_count_label("processing", 3) == "en proceso"
