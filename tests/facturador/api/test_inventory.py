"""Stock over HTTP: POST /api/inventory/transaction, the kardex, and the moves of facturas, boletas and
credit notes of return (reference §8.19)."""

from __future__ import annotations

import concurrent.futures
from typing import Any

import httpx
import pytest

from tests.conftest import LiveService
from tests.facturador.api.test_bad_input import assert_error
from tests.samples.bodies import boleta_body, credit_note_body, invoice_body
from tests.shops import Shop, new_shop


@pytest.fixture(scope="module")
def shop(live: LiveService) -> Shop:
    return new_shop(live, "stock")


@pytest.fixture
def client(live: LiveService, shop: Shop) -> Any:
    with live.client(shop.slug, shop.token) as client:
        yield client


def product(client: httpx.Client, code: str, stock: float = 0) -> dict[str, Any]:
    body = {
        "internal_id": code,
        "description": f"Producto {code}",
        "unit_type_id": "NIU",
        "currency_type_id": "PEN",
        "sale_unit_price": 10,
        "sale_affectation_igv_type_id": "10",
        "stock": stock,
    }
    response = client.post("/api/item", json=body)
    assert response.status_code == 200, response.text
    return response.json()["data"]


def move(
    client: httpx.Client, code: str, kind: str, transaction: str, quantity: Any, **extra: Any
) -> httpx.Response:
    body = {
        "type": kind,
        "inventory_transaction_id": transaction,
        "item_code": code,
        "quantity": quantity,
        **extra,
    }
    return client.post("/api/inventory/transaction", json=body)


def stock_of(client: httpx.Client, code: str) -> float:
    rows = client.get("/api/document/search-items", params={"input": code}).json()["data"]["items"]
    [row] = [row for row in rows if row["internal_id"] == code]
    return row["stock"]


