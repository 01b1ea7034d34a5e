"""Fixtures of the render tests: a factura, a boleta, a credit note and a many-lines factory."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from render_samples import (
    PERSON,
    bag_line,
    free_line,
    make_document,
    taxed_line,
)

from facturador.service.domain.model import AffectedDocument, NoteInfo, SalesDocument


@pytest.fixture
def factura() -> SalesDocument:
    """F001-123: one taxed line, total 118.00."""
    return make_document((taxed_line(),))


@pytest.fixture
def factura_full() -> SalesDocument:
    """F001-123 with a taxed line, a free line and a bag line: total 118.62."""
    return make_document((taxed_line(), free_line(), bag_line()))


@pytest.fixture
def boleta() -> SalesDocument:
    """B001-45 for a person with DNI, without due date or purchase order."""
    return make_document(
        (taxed_line(),),
        doc_type="03",
        series="B001",
        number=45,
        customer=PERSON,
        due_date=None,
        purchase_order="",
    )


@pytest.fixture
def credit_note() -> SalesDocument:
    """FC01-7 cancelling F001-123."""
    return make_document(
        (taxed_line(),),
        doc_type="07",
        series="FC01",
        number=7,
        due_date=None,
        purchase_order="",
        operation_type="",
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
            lines.append(taxed_line(i, text))
        return make_document(tuple(lines))

    return build
