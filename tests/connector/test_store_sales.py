"""The sales figures in SQL over the local store (``analysis.sales.*_sql``) equal to the cent the figures
of :class:`~analysis.sales.Sale` objects (``summarize``, ``group_totals`` ...) on the same documents: the
pages read the store with the first, everything else (and a tenant's list) keeps the second."""

from __future__ import annotations

import datetime as dt
import random
from decimal import Decimal as D
from pathlib import Path
from typing import Any

import pytest

from analysis import sales
from analysis.sales import (
    affectation_mix,
    by_customer,
    by_day,
    by_month,
    by_series,
    by_type,
    customer_totals_sql,
    group_totals,
    has_lines_sql,
    mix_of,
    product_totals_sql,
    rejection_rate,
    rejection_rate_sql,
    sales_cells,
    summarize,
    summarize_sql,
)
from connector.store import LocalStore
from dashboard.figures import daily_figure
from tests.analysis import test_sales

ROWS = [{**row, "external_id": f"hand-{n}"} for n, row in enumerate(test_sales.ROWS)]

SOURCE = "SELECT * FROM documents"
SPAN = (dt.date(2026, 1, 1), dt.date(2026, 3, 31))
AMOUNTS = ("taxed", "exonerated", "unaffected", "export", "free", "igv", "icbper", "total", "documents")


def _random_rows(count: int, seed: int) -> list[dict[str, Any]]:
    """List rows as this service and real tenants write them: amounts as strings (some with thousands
    separators, some numbers), dollars at odd rates (half cents on conversion), a rate of 1 or none,
    credit notes in dollars, rejected and voided ones, unknown states and types, anonymous buyers."""
    rng = random.Random(seed)
    rows = []
    for n in range(count):
        kind = rng.choice(["01", "01", "03", "03", "07", "08", "12"])
        series = {"01": "F001", "03": "B001", "07": rng.choice(["FC01", "BC01"]), "08": "FD01", "12": "T001"}[
            kind
        ]
        currency = rng.choice(["PEN"] * 6 + ["USD", "USD", "EUR", ""])
        rate = (
            rng.choice(["3.725", "3.7125", "3.801", "1", "", "0", "3.75"])
            if currency not in ("PEN", "")
            else "1"
        )
        taxed = D(rng.randrange(0, 2_000_000)) / 100
        igv = (taxed * D("0.18")).quantize(D("0.01"))
        exonerated = D(rng.choice([0, 0, rng.randrange(0, 50_000)])) / 100
        icbper = D(rng.choice([0, 0, 50, 100])) / 100
        free = D(rng.choice([0, 0, 0, rng.randrange(0, 10_000)])) / 100
        other = D(rng.choice([0, 0, 0, 125])) / 100
        total = taxed + igv + exonerated + icbper + other
        day = dt.date(2026, 1, 1) + dt.timedelta(days=rng.randrange(0, 70))
        customer = rng.choice(["20100066603", "20555555556", "-", "", "00000000", "10456789012 "])
        money = (lambda v: f"{v:,.2f}") if rng.random() < 0.1 else (lambda v: f"{v:.2f}")
        rows.append(
            {
                "id": n + 1,
                "external_id": f"ext-{seed}-{n}",
                "number": f"{series}-{n + 1}",
                "date_of_issue": day.isoformat() if rng.random() < 0.9 else f"{day:%d-%m-%Y}",
                "document_type_id": kind,
                "state_type_id": rng.choice(["05", "05", "05", "01", "03", "09", "11", "13", "99"]),
                "currency_type_id": currency,
                "exchange_rate_sale": rate,
                "customer_number": customer,
                "customer_name": rng.choice(["CLIENTE UNO S.A.C.", "", "Cliente Dos"]),
                "total_taxed": money(taxed),
                "total_exonerated": float(exonerated) if rng.random() < 0.1 else money(exonerated),
                "total_unaffected": "0.00",
                "total_exportation": money(D(rng.choice([0, 0, 0, 99999])) / 100),
                "total_free": money(free),
                "total_igv": money(igv),
                "total_plastic_bag_taxes": money(icbper),
                "total": money(total),
                "has_cdr": rng.random() < 0.5,
            }
        )
        if rng.random() < 0.8:  # a detailed list's lines (some rows without: a tenant that lists none)
            rows[-1]["items"] = [
                {
                    "internal_id": rng.choice(["P01", "P02", "", 7]),
                    "description": rng.choice([" Producto uno ", "Servicio", "servicio"]),
                    "unit_type_id": rng.choice(["NIU", "ZZ"]),
                    "quantity": rng.choice(["1", "2.5", "0.125", 3]),
                    "affectation_igv_type_id": rng.choice(["10", "10", "20", "11", "", "40"]),
                    "total_value": rng.choice(["84.745763", "100.00", "1,000.50", 12.5]),
                    "total_igv": rng.choice(["15.254237", "18.00", "0"]),
                    "total_plastic_bag_taxes": rng.choice(["0.00", "0.50"]),
                    "total": rng.choice(["100.00", "118.00", "x"]),
                }
                for _ in range(rng.randrange(0, 4))
            ]
    return rows


def _amounts(a: sales.Amounts) -> tuple[Any, ...]:
    return tuple(getattr(a, name) for name in AMOUNTS)


