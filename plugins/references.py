"""Related documents (``relacionados``) and dispatch guides (``guias``) of facturas, boletas and notes.

Form fields (family ``documents``): ``references.related``, a table of ``numero`` and
``codigo_tipo_documento`` (catalog 12: 04-09, 99; advances go through the advances plugin) with an
optional ``monto``; ``references.guides``, a table of ``numero`` (SERIE-NUMERO) and
``codigo_tipo_documento`` (09 guía de remisión remitente, 31 transportista).

Prepare (``docs/scenarios.md``)::

    "relacionados": [{"numero": "OC-77", "codigo_tipo_documento": "99", "monto": 0}],
    "guias": [{"numero": "T001-9", "codigo_tipo_documento": "09"}]

The XML carries them as ``cac:AdditionalDocumentReference`` / ``cac:DespatchDocumentReference``.
Validate: a number, the catalog codes, a guide number ``SERIE-NUMERO``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from connector import FieldError, FormField, hookimpl
from plugins._blocks import number
from sunat import catalogs

SECTION = "Documentos relacionados y guías"
RELATED = "references.related"
GUIDES = "references.guides"
#: Catalog 12 codes offered here (01-03 and 10 are corrections and advances, built elsewhere).
RELATED_CODES = tuple(
    (code, f"{code} - {name}")
    for code, name in catalogs.RELATED_DOCUMENT_TYPES.items()
    if code not in ("01", "02", "03", "10")
)
GUIDE_CODES = (("09", "09 - Guía de remisión remitente"), ("31", "31 - Guía de remisión transportista"))
GUIDE_NUMBER = re.compile(r"^[A-Z0-9]{1,4}-\d{1,8}$")


@hookimpl(families="documents")
def facturador_form_fields(document_type: str | None) -> list[FormField]:
    """The tables of related documents and dispatch guides."""
    return [
        FormField(
            RELATED,
            "Documentos relacionados (catálogo 12)",
            "table",
            section=SECTION,
            columns=(
                FormField("numero", "Número", "text"),
                FormField("codigo_tipo_documento", "Tipo", "select", options=RELATED_CODES),
                FormField("monto", "Monto", "number", min_value=0),
            ),
        ),
        FormField(
            GUIDES,
            "Guías de remisión",
            "table",
            help="Número SERIE-NUMERO, por ejemplo T001-9.",
            section=SECTION,
            columns=(
                FormField("numero", "Número", "text"),
                FormField("codigo_tipo_documento", "Tipo", "select", options=GUIDE_CODES),
            ),
        ),
    ]


def _rows(rows: Any, codes: tuple[tuple[str, str], ...], default: str) -> list[dict[str, Any]]:
    found = []
    for row in rows or []:
        if not isinstance(row, Mapping) or not str(row.get("numero") or "").strip():
            continue
        code = str(row.get("codigo_tipo_documento") or default)
        entry: dict[str, Any] = {
            "numero": str(row["numero"]).strip().upper()
            if codes is GUIDE_CODES
            else str(row["numero"]).strip(),
            "codigo_tipo_documento": code if code in dict(codes) else default,
        }
        amount = number(row.get("monto"))
        if codes is RELATED_CODES and amount is not None:
            entry["monto"] = float(amount)
        found.append(entry)
    return found


@hookimpl(families="documents")
def facturador_prepare_payload(payload: dict[str, Any], values: dict[str, Any]) -> dict[str, Any] | None:
    """Append the tables' rows to ``relacionados`` and ``guias``."""
    related = _rows(values.get(RELATED), RELATED_CODES, "99")
    guides = _rows(values.get(GUIDES), GUIDE_CODES, "09")
    if not related and not guides:
        return None
    prepared = dict(payload)
    if related:
        prepared["relacionados"] = [*(dict(e) for e in payload.get("relacionados") or []), *related]
    if guides:
        prepared["guias"] = [*(dict(e) for e in payload.get("guias") or []), *guides]
    return prepared


@hookimpl(families="documents")
def facturador_validate_payload(payload: dict[str, Any]) -> list[FieldError]:
    """A number and a catalog code for each; guides numbered SERIE-NUMERO."""
    problems: list[FieldError] = []
    for key, codes in (("relacionados", catalogs.RELATED_DOCUMENT_TYPES), ("guias", dict(GUIDE_CODES))):
        for i, entry in enumerate(payload.get(key) or []):
            path = f"{key}.{i}"
            if not isinstance(entry, Mapping):
                problems.append(FieldError(path, "Cada documento debe ser un objeto."))
                continue
            numero = str(entry.get("numero") or "").strip()
            if not numero:
                problems.append(FieldError(f"{path}.numero", "Falta el número del documento."))
            elif key == "guias" and not GUIDE_NUMBER.match(numero):
                problems.append(
                    FieldError(f"{path}.numero", "La guía debe ser SERIE-NUMERO (por ejemplo T001-9).")
                )
            if str(entry.get("codigo_tipo_documento") or "") not in codes:
                problems.append(
                    FieldError(f"{path}.codigo_tipo_documento", "El tipo de documento no es válido.")
                )
    return problems
