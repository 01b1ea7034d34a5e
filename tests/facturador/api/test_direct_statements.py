"""The issuing path's statements on the DB-API cursor send what SQLAlchemy's execute would send (on
psycopg with PostgreSQL's ``$n`` placeholders where SQLAlchemy writes ``%(name)s``, which psycopg turns
into the same ``$n`` before sending).

Runs on the suite's database (SQLite, or PostgreSQL with FACTURADOR_TEST_DATABASE_URL), inside
transactions that are rolled back.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest
from sqlalchemy import event, select, text

from facturador.domain.numbering import CLAIM_NUMBER, NEXT_NUMBER
from facturador.store.answers import store_sent_answer
from facturador.store.direct import direct
from facturador.store.models import (
    _DOCUMENT_COLUMNS,
    ARTIFACTS,
    DOCUMENTS,
    INSERT_ARTIFACT,
    INSERT_DOCUMENT,
    INSERT_DOCUMENT_WITH_XML,
    UPDATE_ANSWER,
    Document,
    document_values,
    store_document,
)
from facturador.store.registry import LOOKUP, RECORD_COLUMNS, RECORDS, UPSERT
from tests.conftest import LiveService
from tests.samples.bodies import invoice_body
from tests.samples.tenants import ACME


def _comparable(value: Any) -> Any:
    if type(value).__name__ in ("Json", "Binary"):  # psycopg's wrappers have no equality of their own
        return (type(value).__name__, value.obj)
    return value


def _normalized(parameters: Any) -> Any:
    if isinstance(parameters, dict):
        return {key: _comparable(value) for key, value in parameters.items()}
    return tuple(_comparable(value) for value in parameters)


@pytest.fixture
def connection(live: LiveService) -> Iterator[Any]:
    with live.context.engine.connect() as connection:
        transaction = connection.begin()
        yield connection
        transaction.rollback()


def _sent_by_sqlalchemy(connection: Any, statement: Any, values: dict[str, Any]) -> tuple[str, Any]:
    sent: list[tuple[str, Any]] = []

    def capture(_conn: Any, _cursor: Any, sql: str, parameters: Any, _context: Any, _many: bool) -> None:
        sent.append((sql, parameters))

    nested = connection.begin_nested()
    event.listen(connection, "before_cursor_execute", capture)
    try:
        connection.execute(statement, values)
    finally:
        event.remove(connection, "before_cursor_execute", capture)
        nested.rollback()
    return sent[0]


def _as_ours(ours: Any, sql: str, parameters: Any) -> tuple[str, Any]:
    """SQLAlchemy's ``sql`` and ``parameters`` written as ``ours`` writes them: with psycopg's
    ``%(name)s`` placeholders (a dict of values) as PostgreSQL's ``$n`` in the order of
    ``ours.positions`` (a tuple); SQLite's qmark statements are alike already."""
    if not isinstance(parameters, dict) or ours.positions is None:
        return sql, parameters
    for index, name in enumerate(ours.positions, 1):
        sql = sql.replace(f"%({name})s", f"${index}")
    return sql, tuple(parameters[name] for name in ours.positions)


def _document_values(live: LiveService) -> dict[str, Any]:
    tenant = live.context.tenant_by_slug(ACME)
    assert tenant is not None
    values: dict[str, Any] = {key: None for key in _DOCUMENT_COLUMNS}
    values.update(
        tenant_id=tenant.id,
        external_id="00000000-0000-4000-8000-000000000001",
        establishment_id=tenant.establishment_id,
        user_id=1,
        group_id="01",
        document_type_id="01",
        series="F001",
        number=999999,
        filename=f"{tenant.ruc}-01-F001-999999",
        date_of_issue=dt.date(2026, 11, 20),
        time_of_issue=dt.time(10, 11, 12),
        currency_type_id="PEN",
        exchange_rate_sale=Decimal("3.712"),
        purchase_order="OC-1",
        customer_identity_type="6",
        customer_number="20601030013",
        customer_name="EMPRESA XYZ S.A.C.",
        customer={"name": "EMPRESA XYZ S.A.C.", "number": "20601030013"},
        total_taxed=Decimal("100.00"),
        total_igv=Decimal("18.00"),
        total=Decimal("118.00"),
        state_type_id="01",
        hash="abc=",
        qr_text="x|y|",
        number_to_letter="CIENTO DIECIOCHO CON 00/100 SOLES",
        format_pdf="a4",
        send_xml_signed=True,
        regularize_shipping=False,
        data_json=invoice_body(),
    )
    return {key: value for key, value in values.items() if value is not None}


