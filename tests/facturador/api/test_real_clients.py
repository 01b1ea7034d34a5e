"""Every body of the real-clients corpus, sent over HTTP to a fresh tenant, is answered as decided.

The corpus (``tests/samples/real_clients``) reproduces what independent public programs send to real
Facturador PRO tenants; each body's decision (issued and its state, or refused naming the field) is
written beside it and explained in ``docs/scenarios.md`` ("What real clients send"). A guide is also
sent and its ticket asked: the state decided is SUNAT's answer. A refused body changes nothing: the
tenant's list of what the endpoint stores is the same before and after.

The rows the tenant's lists give carry the keys real tenants give (clients read them).
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest

from sunat.calendar import peru_today
from tests.conftest import LiveService
from tests.samples.real_clients import DECISIONS, FOLDER, GUIDE, TENANT, load
from tests.shops import Shop, new_shop

#: Bodies that modify another document get one issued first (by the same program where it numbers
#: with "#"; a program that numbers its own documents would take its number twice).
AFFECTED_BY = {
    "kamary_pe/credit_note.json": "kamary_pe/factura_cash_payment.json",
    "kamary_pe/voided.json": "kamary_pe/factura_cash_payment.json",
    "zcontable/credit_note_every_key.json": "kamary_pe/factura_cash_payment.json",
    "tokhna_peru/voided_dmy.json": "kamary_pe/factura_cash_payment.json",
    "tokhna_peru/summary_cancel_dmy.json": "vendeya/boleta_fuel_no_plate.json",
}
#: Where each endpoint lists what it stores (a refused body must leave the list as it was).
LISTED = {
    "/api/documents": "/api/documents/lists",
    "/api/voided": "/api/voided/lists",
    "/api/summaries": "/api/summaries/lists",
    "/api/dispatches": "/api/dispatches/lists/{today}/{today}",
    "/api/sale-note": "/api/sale-note/lists",
}


@pytest.fixture(scope="module")
def shop(live: LiveService) -> Shop:
    return new_shop(live, "clients")


@pytest.fixture(scope="module")
def ids(shop: Shop) -> dict[str, int]:
    """The tenant's products and customer of :data:`TENANT`, and the ids the bodies name."""
    with httpx.Client(
        base_url=shop.base_url, headers={"Authorization": f"Bearer {shop.token}"}, timeout=60
    ) as http:
        for code, (description, unit, stock) in TENANT["products"].items():
            body = {
                "internal_id": code,
                "description": description,
                "unit_type_id": unit,
                "currency_type_id": "PEN",
                "sale_unit_price": 35,
                "sale_affectation_igv_type_id": "10",
                "stock": stock,
            }
            assert http.post("/api/item", json=body).status_code == 200
        kind, number, name = TENANT["customer"]
        person = {"type": "customers", "identity_document_type_id": kind, "number": number, "name": name}
        customer = http.post("/api/person", json={**person, "country_id": "PE"}).json()["data"]["id"]
        [series] = http.get("/api/sale-note/series").json()["data"]
        rows = http.get("/api/document/search-items", params={"input": TENANT["item_id"]}).json()
        [item] = [row for row in rows["data"]["items"] if row["internal_id"] == TENANT["item_id"]]
    return {
        "series_id": series["id"],
        "establishment_id": series["establishment_id"],
        "customer_id": customer,
        "item_id": item["id"],
    }


@pytest.fixture
def client(shop: Shop) -> Iterator[httpx.Client]:
    with httpx.Client(
        base_url=shop.base_url, headers={"Authorization": f"Bearer {shop.token}"}, timeout=60
    ) as http:
        yield http


def _stored(client: httpx.Client, path: str) -> int:
    """How many things the tenant lists where ``path`` stores them (0 for endpoints without a list)."""
    if path not in LISTED:
        return 0
    listed = client.get(LISTED[path].format(today=peru_today().isoformat()))
    assert listed.status_code == 200, listed.text
    return len(listed.json()["data"])


def _guide_state(client: httpx.Client, external_id: str) -> str:
    """SUNAT's answer to a guide (the GRE simulator): send it and ask its ticket until answered."""
    sent = client.post("/api/dispatches/send", json={"external_id": external_id})
    assert sent.status_code == 200, sent.text
    deadline = time.monotonic() + 30
    while True:
        answer = client.post("/api/dispatches/status_ticket", json={"external_id": external_id})
        if answer.status_code != 202 or time.monotonic() > deadline:
            assert answer.status_code == 200, answer.text
            return str(answer.json()["data"]["state_type_id"])
        time.sleep(0.3)


@pytest.mark.parametrize("name", sorted(DECISIONS))
def test_real_client_body_is_answered_as_decided(
    client: httpx.Client, ids: dict[str, int], name: str
) -> None:
    decision = DECISIONS[name]
    affected = ""
    if name in AFFECTED_BY:
        base = client.post("/api/documents", json=load(AFFECTED_BY[name]))
        assert base.status_code == 200, base.text
        affected = base.json()["data"]["external_id"]
    before = _stored(client, decision.path)
    response = client.post(decision.path, json=load(name, affected=affected, ids=ids))
    assert response.status_code == decision.status, response.text
    answer = response.json()
    if decision.status == 200:
        assert answer["success"] is True, answer
        if decision.state is not None and decision.path == GUIDE:
            assert _guide_state(client, answer["data"]["external_id"]) == decision.state
        elif decision.state is not None:
            assert answer["data"]["state_type_id"] == decision.state, answer
        return
    assert answer["success"] is False
    assert decision.field in {error["field"] for error in answer["errors"]}, answer
    assert _stored(client, decision.path) == before  # a refused body stores nothing


