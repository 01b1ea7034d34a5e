"""The stand-in answers as the real code does (each quirk has its source in ``variants.py``,
``tenant.py`` and ``server.py``), and the connector copes with each: authentication, missing routes,
the voiding date, sale notes listed only in part, persons of both types under one search."""

from __future__ import annotations

import datetime as dt

import httpx
import pytest

from connector import Client
from connector.person_types import classify, fold
from sunat.calendar import peru_today
from tests.real_tenant.seed import document_body, sale_note_body, seed
from tests.real_tenant.server import StandIn, running, stand_in
from tests.real_tenant.variants import PRO5, PRO9, TUKIFAC, VARIANTS, Variant


@pytest.mark.parametrize("variant", [PRO9, TUKIFAC, PRO5], ids=lambda v: v.name)
def test_tokens_routes_and_the_error_envelope(variant: Variant) -> None:
    standin = stand_in(variant)
    with running(standin):
        json = {"Accept": "application/json"}
        wrong = httpx.get(
            f"{standin.root}/api/documents/lists", headers={**json, "Authorization": "Bearer x"}
        )
        assert wrong.status_code == 401 and wrong.json()["message"] == "No se encuentra autenticado"
        assert ("file" in wrong.json()) is variant.error_file_line  # Tukifac and pro5 always tell the file
        bare = httpx.get(f"{standin.root}/api/documents/lists", headers={"Authorization": "Bearer x"})
        if variant.redirect_without_json:  # Pro9: no JSON asked, the login page
            assert bare.status_code == 302 and bare.headers["Location"].endswith("/login")
        else:
            assert bare.status_code == 401
        missing = httpx.get(f"{standin.root}/api/summaries/lists", headers=json)  # no token needed
        assert (
            missing.status_code == 404 and missing.json()["message"] == "No se encontró la URL especificada"
        )
        with Client(standin.root, "not-the-token", cache=False) as client:
            assert client.ping().reason == "unauthorized"


@pytest.mark.parametrize("variant", [PRO9, TUKIFAC, PRO5], ids=lambda v: v.name)
def test_lists_as_each_variant_writes_them(variant: Variant) -> None:
    standin = stand_in(variant)
    seed(standin.tenant)
    with running(standin):
        headers = {"Accept": "application/json", "Authorization": f"Bearer {standin.token}"}
        [row, *_] = httpx.get(f"{standin.root}/api/documents/lists", headers=headers).json()["data"]
        assert (row["date_of_issue"][2] == "-") is (variant.list_dates == "d-m-Y")
        assert isinstance(row["total"], float) is variant.total_as_float and isinstance(row["total_igv"], str)
        assert row["affected_document"] is None
        series = httpx.get(f"{standin.root}/api/sale-note/series", headers=headers).json()
        assert isinstance(series, list) and series[0]["number"] == "NV01"  # a bare array
        notes = httpx.get(f"{standin.root}/api/sale-note/lists?start_date=2000-01-01", headers=headers).json()
        expected = min(variant.sale_note_list_size, len(standin.tenant.sale_notes))  # 20 of 25 (pro5: 50)
        assert len(notes["data"]) == expected  # the dates are ignored


def test_voiding_date_learned_from_the_tenant() -> None:
    standin = stand_in(PRO9)
    seed(standin.tenant)
    invoices = [standin.tenant.issue(document_body(peru_today()))["data"]["external_id"] for _ in range(2)]
    with running(standin), Client(standin.root, standin.token, cache=False) as client:
        client.voided.void(peru_today(), [(invoices[0], "Error")])  # Y-m-d refused, d-m-Y taken
        assert standin.count("POST", "/api/voided") == 2 and client.profile.voided_dates == "d-m-Y"
        client.voided.void(peru_today(), [(invoices[1], "Error")])  # remembered: one request
        assert standin.count("POST", "/api/voided") == 3
    other = stand_in(PRO9)
    seed(other.tenant)
    invoice = other.tenant.issue(document_body(peru_today()))["data"]["external_id"]
    with running(other), Client(other.root, other.token, cache=False) as client:
        client.documents.list(peru_today(), peru_today())  # its lists write d-m-Y: so does the request
        client.voided.void(peru_today(), [(invoice, "Error")])
        assert other.count("POST", "/api/voided") == 1


