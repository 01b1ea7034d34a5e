"""Over HTTP: the lists answer their ``created_at`` and ``updated_at`` in Lima time, as real Facturador PRO
tenants do (Laravel's ``America/Lima``, ``"Y-m-d H:i:s"``). The database keeps moments (UTC): a row
written by an earlier version, as the database's clock wrote it, reads right too."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import update

from facturador.store.models import DOCUMENTS
from sunat.calendar import lima_stamp
from tests.common import issue
from tests.conftest import LiveService
from tests.samples.bodies import invoice_body
from tests.shops import new_shop


def test_the_documents_list_answers_lima_time(live: LiveService) -> None:
    shop = new_shop(live, "lima-times")
    with live.client(shop.slug, shop.token) as client:
        made = issue(client, invoice_body(serie_documento="F001"))["data"]
        # 31/10 at 20:15 in Lima is 01/11 at 01:15 UTC: what the database holds for that moment
        moment = dt.datetime(2026, 11, 1, 1, 15, tzinfo=dt.UTC)
        with live.context.engine.begin() as connection:
            connection.execute(
                update(DOCUMENTS)
                .where(DOCUMENTS.c.external_id == made["external_id"])
                .values(created_at=moment, updated_at=moment + dt.timedelta(hours=1))
            )
        rows = client.get("/api/documents/lists").json()["data"]  # a new tenant's latest
    (row,) = [r for r in rows if r["external_id"] == made["external_id"]]
    assert row["created_at"] == "2026-10-31 20:15:00"
    assert row["updated_at"] == "2026-10-31 21:15:00"


@pytest.mark.parametrize(
    ("stored", "answered"),
    [
        (dt.datetime(2026, 11, 1, 1, 15), "2026-10-31 20:15:00"),  # naive: the database's UTC clock
        (dt.datetime(2026, 11, 1, 1, 15, tzinfo=dt.UTC), "2026-10-31 20:15:00"),
        (
            dt.datetime(2026, 10, 31, 20, 15, tzinfo=dt.timezone(dt.timedelta(hours=-5))),
            "2026-10-31 20:15:00",
        ),
        ("2027-01-01 04:30:00", "2026-12-31 23:30:00"),  # SQLite's text of CURRENT_TIMESTAMP: New Year
        ("2027-01-01 04:30:00.123456+00:00", "2026-12-31 23:30:00"),
        (None, None),
        ("", None),
    ],
)
def test_a_stored_moment_is_answered_as_limas_wall_clock(stored: object, answered: str | None) -> None:
    assert lima_stamp(stored) == answered  # type: ignore[arg-type]
