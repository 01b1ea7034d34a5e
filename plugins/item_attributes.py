"""Item attributes (catalog 55, ``items[].datos_adicionales``) and the vehicle plate (``numero_de_placa``)
for facturas, boletas and notes.

Form fields (family ``documents``): ``item_attributes.plate`` (the plate number: the service adds it to
every line as attribute 5010) and ``item_attributes.rows``, a table with ``item`` (the line number, 1 =
the first line), ``codigo`` (catalog 55), ``descripcion`` (empty: the catalog's name) and ``valor``.

Prepare (``docs/scenarios.md``)::

    "numero_de_placa": "ABC-123",
    "items": [{..., "datos_adicionales": [{"codigo": "7000", "descripcion": "Gastos Art. 37 Renta: ...",
                                           "valor": "..."}]}]

The XML carries each as ``cac:Item/cac:AdditionalItemProperty`` (Name, NameCode, Value). Validate:
codes of catalog 55, a description, a line that exists.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connector import FieldError, FormField, hookimpl
from plugins._blocks import number
from sunat import catalogs

SECTION = "Datos adicionales del ítem"
PLATE = "item_attributes.plate"
ROWS = "item_attributes.rows"
MAX_TEXT = 100  # the service's bound on descripcion / valor


@hookimpl(families="documents")
def facturador_form_fields(document_type: str | None) -> list[FormField]:
    """The plate number and the table of item attributes."""
    codes = tuple((code, f"{code} - {name}") for code, name in catalogs.ITEM_PROPERTIES.items())
    return [
        FormField(
            PLATE,
            "Número de placa del vehículo (dato 5010 de cada ítem)",
            "text",
            help="Vacío: sin placa.",
            section=SECTION,
        ),
        FormField(
            ROWS,
            "Datos adicionales por ítem (catálogo 55)",
            "table",
            help="Ítem: el número de línea (1 = la primera). Descripción vacía: la del catálogo.",
            section=SECTION,
            columns=(
                FormField("item", "Ítem", "number", min_value=1),
                FormField("codigo", "Código", "select", options=codes),
                FormField("descripcion", "Descripción", "text"),
                FormField("valor", "Valor", "text"),
            ),
        ),
    ]


@hookimpl(families="documents")
def facturador_prepare_payload(payload: dict[str, Any], values: dict[str, Any]) -> dict[str, Any] | None:
    """Set ``numero_de_placa`` and append the table's rows to their lines' ``datos_adicionales``."""
    plate = str(values.get(PLATE) or "").strip()
    items = [dict(item) for item in payload.get("items") or [] if isinstance(item, Mapping)]
    changed = False
    for row in values.get(ROWS) or []:
        if not isinstance(row, Mapping):
            continue
        index, code = number(row.get("item")), str(row.get("codigo") or "")
        if index is None or code not in catalogs.ITEM_PROPERTIES or not 1 <= int(index) <= len(items):
            continue
        item = items[int(index) - 1]
        entry = {
            "codigo": code,
            "descripcion": str(row.get("descripcion") or "").strip()
            or catalogs.ITEM_PROPERTIES[code][:MAX_TEXT],
            "valor": str(row.get("valor") or "").strip(),
        }
        item["datos_adicionales"] = [*(dict(e) for e in item.get("datos_adicionales") or []), entry]
        changed = True
    if not plate and not changed:
        return None
    prepared = {**payload, "items": items}
    if plate:
        prepared["numero_de_placa"] = plate
    return prepared


@hookimpl(families="documents")
def facturador_validate_payload(payload: dict[str, Any]) -> list[FieldError]:
    """Attributes with a code and a description. A code catalog 55 does not list is taken, as SUNAT takes
    it (its stylesheets do not check the catalog): the 3000 "Garantía" real clients send."""
    problems: list[FieldError] = []
    for i, item in enumerate(payload.get("items") or []):
        if not isinstance(item, Mapping):
            continue
        for j, entry in enumerate(item.get("datos_adicionales") or []):
            path = f"items.{i}.datos_adicionales.{j}"
            if not isinstance(entry, Mapping):
                problems.append(FieldError(path, "Cada dato adicional debe ser un objeto."))
                continue
            if not str(entry.get("codigo") or "").strip():
                problems.append(
                    FieldError(f"{path}.codigo", "Falta el código del dato adicional (catálogo 55).")
                )
            if not str(entry.get("descripcion") or "").strip():
                problems.append(FieldError(f"{path}.descripcion", "Falta la descripción del dato adicional."))
    return problems
