"""Document states as :class:`connector.states.State`: the code, the name and the description, equal to
the code the service sends, on every typed answer and record that has one."""

from __future__ import annotations

from connector import (
    DocumentRecord,
    IssueResult,
    SummaryRecord,
)
from connector.dispatches import GuideRecord
from connector.quotations import QuotationRecord
from connector.states import State
from connector.withholding import WithholdingRecord


def test_a_state_is_its_code() -> None:
    accepted = State("05")
    assert accepted is State.ACCEPTED and accepted == "05" and f"{accepted}" == "05"
    assert (accepted.code, accepted.name, accepted.description) == ("05", "ACCEPTED", "Aceptado")
    assert State.VOIDING.description == "Por anular"
    assert State.OBSERVED.accepted and not State.REJECTED.accepted
    assert "05" in {State.ACCEPTED} and {"05": 1}[State.ACCEPTED] == 1  # hashes as its code


def test_a_code_outside_the_catalog_is_kept() -> None:
    other = State("99")
    assert other == "99" and other.name == "UNKNOWN" and other.description == "99"
    assert State("99") is other and other not in list(State)
    assert State("") is State.NONE


def test_every_answer_with_a_state_gives_it() -> None:
    issued = IssueResult.from_body({"data": {"number": "F001-1", "external_id": "e", "state_type_id": "09"}})
    assert issued.state is State.REJECTED and issued.rejected and not issued.accepted
    row = {"number": "F001-1", "state_type_id": "05", "date_of_issue": "2026-11-05"}
    assert DocumentRecord.from_row(row).state is State.ACCEPTED
    summary = SummaryRecord.from_row({"state_type_id": "03", "summary_type": "RC"})
    assert summary.state is State.SENT and summary.processing
    guide = GuideRecord.from_row({"external_id": "g", "state_type_id": "05"})
    assert guide.state == "05"
    withholding = WithholdingRecord.from_row({"date_of_issue": "2026-11-05", "state_type_id": "11"})
    assert withholding.state is State.VOIDED
    quotation = QuotationRecord.from_row({"id": 8, "identifier": "COT-8", "state_type_id": "01"})
    assert quotation.state is State.REGISTERED and quotation.state == "01"