CASES = {  # statement, the columns it sets, its values given a stored document's id
    "next number": (NEXT_NUMBER, None, lambda _id: {"series_id": 1}),
    "insert artifact": (
        INSERT_ARTIFACT,
        ("document_id", "kind", "content"),
        lambda document_id: {"document_id": document_id, "kind": "pdf-a4", "content": b"%PDF-1.4"},
    ),
    "answer": (
        UPDATE_ANSWER,
        None,
        lambda document_id: {
            "document_id": document_id,
            "read_state": "01",
            "state": "05",
            "response": {"code": "0", "notes": ["4287 - a"]},
            "regularize": False,
            "retry_at": dt.datetime(2026, 11, 23, 15, 30, 0, 250_000),
        },
    ),
    "registry read": (
        LOOKUP,
        None,
        lambda _id: {"issuer_ruc": "20100066603", "document_type_id": "01", "series": "F001", "number": "1"},
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_parameters_are_sqlalchemys(live: LiveService, connection: Any, case: str) -> None:
    statement, columns, make_values = CASES[case]
    values = make_values(store_document(connection, Document(**_document_values(live)), b"<Invoice/>"))
    ours = direct(statement, connection.dialect, columns)
    sql, parameters = _as_ours(ours, *_sent_by_sqlalchemy(connection, statement, values))
    assert ours.sql == sql
    assert _normalized(ours.parameters(values)) == _normalized(parameters)


def _assert_sends_sqlalchemys_document(
    connection: Any, statement: Any, values: dict[str, Any], **kw: Any
) -> None:
    """``statement`` run directly sends SQLAlchemy's SQL and values for a new document, but SQL NULL
    where Core writes JSON null (``response``, ``affected_document``: None)."""
    ours = direct(statement, connection.dialect, **kw)
    sql, parameters = _as_ours(ours, *_sent_by_sqlalchemy(connection, statement, values))
    assert ours.sql == sql

    def by_name(params: Any) -> dict[str, Any]:
        if ours.positions is None:
            return dict(_normalized(params))
        return dict(zip(ours.positions, params, strict=True))

    expected = by_name(_normalized(parameters))
    for key in ("response", "affected_document"):  # Core writes JSON null for None; we write SQL NULL
        assert values[key] is None
        assert expected[key] in ("null", ("Json", None))
        expected[key] = None
    assert by_name(_normalized(ours.parameters(values))) == expected


def test_document_insert_parameters_are_sqlalchemys(live: LiveService, connection: Any) -> None:
    values = document_values(Document(**_document_values(live)))  # with the defaults, and Nones
    _assert_sends_sqlalchemys_document(connection, INSERT_DOCUMENT, values, columns=_DOCUMENT_COLUMNS)


def test_document_with_xml_parameters_are_sqlalchemys(live: LiveService, connection: Any) -> None:
    """PostgreSQL's one statement for a document and its XML sends what SQLAlchemy would."""
    if connection.dialect.name != "postgresql":
        pytest.skip("one statement on PostgreSQL only (SQLite has no INSERT inside a WITH)")
    values = {**document_values(Document(**_document_values(live))), "xml": b"<Invoice/>"}
    _assert_sends_sqlalchemys_document(connection, INSERT_DOCUMENT_WITH_XML, values)


def test_claim_and_upsert_parameters_are_sqlalchemys(live: LiveService, connection: Any) -> None:
    claim = CLAIM_NUMBER[connection.dialect.name]
    values: dict[str, Any] = {"series_id": 1, "claimed": 7}
    ours = direct(claim, connection.dialect)
    sql, parameters = _as_ours(ours, *_sent_by_sqlalchemy(connection, claim, values))
    assert (ours.sql, _normalized(ours.parameters(values))) == (sql, _normalized(parameters))
    record = dict(
        zip(RECORD_COLUMNS, ("20100066603", "01", "F001", "1", "accepted", "d=", "0", b"PK"), strict=True)
    )
    upsert = UPSERT[connection.dialect.name]
    ours = direct(upsert, connection.dialect, RECORD_COLUMNS)
    sql, parameters = _as_ours(ours, *_sent_by_sqlalchemy(connection, upsert, record))
    assert (ours.sql, _normalized(ours.parameters(record))) == (sql, _normalized(parameters))


def test_a_directly_inserted_document_reads_back_and_none_is_null(live: LiveService, connection: Any) -> None:
    values = _document_values(live)
    new_id = store_document(connection, Document(**values), b"<Invoice>signed</Invoice>")
    row = connection.execute(select(DOCUMENTS).where(DOCUMENTS.c.id == new_id)).one()._mapping
    for key, value in values.items():
        assert row[key] == value, key
    stored = connection.execute(
        select(ARTIFACTS.c.kind, ARTIFACTS.c.content).where(ARTIFACTS.c.document_id == new_id)
    ).all()
    assert [(kind, bytes(content)) for kind, content in stored] == [("xml", b"<Invoice>signed</Invoice>")]
    assert (row["total_free"], row["date_of_due"]) == (Decimal(0), None)  # column default; nullable
    nulls = connection.execute(
        text("SELECT affected_document IS NULL, response IS NULL FROM documents WHERE id = :id"),
        {"id": new_id},
    ).one()
    assert tuple(nulls) == (True, True)  # SQL NULL, not JSON null, as when Core leaves the key out


def _record(status: str, code: str) -> dict[str, object]:
    return dict(
        zip(RECORD_COLUMNS, ("20100066603", "01", "F001", "999999", status, "d=", code, b"PK"), strict=True)
    )


def _answer(
    connection: Any, document_id: int, *, read_state: str, records: list[Any], cdr: bytes | None
) -> bool:
    return store_sent_answer(
        connection,
        records,
        document_id,
        "05",
        {"code": "0", "description": "aceptada"},
        False,
        None,
        read_state=read_state,
        cdr_zip=cdr,
    )


def _stored(connection: Any, document_id: int) -> tuple[Any, ...]:
    row = connection.execute(
        select(DOCUMENTS.c.state_type_id, DOCUMENTS.c.response, DOCUMENTS.c.send_attempts).where(
            DOCUMENTS.c.id == document_id
        )
    ).one()
    cdr = connection.scalar(
        select(ARTIFACTS.c.content).where(ARTIFACTS.c.document_id == document_id, ARTIFACTS.c.kind == "cdr")
    )
    records = connection.execute(select(RECORDS.c.status, RECORDS.c.code).where(RECORDS.c.number == "999999"))
    return (*row, cdr, [tuple(record) for record in records])


def test_a_sent_answer_stores_the_records_the_state_and_the_cdr(live: LiveService, connection: Any) -> None:
    """One statement on PostgreSQL, three on SQLite: the same rows. Two records of one key leave the
    last, as upserting them in turn does."""
    document_id = store_document(connection, Document(**_document_values(live)), b"<Invoice/>")
    records = [_record("in_process", "98"), _record("accepted", "0")]
    assert _answer(connection, document_id, read_state="01", records=records, cdr=b"PK-cdr")
    assert _stored(connection, document_id) == (
        "05",
        {"code": "0", "description": "aceptada"},
        1,
        b"PK-cdr",
        [("accepted", "0")],
    )
    # sent again (a CDR written over the first), no records, and no CDR at all
    assert _answer(connection, document_id, read_state="05", records=[], cdr=b"PK-second")
    assert _stored(connection, document_id)[2:4] == (2, b"PK-second")
    assert _answer(connection, document_id, read_state="05", records=[], cdr=None)
    assert _stored(connection, document_id)[2:4] == (3, b"PK-second")


def test_an_answer_to_a_document_that_moved_on_keeps_neither_state_nor_cdr(
    live: LiveService, connection: Any
) -> None:
    """The compare-and-set on the state read before sending: another send stored its answer first, so
    this one writes no state and no CDR (the authority's own record of the send is kept: it received it)."""
    document_id = store_document(connection, Document(**_document_values(live)), b"<Invoice/>")
    stored = _answer(
        connection, document_id, read_state="09", records=[_record("rejected", "2335")], cdr=b"PK"
    )
    assert not stored
    assert _stored(connection, document_id) == ("01", None, 0, None, [("rejected", "2335")])