def test_the_corpus_is_large_enough() -> None:
    sources = {name.split("/")[0] for name in DECISIONS}
    assert len(DECISIONS) >= 25 and len(sources) >= 12
    assert {name for name in (FOLDER.glob("*/*.json"))} == {FOLDER / name for name in DECISIONS}
    refused = [decision for decision in DECISIONS.values() if decision.status != 200]
    assert all(decision.field and decision.reason for decision in refused)


#: The keys of the real rows that clients read, by list (P9: ``MobileController::searchItems``,
#: ``Person::getApiRowResource``, ``Resources/Tenant/DocumentCollection``, ``SaleNote::getCollectionData``,
#: ``Resources/Tenant/QuotationCollection``, ``Dispatch::getCollectionData``). The web screens' button
#: flags (``btn_*``) and the features this service has not (payments of sale notes, contracts, e-mail
#: logs) are left out; docs/scenarios.md says which.
REAL_ROW_KEYS = {
    "/api/document/search-items?input=TORTA": (
        "id item_id name full_description description currency_type_id internal_id item_code "
        "currency_type_symbol lots sale_unit_price purchase_unit_price unit_type_id "
        "sale_affectation_igv_type_id purchase_affectation_igv_type_id calculate_quantity has_igv is_set "
        "aux_quantity barcode brand_id brand category_id category stock image warehouses item_unit_types "
        "has_isc system_isc_type_id percentage_isc favorite"
    ),
    "/api/persons/customers/records": (
        "id description name number addresses identity_document_type_id identity_document_type_code "
        "address telephone country_id district_id email enabled selected identity_document_type_description "
        "location_id"
    ),
    "/api/documents/lists": (
        "id group_id soap_type_id soap_type_description date_of_issue date_of_due number customer_name "
        "customer_number customer_identity_document_type_description customer_telephone customer_email "
        "custom_fields_data currency_type_id exchange_rate_sale total_exportation total_free "
        "total_unaffected total_exonerated total_taxed total_igv total state_type_id state_type_description "
        "document_type_description document_type_id has_xml has_pdf has_cdr download_xml download_pdf "
        "download_cdr send_server affected_document shipping_status sunat_shipping_status query_status "
        "created_at updated_at user_id external_id sales_note order_note message_regularize_shipping "
        "regularize_shipping purchase_order soap_type filename"
    ),
    "/api/sale-note/lists": (
        "id soap_type_id external_id date_of_issue time_of_issue identifier full_number customer_name "
        "customer_number exchange_rate_sale currency_type_id total_exportation total_free total_unaffected "
        "total_exonerated total_taxed total_igv total state_type_id state_type_description documents "
        "btn_generate changed created_at updated_at license_plate user_name number_full print_a4 "
        "print_ticket purchase_order customer_email customer_telephone filename custom_fields_data "
        "total_discount"
    ),
    "/api/quotations/list": (
        "id soap_type_id external_id date_of_issue delivery_date identifier user_name customer_name "
        "customer_number currency_type_id total_exportation total_free total_unaffected total_exonerated "
        "total_taxed total_igv total state_type_id state_type_description documents sale_notes "
        "sale_opportunity_number_full contract_number_full sale_opportunity btn_generate btn_generate_cnt "
        "btn_options external_id_contract referential_information created_at updated_at"
    ),
    "/api/dispatches/lists/{today}/{today}": (
        "id external_id soap_type_id date_of_issue number customer_name customer_number sender_name "
        "sender_number receiver_name receiver_number user_id date_of_shipping state_type_id "
        "state_type_description has_xml has_pdf has_cdr download_external_xml download_external_pdf "
        "download_external_cdr transfer_reason_description created_at updated_at"
    ),
}


def test_list_rows_carry_the_keys_real_tenants_give(client: httpx.Client, ids: dict[str, int]) -> None:
    """Each list's row has every key the real row has (those listed), even when null."""
    for name in ("tokhna_peru/factura_included_igv.json", "appmobil/sale_note_internal_keys.json"):
        path = DECISIONS[name].path
        if not _stored(client, path):
            assert client.post(path, json=load(name, ids=ids)).status_code == 200
    if not _stored(client, GUIDE):
        assert client.post(GUIDE, json=load("tokhna_peru/guide_codes_only.json", ids=ids)).status_code == 200
    quotation = {
        "date_of_issue": peru_today().isoformat(),
        "time_of_issue": "10:00:00",
        "customer_id": ids["customer_id"],
        "currency_type_id": "PEN",
        "items": [
            {
                "item_id": ids["item_id"],
                "quantity": 1,
                "unit_value": 50,
                "unit_price": 59,
                "price_type_id": "01",
                "affectation_igv_type_id": "10",
                "total_base_igv": 50,
                "percentage_igv": 18,
                "total_igv": 9,
                "total_taxes": 9,
                "total_value": 50,
                "total": 59,
            }
        ],
        "total_taxed": 50,
        "total_igv": 9,
        "total_taxes": 9,
        "total_value": 50,
        "total": 59,
    }
    assert client.post("/api/quotations", json=quotation).status_code == 200
    for path, keys in REAL_ROW_KEYS.items():
        answer = client.get(path.format(today=peru_today().isoformat()))
        assert answer.status_code == 200, answer.text
        data = answer.json()["data"]
        rows = data["items"] if isinstance(data, dict) else data
        assert rows, path
        missing = set(keys.split()) - set(rows[0])
        assert not missing, (path, sorted(missing))