def _more_notes(standin: StandIn, count: int) -> None:
    person, item = standin.tenant.persons[0].id, standin.tenant.items[0].id
    for index in range(count):
        day = peru_today() - dt.timedelta(days=count - index)
        standin.tenant.store_sale_note(sale_note_body(day, person, item), "")
        standin.tenant.sale_notes[-1].created_at = dt.datetime.combine(day, dt.time(12, 0, index % 60))


def test_sale_notes_paged_back_by_number_where_the_tenant_filters_by_it() -> None:
    standin = stand_in(PRO9)
    seed(standin.tenant)
    said: list[str] = []
    with running(standin), Client(standin.root, standin.token, cache=False, progress=said.append) as client:
        start = peru_today() - dt.timedelta(days=20)
        notes = client.sale_notes.list(start=start, end=peru_today())
        expected = {n.number_full for n in standin.tenant.sale_notes if n.date_of_issue >= start}
        assert notes.complete and {n.number for n in notes} == expected and len(expected) == 21
        assert standin.count("GET", "/api/sale-note/lists") == 3  # the latest 20, then NV01-5 and NV01-4
        assert "Buscando notas de venta anteriores: NV01-5." in said
        searched = client.sale_notes.list("NV01", start=start - dt.timedelta(days=30), end=peru_today())
        assert not searched.complete
        # NV01-1 cannot be asked for: "1" is in the series' name, so that search answers the latest 20
        early = start - dt.timedelta(days=10)
        whole = client.sale_notes.list(start=early, end=peru_today())
        assert not whole.complete and "NV01-1" not in {n.number for n in whole} and len(whole) == 24
    # one sentence that adds up: the latest 20 and the 4 asked for one by one are the 24 shown
    assert whole.note == (
        "La empresa no filtra por fecha: de sus últimas 20 notas de venta y 4 anteriores pedidas una a "
        f"una, se muestran las 24 emitidas entre el {early:%d/%m/%Y} y el {peru_today():%d/%m/%Y}, y "
        "puede haber más de esas fechas."
    )
    assert searched.note.startswith("La empresa no filtra por fecha: de sus últimas 20 notas de venta, ")


def test_sale_notes_of_a_tenant_that_cannot_page_back_say_so() -> None:
    standin = stand_in(PRO5)
    seed(standin.tenant)
    _more_notes(standin, 40)  # 65 notes: pro5 answers 50
    with running(standin), Client(standin.root, standin.token, cache=False) as client:
        notes = client.sale_notes.list(start=peru_today() - dt.timedelta(days=60), end=peru_today())
    assert not notes.complete and len(notes) == 50
    assert notes.note.startswith("La empresa no filtra por fecha: de sus últimas 50 notas de venta, ")
    assert "se muestran las 50 emitidas entre el" in notes.note and notes.note.count(".") == 1


def test_person_types_told_apart_by_the_mirror_searches() -> None:
    rows = [
        {"id": 1, "name": "DISTRIBUIDORA NORTE S.A.C.", "number": "20601030013"},
        {"id": 2, "name": "TRANSPORTES NORTE E.I.R.L.", "number": "20512345678"},
        {"id": 3, "name": "NORTE 2051 S.A.", "number": "20512340000"},  # the search in both: a vowel decides
        {"id": 4, "name": "XYZ", "number": "10406090001"},  # no vowel: a digit decides
    ]
    suppliers = {2, 3}
    asked: list[str] = []

    def supplier_search(text: str) -> set[int]:
        asked.append(f"S:{text}")
        return {
            r["id"]
            for r in rows
            if fold(text) in fold(r["number"]) or (fold(text) in fold(r["name"]) and r["id"] in suppliers)
        }

    def customer_search(text: str) -> set[int]:
        asked.append(f"C:{text}")
        return {
            r["id"]
            for r in rows
            if fold(text) in fold(r["name"]) or (fold(text) in fold(r["number"]) and r["id"] not in suppliers)
        }

    types = classify(rows, "2051", customer_search, supplier_search)
    assert types == {1: "customers", 2: "suppliers", 3: "suppliers", 4: "customers"}
    assert asked == ["C:2051", "S:a", "C:0"]  # one search per probe, only while rows are pending
    assert fold("ÑANDÚ Álvarez") == "nandu alvarez"


def test_every_variant_is_served() -> None:
    assert sorted(VARIANTS) == ["pro5", "pro9", "tukifac"]
