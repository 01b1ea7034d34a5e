"""``client.inventory``: stock inputs and outputs (``POST /api/inventory/transaction``)
and a product's kardex.

:meth:`InventoryResource.add` and :meth:`~InventoryResource.remove` run the family's plugin pipeline
(``facturador_issued`` gets the service's message); :meth:`~InventoryResource.kardex` lists the moves
of a product as a :class:`~connector.lists.RecordList` (``.to_dataframe()``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, ClassVar

from connector.errors import ValidationError
from connector.lists import RecordList, pages
from connector.parsing import parse_decimal, text
from connector.resources import Reply, Resource, offered
from sunat import catalogs

__all__ = ["KARDEX_COLUMNS", "InventoryResource", "KardexMove"]


@dataclass(frozen=True)
class KardexMove:
    """One move of a product's kardex: ``quantity`` positive for an input, negative for an output."""

    id: int
    type: str
    transaction: str
    transaction_description: str
    quantity: Decimal
    balance: Decimal
    description: str
    warehouse_id: int
    document_id: int | None = None
    sale_note_id: int | None = None
    date: str = ""

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> KardexMove:
        """Build from a kardex row."""
        return cls(
            id=int(row["id"]),
            type=text(row.get("type")),
            transaction=text(row.get("inventory_transaction_id")),
            transaction_description=text(row.get("inventory_transaction_description")),
            quantity=parse_decimal(row.get("quantity")),
            balance=parse_decimal(row.get("balance")),
            description=text(row.get("description")),
            warehouse_id=int(row.get("warehouse_id") or 0),
            document_id=row.get("document_id"),
            sale_note_id=row.get("sale_note_id"),
            date=text(row.get("date")),
        )


#: The columns of a kardex as a DataFrame.
KARDEX_COLUMNS = ("id", "date", "type", "transaction", "quantity", "balance", "description")


def _message(reply: Reply) -> str:
    """The service's message; a refusal real tenants answer with HTTP 200 is a ValidationError."""
    if reply.body.get("success") is False:
        raise ValidationError(
            text(reply.body.get("message")), error_code="INVENTORY_REFUSED", body=reply.body
        )
    return text(reply.body.get("message"))


class InventoryResource(Resource):
    """Stock inputs and outputs (:meth:`add`, :meth:`remove`) and the kardex of a product."""

    family: ClassVar[str] = "inventory"

    def _move(
        self,
        kind: str,
        code: str,
        quantity: Decimal | float | int | str,
        transaction: str,
        warehouse_id: int | None,
        form_values: Mapping[str, Any] | None,
    ) -> str:
        payload: dict[str, Any] = {
            "type": kind,
            "inventory_transaction_id": transaction,
            "item_code": code,
            "quantity": str(quantity),
        }
        if warehouse_id is not None:
            payload["warehouse_id"] = warehouse_id
        return self._submit(
            "/api/inventory/transaction",
            payload,
            _message,
            form_values=form_values,
            changes=("items.lists", self.lists_tag),
        )

    def add(
        self,
        code: str,
        quantity: Decimal | float | int | str,
        *,
        transaction: str = "02",
        warehouse_id: int | None = None,
        form_values: Mapping[str, Any] | None = None,
    ) -> str:
        """Put ``quantity`` of product ``code`` into the warehouse (an input type of
        ``sunat.catalogs.INVENTORY_INPUT_TYPES``; ``02`` purchase by default); the service's message."""
        if transaction not in catalogs.INVENTORY_INPUT_TYPES:
            raise ValueError(f"{transaction!r} is not an input operation type")
        return self._move("input", code, quantity, transaction, warehouse_id, form_values)

    def remove(
        self,
        code: str,
        quantity: Decimal | float | int | str,
        *,
        transaction: str = "01",
        warehouse_id: int | None = None,
        form_values: Mapping[str, Any] | None = None,
    ) -> str:
        """Take ``quantity`` out (an output type, ``01`` sale by default).

        :raises ValidationError: more than the warehouse holds (nothing moves).
        """
        if transaction not in catalogs.INVENTORY_OUTPUT_TYPES:
            raise ValueError(f"{transaction!r} is not an output operation type")
        return self._move("output", code, quantity, transaction, warehouse_id, form_values)

    def kardex(self, item_id: int, *, fresh: bool = False) -> RecordList[KardexMove]:
        """Every move of product ``item_id``, oldest first (all pages; this service only: real tenants
        raise :class:`~connector.errors.NotOfferedError`)."""
        with offered("el kárdex de sus productos"):
            rows = list(
                pages(
                    self._http,
                    f"/api/items/{int(item_id)}/kardex",
                    tag=self.lists_tag,
                    fresh=fresh,
                    what="el kárdex",
                )
            )
        return RecordList((KardexMove.from_row(row) for row in rows), columns=KARDEX_COLUMNS)
