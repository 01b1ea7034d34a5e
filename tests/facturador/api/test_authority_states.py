"""How the simulated authority's answer moves states over HTTP: rejection, observation, exception."""

from __future__ import annotations

import httpx

from tests.conftest import LiveService
from tests.samples.bodies import invoice_body
from tests.samples.tenants import STRICT_TOKEN
from tests.samples.ubl_xml import BAD_CHECK_DIGIT_RUC


def test_strict_mode_rejects_a_customer_ruc_with_a_bad_check_digit(live: LiveService) -> None:
    # a customer RUC whose check digit does not verify: accepted in test mode, rejected in strict mode
    bad = invoice_body()
    bad["datos_del_cliente_o_receptor"]["numero_documento"] = BAD_CHECK_DIGIT_RUC
    with live.client("strict", STRICT_TOKEN) as strict:
        response = strict.post("/api/documents", json=bad)
        assert response.status_code == 200, response.text
        payload = response.json()
        assert payload["data"]["state_type_id"] == "09"
        assert payload["data"]["state_type_description"] == "Rechazado"
        code = int(payload["response"]["code"])
        assert 2000 <= code < 4000
        assert payload["links"]["cdr"]  # a rejection CDR exists
        number = int(payload["data"]["number"].split("-")[1])
        # the rejected number stays consumed
        accepted = strict.post("/api/documents", json=invoice_body()).json()
        assert accepted["data"]["state_type_id"] == "05"
        assert int(accepted["data"]["number"].split("-")[1]) == number + 1


def test_outage_keeps_the_document_registered_and_it_can_be_sent_later(
    live: LiveService, acme: httpx.Client
) -> None:
    live.set_tenant("acme", authority_outage=True)
    try:
        payload = acme.post("/api/documents", json=invoice_body()).json()
        assert payload["data"]["state_type_id"] == "01"
        assert payload["response"]["code"] == "0109"
        assert payload["links"]["cdr"] == ""
        ext = payload["data"]["external_id"]
        row = next(r for r in acme.get("/api/documents/lists").json()["data"] if r["external_id"] == ext)
        assert row["regularize_shipping"] is True
        assert row["message_regularize_shipping"].startswith("Por regularizar: 0109")
    finally:
        live.set_tenant("acme", authority_outage=False)
    sent = acme.post("/api/documents/send", json={"external_id": ext}).json()
    assert sent["data"]["state_type_id"] == "05"
    row = next(r for r in acme.get("/api/documents/lists").json()["data"] if r["external_id"] == ext)
    assert row["regularize_shipping"] is False and row["has_cdr"] is True


def test_sandbox_takes_back_dated_history_when_deadlines_are_off(
    live: LiveService, acme: httpx.Client
) -> None:
    import datetime as dt

    from sunat.calendar import peru_today

    old = (peru_today() - dt.timedelta(days=40)).isoformat()
    live.set_tenant("acme", restrict_receipt_date=False)
    try:
        late = acme.post("/api/documents", json=invoice_body(fecha_de_emision=old)).json()
        assert late["data"]["state_type_id"] == "09" and late["response"]["code"] == "2108"
        live.set_tenant("acme", authority_check_deadlines=False)
        on_time = acme.post("/api/documents", json=invoice_body(fecha_de_emision=old)).json()
        assert on_time["data"]["state_type_id"] == "05", on_time["response"]
    finally:
        live.set_tenant("acme", restrict_receipt_date=True, authority_check_deadlines=True)