def _bars(figure: Any) -> dict[str, tuple[Any, ...]]:
    return {t.name: (tuple(t.x), tuple(t.y), tuple(t.customdata)) for t in figure.data}


def _same(rows: list[dict[str, Any]], store: LocalStore) -> None:
    run = store.fetch
    listed = sales.sales_of(rows)
    python, sql = summarize(listed), summarize_sql(run, SOURCE)
    assert (sql.listed, sql.excluded) == (python.listed, python.excluded)
    assert {c: _amounts(a) for c, a in sql.per_currency.items()} == {
        c: _amounts(a) for c, a in python.per_currency.items()
    }
    assert _amounts(sql.soles) == _amounts(python.soles)
    assert sql.rates == python.rates and sql.rate_range() == python.rate_range()
    assert sorted(sql.unconverted) == sorted(python.unconverted)
    cells = sales_cells(run, SOURCE)
    assert sum(cell.documents for cell in cells) == len(listed) and len(cells) < len(listed)
    for key in (by_month, by_day, by_series, by_type, by_customer):
        expected, _ = group_totals(listed, key)
        got = customer_totals_sql(run, SOURCE) if key is by_customer else group_totals(cells, key)[0]
        assert [(g.key, _amounts(g.amounts)) for g in got] == [(g.key, _amounts(g.amounts)) for g in expected]
        assert [g.label for g in got] == [g.label for g in expected] or key is by_customer
    expected_top = sorted(group_totals(listed, by_customer)[0], key=lambda g: g.amounts.value, reverse=True)[
        :3
    ]
    assert [g.key for g in customer_totals_sql(run, SOURCE, top=3)] == [g.key for g in expected_top]
    assert rejection_rate_sql(run, SOURCE) == rejection_rate(listed) == rejection_rate(cells)
    assert mix_of(python) == affectation_mix(listed)[0] == mix_of(sql) == affectation_mix(cells)[0]
    assert _bars(daily_figure(cells, *SPAN)) == _bars(daily_figure(listed, *SPAN))
    products, without_lines, left_out = sales.product_totals(listed)
    got, got_without, got_left_out = product_totals_sql(run, SOURCE)
    assert (got_without, sorted(got_left_out)) == (without_lines, sorted(left_out))
    assert [(p.code, p.quantity, p.value, p.igv, p.icbper, p.total, p.documents) for p in got] == [
        (p.code, p.quantity, p.value, p.igv, p.icbper, p.total, p.documents) for p in products
    ]
    assert has_lines_sql(run, SOURCE) == all("items" in row for row in rows)


def test_the_hand_computed_rows_give_the_same_figures_in_sql() -> None:
    with LocalStore.holding(ROWS) as store:
        _same(ROWS, store)
        summary = summarize_sql(store.fetch, SOURCE)
    assert summary.soles.value == summarize(sales.sales_of(ROWS)).soles.value
    assert summary.unconverted == ["F001-5"]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_rows_give_the_same_figures_in_sql(seed: int) -> None:
    rows = _random_rows(600, seed)
    with LocalStore.holding(rows) as store:
        _same(rows, store)


def test_a_file_store_gives_the_same_figures(tmp_path: Path) -> None:
    rows = _random_rows(300, 9)
    path = tmp_path / "s.duckdb"
    with LocalStore.holding(rows) as memory:
        memory.fetch(f"ATTACH '{path}' AS disk")
        memory.fetch("CREATE TABLE disk.documents AS SELECT * FROM documents")
        memory.fetch("DETACH disk")
    with LocalStore(path, read_only=True) as store:
        _same(rows, store)


def test_a_range_and_its_filters_in_sql() -> None:
    from dashboard.data import Filters, Scope, apply_filters

    rows = _random_rows(400, 5)
    with LocalStore.holding(rows) as store:
        whole = Scope(store, dt.date(2026, 1, 10), dt.date(2026, 2, 10))
        frame = whole.documents()
        assert whole.count() == len(frame) > 0
        for filters in (
            Filters(document_types=("01", "07")),
            Filters(states=("05",), currencies=("USD",)),
            Filters(series=("B001",), customer="cliente"),
            Filters(customer="2010006"),
        ):
            scope = whole.with_filters(filters)
            expected = apply_filters(frame, filters)
            assert scope.count() == len(expected)
            assert set(scope.documents()["number"]) == set(expected["number"])
            python = summarize(sales.sales_of([r for r in rows if r["number"] in set(expected["number"])]))
            assert _amounts(summarize_sql(scope.run, scope.source, scope.parameters).soles) == _amounts(
                python.soles
            )
        table = whole.table(limit=25)
        assert len(table) == 25 and list(table["number"]) == list(whole.documents(25)["number"])
        assert whole.options()["currencies"] == sorted({r["currency_type_id"] for r in rows} - {""})


def test_the_alerts_need_only_the_documents_in_their_states() -> None:
    """Inicio reads only the year's documents in ``ALERT_STATES`` out of the store: the alerts of every
    document are the alerts of those."""
    from analysis.alerts import ALERT_STATES, alerts

    rows = _random_rows(800, 11)
    listed = sales.sales_of(rows)
    today = dt.date(2026, 3, 20)
    every = alerts(listed, today)
    assert every == alerts([s for s in listed if s.state in ALERT_STATES], today)
    assert {a.kind for a in every if a.severity != "ok"} >= {"boletas", "cdr", "rejected", "voided_late"}