def kardex(client: httpx.Client, item_id: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    url: str | None = f"/api/items/{item_id}/kardex"
    while url:
        response = client.get(url)
        assert response.status_code == 200, response.text
        rows += response.json()["data"]
        url = response.json()["links"]["next"]
    return rows


def test_inputs_and_outputs_keep_the_kardex(client: httpx.Client) -> None:
    item = product(client, "INV-1", stock=5)
    ok = move(client, "INV-1", "input", "02", 10)
    assert ok.status_code == 200, ok.text
    assert ok.json() == {"success": True, "message": "Ingreso registrado correctamente"}
    out = move(client, "INV-1", "output", "13", "3.5")
    assert out.json() == {"success": True, "message": "Salida registrada correctamente"}
    assert stock_of(client, "INV-1") == 11.5
    lines = kardex(client, item["id"])
    assert [(r["type"], r["inventory_transaction_id"], r["quantity"], r["balance"]) for r in lines] == [
        ("input", "16", "5.0000", "5.0000"),
        ("input", "02", "10.0000", "15.0000"),
        ("output", "13", "-3.5000", "11.5000"),
    ]
    assert lines[1]["inventory_transaction_description"] == "Compra"
    warehouse = item["warehouses"][0]["warehouse_id"]
    assert move(client, "INV-1", "input", "02", 1, warehouse_id=warehouse).status_code == 200


def test_stock_never_goes_below_zero_and_bad_moves_change_nothing(client: httpx.Client) -> None:
    item = product(client, "INV-2", stock=2)
    refused = assert_error(move(client, "INV-2", "output", "01", 3), 422, "INSUFFICIENT_STOCK", "quantity")
    assert refused["message"] == "La cantidad no puede ser mayor a la que se tiene en el almacén."
    unknown = assert_error(move(client, "NO-EXISTE", "input", "02", 1), 404, "ITEM_NOT_FOUND", "item_code")
    assert unknown["message"] == "No se encontró un producto con el codigo ingresado"
    for args, field in (
        (("input", "01", 1), "inventory_transaction_id"),  # 01 is an output type
        (("output", "02", 1), "inventory_transaction_id"),
        (("sideways", "02", 1), "type"),
        (("input", "77", 1), "inventory_transaction_id"),
        (("input", "02", 0), "quantity"),
        (("input", "02", -1), "quantity"),
        (("input", "02", "0.001"), "quantity"),
        (("input", "02", "muchos"), "quantity"),
    ):
        assert_error(move(client, "INV-2", *args), 422, field=field)
    assert_error(move(client, "INV-2", "input", "02", 1, warehouse_id=999999), 404, "WAREHOUSE_NOT_FOUND")
    assert_error(client.post("/api/inventory/transaction", json={"type": "input"}), 422, "MISSING_FIELDS")
    assert stock_of(client, "INV-2") == 2
    assert len(kardex(client, item["id"])) == 1
    assert move(client, "INV-2", "output", "01", 2).status_code == 200
    assert stock_of(client, "INV-2") == 0


def test_concurrent_outputs_cannot_oversell(client: httpx.Client, live: LiveService, shop: Shop) -> None:
    product(client, "INV-RACE", stock=5)

    def take(_: int) -> int:
        with live.client(shop.slug, shop.token) as own:
            return move(own, "INV-RACE", "output", "01", 1).status_code

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        statuses = list(pool.map(take, range(12)))
    assert sorted(statuses) == [200] * 5 + [422] * 7
    assert stock_of(client, "INV-RACE") == 0


def test_sales_take_stock_out_and_returns_bring_it_back(live: LiveService) -> None:
    fresh = new_shop(live, "stock-docs")
    with live.client(fresh.slug, fresh.token) as client:
        archivador = product(client, "ARCH-A4", stock=10)
        termo = product(client, "TERMO-1L", stock=10)
        invoice = client.post("/api/documents", json=invoice_body()).json()["data"]
        assert client.post("/api/documents", json=boleta_body()).status_code == 200
        assert (stock_of(client, "ARCH-A4"), stock_of(client, "TERMO-1L")) == (8, 8)
        # a debit note moves nothing (and raises what the factura's credit notes may take to 236.00)
        debit = credit_note_body(
            invoice["external_id"],
            serie_documento="FD01",
            codigo_tipo_documento="08",
            codigo_tipo_nota="02",
            motivo_o_sustento_de_nota="Aumento en el valor",
        )
        assert client.post("/api/documents", json=debit).status_code == 200, "debit note"
        assert stock_of(client, "ARCH-A4") == 8
        # a credit note of correction (03) moves nothing either
        correction = credit_note_body(invoice["external_id"], codigo_tipo_nota="03")
        assert client.post("/api/documents", json=correction).status_code == 200, "correction"
        assert stock_of(client, "ARCH-A4") == 8
        returned = client.post(
            "/api/documents", json=credit_note_body(invoice["external_id"], codigo_tipo_nota="07")
        )
        assert returned.status_code == 200, returned.text
        assert stock_of(client, "ARCH-A4") == 10
        lines = kardex(client, archivador["id"])
        assert [(r["type"], r["balance"]) for r in lines] == [
            ("input", "10.0000"),
            ("output", "8.0000"),
            ("input", "10.0000"),
        ]
        assert (
            lines[1]["description"] == f"Factura {invoice['number']}" and lines[1]["document_id"] is not None
        )
        assert lines[2]["inventory_transaction_id"] == "24"
        assert [r["description"] for r in kardex(client, termo["id"])][-1].startswith("Boleta de venta B001-")
        # a refused document moves nothing
        bad = invoice_body()
        bad["totales"]["total_venta"] = 1
        assert client.post("/api/documents", json=bad).status_code == 422
        assert stock_of(client, "ARCH-A4") == 10


def test_kardex_and_moves_never_cross_tenants(live: LiveService, client: httpx.Client) -> None:
    item = product(client, "INV-MINE", stock=3)
    stranger = new_shop(live, "stock-other")
    with live.client(stranger.slug, stranger.token) as other:
        assert_error(other.get(f"/api/items/{item['id']}/kardex"), 404, "ITEM_NOT_FOUND")
        assert_error(move(other, "INV-MINE", "output", "01", 1), 404, "ITEM_NOT_FOUND")
        product(other, "INV-OTHER")
        warehouse = item["warehouses"][0]["warehouse_id"]
        assert_error(
            move(other, "INV-OTHER", "input", "02", 1, warehouse_id=warehouse), 404, "WAREHOUSE_NOT_FOUND"
        )
    assert stock_of(client, "INV-MINE") == 3
    with live.client(stranger.slug, "wrong-token-0123456789-xxxxxxxxxx") as nobody:
        assert_error(move(nobody, "INV-MINE", "input", "02", 1), 401)
        assert_error(nobody.get(f"/api/items/{item['id']}/kardex"), 401)


def two_line_sale(first: str, second: str, *, boleta: bool) -> dict[str, Any]:
    """A factura F001 or a boleta B001 of the products ``first`` then ``second`` (236.00: 2 x 50.00 + IGV
    each)."""
    body = boleta_body() if boleta else invoice_body()
    line = {**invoice_body()["items"][0]}
    body["items"] = [{**line, "codigo_interno": first}, {**line, "codigo_interno": second}]
    body["totales"] = {
        "total_operaciones_gravadas": 200,
        "total_igv": 36,
        "total_impuestos": 36,
        "total_valor": 200,
        "total_venta": 236,
    }
    return body


def test_concurrent_sales_of_the_same_products_in_any_order(live: LiveService) -> None:
    """Facturas and boletas (two series: their numbering does not serialize them) naming two products in
    opposite orders at the same time all go through: rows are locked in one order (PostgreSQL would
    otherwise find deadlocks and fail sales)."""
    fresh = new_shop(live, "stock-race")
    with live.client(fresh.slug, fresh.token) as client:
        product(client, "RACE-A", stock=100)
        product(client, "RACE-B", stock=100)

    def sell(index: int) -> int:
        with live.client(fresh.slug, fresh.token) as own:
            order = ("RACE-A", "RACE-B") if index % 2 else ("RACE-B", "RACE-A")
            response = own.post("/api/documents", json=two_line_sale(*order, boleta=bool(index % 2)))
            return response.status_code

    with concurrent.futures.ThreadPoolExecutor(6) as pool:
        statuses = list(pool.map(sell, range(30)))
    assert statuses == [200] * 30
    with live.client(fresh.slug, fresh.token) as client:
        assert (stock_of(client, "RACE-A"), stock_of(client, "RACE-B")) == (40, 40)


def test_no_sale_takes_a_stocked_product_below_zero(live: LiveService) -> None:
    """The rule of the inventory transaction holds on every path that takes goods out: a factura, a
    boleta, a sale note and a guide for a sale that ask for more than the warehouse holds are refused
    with 422 naming the line's quantity, and nothing of them is written (no document, no number taken,
    no stock moved, no kardex line). They used to go through and leave the stock negative."""
    from tests.facturador.api.test_dispatch_links import goods
    from tests.facturador.api.test_sale_notes import customer, line, note_body, series_id
    from tests.samples.dispatches import dispatch_body

    fresh = new_shop(live, "stock-floor")
    with live.client(fresh.slug, fresh.token) as client:
        item = product(client, "ARCH-A4", stock=3)  # the sample factura and boleta sell 2 of it
        first = client.post("/api/documents", json=invoice_body())
        assert first.status_code == 200, first.text
        assert stock_of(client, "ARCH-A4") == 1
        before = kardex(client, item["id"])
        boleta = boleta_body()
        boleta["items"][0]["codigo_interno"] = "ARCH-A4"  # 2 of them
        for body in (invoice_body(), boleta):
            refused = client.post("/api/documents", json=body)
            assert_error(refused, 422, "INSUFFICIENT_STOCK", "items.0.cantidad")
            assert "hay 1 en el almacén y se piden 2" in refused.json()["errors"][0]["message"]
        note = note_body(
            series_id(client), [line({"item_id": item["id"]})], customer_id=customer(client, "20100066603")
        )
        assert_error(client.post("/api/sale-note", json=note), 422, "INSUFFICIENT_STOCK", "items.0.quantity")
        guide = dispatch_body(documento_relacionado=None, items=goods("ARCH-A4", 2))
        assert_error(
            client.post("/api/dispatches", json=guide), 422, "INSUFFICIENT_STOCK", "items.0.cantidad"
        )
        assert stock_of(client, "ARCH-A4") == 1 and kardex(client, item["id"]) == before
        # once the goods are in, the same factura goes through, with the next number: none was taken
        assert move(client, "ARCH-A4", "input", "02", 1).status_code == 200
        second = client.post("/api/documents", json=invoice_body())
        assert second.status_code == 200, second.text
        number = int(first.json()["data"]["number"].rsplit("-", 1)[1])
        assert second.json()["data"]["number"].endswith(f"-{number + 1}")
        assert stock_of(client, "ARCH-A4") == 0
        assert kardex(client, item["id"])[-1]["balance"] == "0.0000"


def sale_of(lines: list[tuple[str, int, str, bool]]) -> dict[str, Any]:
    """A factura F001 of ``lines`` (code, quantity, description, whether it rewrites the product's
    description), each unit 50.00 + IGV."""
    body = invoice_body()
    template = body["items"][0]
    body["items"] = [
        {
            **template,
            "codigo_interno": code,
            "descripcion": description,
            "actualizar_descripcion": rewrite,
            "cantidad": quantity,
            "total_base_igv": 50 * quantity,
            "total_igv": 9 * quantity,
            "total_impuestos": 9 * quantity,
            "total_valor_item": 50 * quantity,
            "total_item": 59 * quantity,
        }
        for code, quantity, description, rewrite in lines
    ]
    units = sum(quantity for _code, quantity, _description, _rewrite in lines)
    body["totales"] = {
        "total_operaciones_gravadas": 50 * units,
        "total_igv": 9 * units,
        "total_impuestos": 9 * units,
        "total_valor": 50 * units,
        "total_venta": 59 * units,
    }
    return body


def test_a_product_on_several_lines_of_one_document(live: LiveService) -> None:
    """Each line moves the stock with a kardex line of its own, in the document's order, with the
    balance after it; the product keeps the description of the last line that rewrites it, and a
    product new to the shop is created with its first line's (never stocked, its lines move nothing).
    The line that takes the stock below zero is the one named, counting what the lines before it took."""
    fresh = new_shop(live, "stock-lines")
    with live.client(fresh.slug, fresh.token) as client:
        known = product(client, "LINES-A", stock=10)
        too_much = sale_of([("LINES-A", 4, "a", True), ("LINES-B", 1, "b", True), ("LINES-A", 7, "a", True)])
        refused = client.post("/api/documents", json=too_much)
        assert_error(refused, 422, "INSUFFICIENT_STOCK", "items.2.cantidad")
        assert "hay 6 en el almacén y se piden 7" in refused.json()["errors"][0]["message"]
        sale = sale_of(
            [
                ("LINES-A", 2, "Primero", True),
                ("LINES-N", 1, "Nuevo, sin reescribir", False),
                ("LINES-A", 3, "No reescribe", False),
                ("LINES-N", 4, "Nuevo, reescrito", True),
                ("LINES-A", 1, "Último que reescribe", True),
                ("LINES-K", 1, "Guarda el primero", True),
                ("LINES-K", 1, "No cambia el primero", False),
            ]
        )
        issued = client.post("/api/documents", json=sale)
        assert issued.status_code == 200, issued.text
        number = issued.json()["data"]["number"]
        assert [
            (r["type"], r["quantity"], r["balance"], r["description"]) for r in kardex(client, known["id"])
        ] == [
            ("input", "10.0000", "10.0000", "Stock inicial"),
            ("output", "-2.0000", "8.0000", f"Factura {number}"),
            ("output", "-3.0000", "5.0000", f"Factura {number}"),
            ("output", "-1.0000", "4.0000", f"Factura {number}"),
        ]
        found = {
            row["internal_id"]: row
            for row in client.get("/api/document/search-items", params={"input": "LINES-"}).json()["data"][
                "items"
            ]
        }
        assert {code: (row["description"], row["stock"]) for code, row in found.items()} == {
            "LINES-A": ("Último que reescribe", 4),
            "LINES-N": ("Nuevo, reescrito", 0),
            "LINES-K": ("Guarda el primero", 0),
        }
        assert kardex(client, found["LINES-N"]["id"]) == kardex(client, found["LINES-K"]["id"]) == []