def test_sends_of_one_document_racing_each_store_the_cdr(live: LiveService, acme: httpx.Client) -> None:
    """Two nodes (or a client's /send beside the pending sender) sending one document at once: each
    answer is stored, the CDR written over, never a unique-key failure on the document's CDR."""
    from concurrent.futures import ThreadPoolExecutor

    live.set_tenant("acme", authority_outage=True)
    try:
        ext = acme.post("/api/documents", json=invoice_body()).json()["data"]["external_id"]
    finally:
        live.set_tenant("acme", authority_outage=False)

    def send(_: int) -> httpx.Response:
        with live.client() as client:
            return client.post("/api/documents/send", json={"external_id": ext})

    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(send, range(12)))
    assert [a.status_code for a in answers] == [200] * 12, [a.text for a in answers if a.status_code != 200]
    outcomes = {(a.json()["data"]["state_type_id"], a.json()["response"]["code"]) for a in answers}
    assert ("05", "0") in outcomes and outcomes <= {("05", "0"), ("01", "0140"), ("05", "0140")}, (
        outcomes
    )  # 0140: in process
    row = next(r for r in acme.get("/api/documents/lists").json()["data"] if r["external_id"] == ext)
    assert row["state_type_id"] == "05" and row["has_cdr"] is True, row
    cdr = acme.get(next(a for a in answers if a.json()["response"]["code"] == "0").json()["links"]["cdr"])
    assert cdr.status_code == 200 and cdr.content[:2] == b"PK"


def test_two_writers_of_one_cdr_both_commit_the_later_kept(live: LiveService, acme: httpx.Client) -> None:
    """The store's side of racing sends: a second transaction writing a document's CDR while the first
    has written it and not committed waits, then writes over it (a plain insert failed on the
    (document, kind) key once the first committed)."""
    import threading

    from sqlalchemy import select

    from facturador.store.models import ARTIFACTS, DOCUMENTS, replace_artifact

    ext = acme.post("/api/documents", json=invoice_body()).json()["data"]["external_id"]
    engine = live.context.engine
    with engine.connect() as connection:
        document_id = connection.execute(
            select(DOCUMENTS.c.id).where(DOCUMENTS.c.external_id == ext)
        ).scalar()
    failures: list[BaseException] = []

    def second_writer() -> None:
        try:
            with live.context.writing() as connection:
                replace_artifact(connection, document_id, "cdr", b"second")
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            failures.append(exc)

    with live.context.writing() as connection:
        replace_artifact(connection, document_id, "cdr", b"first")
        thread = threading.Thread(target=second_writer)
        thread.start()
        thread.join(0.5)  # the second writer waits on the first's uncommitted row (or write lock)
        assert thread.is_alive(), "the second writer did not wait for the first"
    thread.join(30)
    assert not thread.is_alive() and not failures, failures
    with engine.connect() as connection:
        stored = connection.execute(
            select(ARTIFACTS.c.content).where(
                ARTIFACTS.c.document_id == document_id, ARTIFACTS.c.kind == "cdr"
            )
        ).all()
    assert [bytes(row.content) for row in stored] == [b"second"]


def test_a_late_answer_does_not_undo_an_accepted_send(live: LiveService, acme: httpx.Client) -> None:
    """Two sends of one document racing: the first stored its acceptance; the second, which read the
    document as registered before that and was answered with an exception (an outage, "in process"),
    leaves the accepted state, its response and its CDR as they are."""
    from facturador.domain.documents import DocumentService

    accepted = acme.post("/api/documents", json=invoice_body()).json()
    ext = accepted["data"]["external_id"]
    assert accepted["data"]["state_type_id"] == "05"
    service = DocumentService(live.context)
    live.set_tenant("acme", authority_outage=True)
    try:
        tenant = live.context.tenant_by_slug("acme")
        assert tenant is not None
        stale = service.find(tenant, ext)
        stale.state_type_id = "01"  # as the second sender read it, before the first stored its answer
        xml = acme.get(accepted["links"]["xml"]).content
        row, has_cdr = service._send(tenant, stale, xml)
    finally:
        live.set_tenant("acme", authority_outage=False)
    assert (row.state_type_id, has_cdr) == ("05", True)
    listed = next(r for r in acme.get("/api/documents/lists").json()["data"] if r["external_id"] == ext)
    assert listed["state_type_id"] == "05" and listed["has_cdr"] is True
    assert listed["regularize_shipping"] is False
    cdr = acme.get(accepted["links"]["cdr"])
    assert cdr.status_code == 200 and cdr.content[:2] == b"PK"
