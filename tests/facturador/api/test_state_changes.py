"""A document's state set by hand leaves an audit record (issue 31): who (the API user), when (Lima's
time with its offset), from which state to which, and the reason (``motivo``, optional on the wire as
real tenants take none). The list row carries the record as ``state_changes`` (an extra key, empty for
a document never changed) and ``GET /api/documents/state-changes/{external_id}`` answers it alone.

Runs on SQLite and, with ``FACTURADOR_TEST_DATABASE_URL``, on PostgreSQL.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import httpx

from sunat.calendar import LIMA
from tests.conftest import CLOCK
from tests.samples.bodies import invoice_body


def _issued(client: httpx.Client) -> dict[str, Any]:
    response = client.post("/api/documents", json=invoice_body())
    assert response.status_code == 200, response.text
    return dict(response.json()["data"])


def _row(client: httpx.Client, external_id: str) -> dict[str, Any]:
    [row] = [r for r in client.get("/api/documents/lists").json()["data"] if r["external_id"] == external_id]
    return dict(row)


def test_a_change_by_hand_is_recorded_with_who_when_and_why(acme: httpx.Client) -> None:
    document = _issued(acme)
    ext = document["external_id"]
    assert _row(acme, ext)["state_changes"] == []
    # the service's clock: real time plus what other tests of this process advanced it by (tests.conftest)
    before = dt.datetime.fromtimestamp(CLOCK(), LIMA).replace(microsecond=0)
    answer = acme.post(
        "/api/documents/updatedocumentstatus",
        json={"externail_id": ext, "state_type_id": "11", "motivo": "  Anulada en SUNAT por el portal  "},
    )
    after = dt.datetime.fromtimestamp(CLOCK(), LIMA)
    assert answer.status_code == 200, answer.text
    acme.post("/api/documents/updatedocumentstatus", json={"external_id": ext, "state_type_id": "05"})
    changes = acme.get(f"/api/documents/state-changes/{ext}")
    assert changes.status_code == 200, changes.text
    first, second = changes.json()["data"]
    assert first["user_name"] == "Administrador" and isinstance(first["user_id"], int)
    assert (first["from_state_type_id"], first["state_type_id"]) == ("05", "11")
    assert first["state_type_description"] == "Anulado"
    assert first["reason"] == "Anulada en SUNAT por el portal"
    when = dt.datetime.fromisoformat(first["changed_at"])
    assert first["changed_at"].endswith("-05:00") and before <= when <= after
    assert (second["from_state_type_id"], second["state_type_id"], second["reason"]) == ("11", "05", "")
    assert _row(acme, ext)["state_changes"] == [first, second]


def test_nothing_is_recorded_for_a_refused_change_nor_shown_to_another_tenant(
    acme: httpx.Client, other: httpx.Client
) -> None:
    ext = _issued(acme)["external_id"]
    long = acme.post(
        "/api/documents/updatedocumentstatus",
        json={"externail_id": ext, "state_type_id": "11", "motivo": "x" * 501},
    )
    assert long.status_code == 422 and long.json()["errors"][0]["field"] == "motivo", long.text
    unknown = acme.post(
        "/api/documents/updatedocumentstatus", json={"externail_id": ext, "state_type_id": "99"}
    )
    assert unknown.status_code == 422
    assert acme.get(f"/api/documents/state-changes/{ext}").json()["data"] == []
    assert other.get(f"/api/documents/state-changes/{ext}").status_code == 404
    bad = acme.get("/api/documents/state-changes/no%20such")
    assert bad.status_code in (404, 422) and bad.json()["success"] is False
