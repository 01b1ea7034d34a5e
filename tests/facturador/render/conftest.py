"""Fixtures of the render tests: a factura, a boleta, a credit note and a many-lines factory."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from facturador.issued import AffectedDocument, NoteInfo, SalesDocument
from tests.samples.documents import LEGEND_1002, PRINTED_PERSON, line, printed_factura, printed_line


@pytest.fixture
def factura() -> SalesDocument:
    """F001-123: one taxed line, total 118.00."""
    return printed_factura()


@pytest.fixture
def factura_full() -> SalesDocument:
    """F001-123 with a taxed line, a free line and a bag line: total 118.62."""
    bonus = line(
        2,
        description="Mouse inalámbrico (bonificación)",
        quantity="1",
        unit_value="10",
        affectation="15",
        internal_code="P002",
    )
    bag = line(
        3,
        description="Bolsa plástica",
        quantity="1",
        unit_value="0.10",
        icbper_per_unit="0.50",
        internal_code="BOLSA",
    )
    return printed_factura((printed_line(), bonus, bag), extra_legends=(LEGEND_1002,))


@pytest.fixture
def boleta() -> SalesDocument:
    """B001-45 for a person with DNI, without due date or purchase order."""
    return printed_factura(
        doc_type="03", series="B001", number=45, customer=PRINTED_PERSON, due_date=None, purchase_order=""
    )


@pytest.fixture
def credit_note() -> SalesDocument:
    """FC01-7 cancelling F001-123."""
    return printed_factura(
        doc_type="07",
        series="FC01",
        number=7,
        due_date=None,
        purchase_order="",
        note=NoteInfo("01", "Anulación por error en el monto", AffectedDocument("01", "F001", "123")),
    )


@pytest.fixture
def many_lines() -> Callable[[int], SalesDocument]:
    """Factory: a factura with ``n`` taxed lines (every 7th with a long, wrapping description)."""

    def build(n: int) -> SalesDocument:
        lines = []
        for i in range(1, n + 1):
            text = f"Artículo de prueba número {i}"
            if i % 7 == 0:
                text += " — descripción larga que ocupa varias líneas en la tabla del comprobante" * 3
            lines.append(printed_line(i, text))
        return printed_factura(tuple(lines))

    return build
