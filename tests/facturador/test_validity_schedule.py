"""The monthly validity sweep the worker does when a tenant asks for it (``validity_sweep_day``): due
from that day for the month before, done in slices a rerun continues, its disagreements and a stopped
sweep listed in ``GET /api/company/attention`` until the books are settled."""

from __future__ import annotations

import datetime as dt
import json

from sqlalchemy import select

from connector.builders import Customer, Invoice, Line, Receipt
from facturador.domain.pending import Worker
from facturador.domain.validity_sweep import (
    VALIDATE,
    period_due,
    report_path,
    run_scheduled_sweep,
    tenants_owing_sweeps,
)
from facturador.store.jobs import Job
from facturador.store.models import TENANTS
from sunat.calendar import peru_today
from tests.conftest import LiveService
from tests.shops import new_shop

PERSON = Customer.dni("46027862", "JUAN PEREZ QUISPE")
COMPANY = Customer.ruc("20601030013", "EMPRESA XYZ S.A.C.", address="Av. Lima 123", ubigeo="150101")


def test_period_due() -> None:
    assert period_due({"validity_sweep_day": 5}, dt.date(2026, 12, 4)) is None
    assert period_due({"validity_sweep_day": 5}, dt.date(2026, 12, 5)) == "2026-11"
    assert period_due({"validity_sweep_day": 1}, dt.date(2027, 1, 1)) == "2026-12"
    assert period_due({"validity_sweep_day": 0}, dt.date(2026, 12, 28)) is None
    assert period_due({}, dt.date(2026, 12, 28)) is None


def test_the_worker_sweeps_the_month_before_in_slices_and_tells_a_person(live: LiveService) -> None:
    shop = new_shop(live, "validity-job", validity_sweep_day=1)
    with live.context.engine.connect() as connection:
        tenant_id = connection.execute(select(TENANTS.c.id).where(TENANTS.c.slug == shop.slug)).scalar_one()
    with shop.client() as client:
        factura = client.documents.issue(
            Invoice(customer=COMPANY, lines=[Line("Inca Kola", 1, unit_price=10)])
        )
        boleta = client.documents.issue(Receipt(customer=PERSON, lines=[Line("Polo", 1, unit_price="59.00")]))
        client.documents.update_status(factura.external_id, "09", reason="prueba")
        client.documents.update_status(boleta.external_id, "03", reason="resumen sin respuesta (0127)")
        today = peru_today()
        period = today.strftime("%Y-%m")
        next_month = (today.replace(day=28) + dt.timedelta(days=4)).replace(day=1)

        assert tenant_id in tenants_owing_sweeps(live.context, next_month)
        first = run_scheduled_sweep(
            live.context, tenant_id, today=next_month, sleep=lambda _s: None, slice_size=1
        )
        assert first is not None and (first.checked, first.total, first.complete) == (1, 2, False)
        assert tenant_id in tenants_owing_sweeps(live.context, next_month)  # the next job continues
        done = run_scheduled_sweep(live.context, tenant_id, today=next_month, sleep=lambda _s: None)
        assert done is not None and done.complete and done.resumed == 1
        assert tenant_id not in tenants_owing_sweeps(live.context, next_month)
        report = json.loads(report_path(live.context, shop.slug, period).read_text())
        assert [line["condition"] for line in report["corrective"]] == ["1"]

        items = {i.reference: i for i in client.company.attention() or [] if i.kind == "validity"}
        assert set(items) == {factura.number, boleta.number}
        assert items[factura.number].code == "1" and "propuesto 05" in items[factura.number].reason
        assert (
            "propuesto 01; va en el resumen diario corrector con condición 1 (Adicionar)"
            in items[boleta.number].reason
        )
        client.documents.update_status(factura.external_id, "05", reason="según SUNAT")
        left = [i.reference for i in client.company.attention() or [] if i.kind == "validity"]
        assert left == [boleta.number]  # settled documents leave the list

    # the worker's own job sweeps the month before today's (nothing issued then: a complete, empty sweep)
    Worker(live.context).handle(Job(id=0, kind=VALIDATE, target_id=tenant_id, taken=1, owner="test"))
    previous = (today.replace(day=1) - dt.timedelta(days=1)).strftime("%Y-%m")
    body = json.loads(report_path(live.context, shop.slug, previous).read_text())
    assert body["complete"] and body["total"] == 0


def test_a_tenant_sending_to_sunat_without_credentials_is_told(live: LiveService) -> None:
    shop = new_shop(live, "validity-nocred", validity_sweep_day=1, sunat_sending="beta")
    with live.context.engine.connect() as connection:
        tenant_id = connection.execute(select(TENANTS.c.id).where(TENANTS.c.slug == shop.slug)).scalar_one()
    next_month = (peru_today().replace(day=28) + dt.timedelta(days=4)).replace(day=1)
    report = run_scheduled_sweep(live.context, tenant_id, today=next_month)
    assert report is not None and report.stopped_by == "sin credenciales de la API de validez"
    assert tenant_id not in tenants_owing_sweeps(live.context, next_month)  # tried again in an hour
    with shop.client() as client:
        (item,) = [i for i in client.company.attention() or [] if i.kind == "validity"]
    assert "se detuvo" in item.reason
