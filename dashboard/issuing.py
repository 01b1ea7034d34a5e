"""Pure logic of the Issue page: form values -> connector builder, live totals, errors -> widgets.

Amounts are never computed here: lines become :class:`connector.builders.Line` and the
builder computes line and header totals with :mod:`sunat.totals`. What this module adds is
the translation between the widgets of the page and the builders, and between the service's error paths
(``items.0.cantidad``, ``datos_del_cliente_o_receptor.numero_documento``) and the widgets they name.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import pandas as pd

from connector.builders import Builder, CreditNote, Customer, DebitNote, Invoice, Line, Receipt
from sunat.catalogs import AFFECTATIONS, CREDIT_NOTE_TYPES, DEBIT_NOTE_TYPES, IDENTITY_TYPES
from sunat.identity import identity_problem
from sunat.totals import DocumentTotals, LineAmounts

__all__ = [
    "AFFECTATION_CHOICES",
    "GENERAL",
    "IDENTITY_CHOICES",
    "ITEM_COLUMNS",
    "KINDS",
    "DocumentForm",
    "FormProblems",
    "Kind",
    "Preview",
    "blank_items",
    "block_owners",
    "build_document",
    "item_problems",
    "lines_from_items",
    "preview",
    "route_errors",
]


@dataclass(frozen=True)
class Kind:
    """A document the page issues: catalog 01 code, name, builder class, default series."""

    code: str
    name: str
    builder: type[Builder]
    series: str
    identity_type: str

    @property
    def is_note(self) -> bool:
        """Credit and debit notes need an affected document, a note type and a reason."""
        return self.code in ("07", "08")


KINDS: dict[str, Kind] = {
    k.code: k
    for k in (
        Kind("01", "Factura", Invoice, "F001", "6"),
        Kind("03", "Boleta de venta", Receipt, "B001", "1"),
        Kind("07", "Nota de crédito", CreditNote, "FC01", "6"),
        Kind("08", "Nota de débito", DebitNote, "FD01", "6"),
    )
}

#: Note series by the type of the affected document (F... for facturas, B... for boletas).
NOTE_SERIES = {("07", "01"): "FC01", ("07", "03"): "BC01", ("08", "01"): "FD01", ("08", "03"): "BD01"}

#: Identity types offered in the customer block (catalog 06), the usual ones first.
IDENTITY_CHOICES: dict[str, str] = {
    code: IDENTITY_TYPES[code] for code in ("6", "1", "4", "7", "0", "-") if code in IDENTITY_TYPES
}

#: Affectations offered in the items table (catalog 07).
AFFECTATION_CHOICES: dict[str, str] = dict(AFFECTATIONS)

#: Note types by document (catalog 09 for credit notes, 10 for debit notes).
NOTE_TYPES: dict[str, dict[str, str]] = {"07": dict(CREDIT_NOTE_TYPES), "08": dict(DEBIT_NOTE_TYPES)}

#: Columns of the items editor: DataFrame column -> Spanish header.
ITEM_COLUMNS: dict[str, str] = {
    "descripcion": "Descripción",
    "cantidad": "Cantidad",
    "precio": "Precio unitario",
    "afectacion": "Afectación IGV",
    "unidad": "Unidad",
    "codigo": "Código",
    "bolsa": "Bolsa plástica",
}

#: The slot of errors that name no widget of the form (shown above the submit button).
GENERAL = "general"


def blank_items(rows: int = 1) -> pd.DataFrame:
    """The initial items table: ``rows`` empty lines (taxed, NIU, quantity 1). The quantity and price
    are text columns (object dtype: the grid casts an edited cell to its column's dtype, so a text
    column over float64 drops what cannot be a float, «−2», «1,5»): what the user typed reaches
    :func:`read_number` as typed (a number cell of the grid reads «−50» as 50 or 5.00 before Python
    sees it)."""
    return pd.DataFrame(
        {
            "descripcion": pd.Series([""] * rows, dtype="object"),
            "cantidad": pd.Series(["1"] * rows, dtype="object"),
            "precio": pd.Series([None] * rows, dtype="object"),
            "afectacion": pd.Series(["10"] * rows, dtype="object"),
            "unidad": pd.Series(["NIU"] * rows, dtype="object"),
            "codigo": pd.Series([""] * rows, dtype="object"),
            "bolsa": pd.Series([False] * rows, dtype="bool"),
        }
    )


# --------------------------------------------------------------------------------------------- errors


class FormProblems(Exception):
    """Problems found before anything is sent, by widget slot (see :func:`route_errors`)."""

    def __init__(self, problems: Mapping[str, list[str]]) -> None:
        self.problems = {slot: list(messages) for slot, messages in problems.items() if messages}
        super().__init__("; ".join(m for messages in self.problems.values() for m in messages))


def _missing(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, str):
        return not value.strip()
    if isinstance(value, float) and math.isnan(value):
        return True
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


#: What a typed amount may be: digits with one decimal point, thousands grouped by commas or not.
_PLAIN = re.compile(r"(\d+(\.\d+)?|\.\d+|\d{1,3}(,\d{3})+(\.\d+)?)")
#: The signs a minus is typed with: ASCII, the Unicode minus (U+2212), en and em dashes, the small one.
_MINUS = "-\u2212\u2013\u2014\ufe63\uff0d"


class NotANumber(ValueError):
    """A cell the form cannot read as a number; the message says what was typed and why."""


def read_number(value: Any) -> Decimal | None:
    """A quantity or price cell as the exact Decimal typed (``None`` when empty). Text must be a plain
    non-negative number with a decimal point (``1250.50``, ``1,250.50``); anything else raises
    :class:`NotANumber` rather than becoming another number. A number set by the program (a note's
    lines) is taken as its shortest decimal text."""
    if _missing(value):
        return None
    if isinstance(value, bool):
        raise NotANumber(f"«{value}» no es un número.")
    if isinstance(value, Decimal):
        number = value
    elif isinstance(value, (int, float)):
        number = Decimal(repr(float(value)))
    else:
        text = str(value).strip().replace("\u00a0", "")
        if text[:1] in _MINUS:
            raise NotANumber(f"«{text}» no puede ser negativo.")
        if not _PLAIN.fullmatch(text):
            hint = " (usa punto decimal: 5.00)" if re.fullmatch(r"\d+,\d{1,2}", text) else ""
            raise NotANumber(f"«{text}» no es un número{hint}: escribe cifras con punto decimal (1250.50).")
        number = Decimal(text.replace(",", ""))
    if number < 0:
        raise NotANumber(f"«{value}» no puede ser negativo.")
    return number


def _blank(row: Mapping[str, Any]) -> bool:
    text = str(row.get("descripcion") or "").strip()
    return not text and _missing(row.get("precio"))


def item_rows(items: pd.DataFrame) -> list[tuple[int, dict[str, Any]]]:
    """``(row position, row)`` of the non-blank rows of the editor (blank = no description, no price)."""
    rows = []
    for position, row in enumerate(items.to_dict("records")):
        if not _blank(row):
            rows.append((position, row))
    return rows


def item_problems(items: pd.DataFrame) -> dict[int, list[str]]:
    """Problems of the items table by row position, before any builder runs."""
    problems: dict[int, list[str]] = {}
    for position, row in item_rows(items):
        found: list[str] = []
        if not str(row.get("descripcion") or "").strip():
            found.append(f"{ITEM_COLUMNS['descripcion']}: falta.")
        try:
            quantity = read_number(row.get("cantidad"))
        except NotANumber as exc:
            found.append(f"{ITEM_COLUMNS['cantidad']}: {exc}")
        else:
            if quantity is None or quantity <= 0:
                found.append(f"{ITEM_COLUMNS['cantidad']}: debe ser mayor que cero.")
        try:
            price = read_number(row.get("precio"))
        except NotANumber as exc:
            found.append(f"{ITEM_COLUMNS['precio']}: {exc}")
        else:
            if price is None:
                found.append(f"{ITEM_COLUMNS['precio']}: falta.")
        if str(row.get("afectacion") or "") not in AFFECTATIONS:
            found.append(f"{ITEM_COLUMNS['afectacion']}: elige un código del catálogo 07.")
        if found:
            problems[position] = found
    return problems


def lines_from_items(items: pd.DataFrame, *, prices_include_igv: bool = True) -> list[Line]:
    """Builder lines of the non-blank rows; raises :class:`FormProblems` (slot ``items``) on bad rows."""
    problems = item_problems(items)
    if problems:
        raise FormProblems(
            {"items": [_row_message(pos, msg) for pos, found in problems.items() for msg in found]}
        )
    lines: list[Line] = []
    for _position, row in item_rows(items):
        price, quantity = read_number(row["precio"]), read_number(row["cantidad"])
        assert price is not None and quantity is not None  # item_problems found none
        unit = str(row.get("unidad") or "NIU").strip() or "NIU"
        lines.append(
            Line(
                description=str(row["descripcion"]).strip(),
                quantity=quantity,
                unit_price=price if prices_include_igv else None,
                unit_value=None if prices_include_igv else price,
                affectation=str(row["afectacion"]),
                unit=unit,
                code=str(row.get("codigo") or "").strip(),
                bag_tax=bool(row.get("bolsa")) if not _missing(row.get("bolsa")) else False,
            )
        )
    if not lines:
        raise FormProblems({"items": ["Agrega al menos un ítem con descripción y precio."]})
    return lines


def _row_message(position: int, message: str) -> str:
    return f"Ítem {position + 1} · {message}"


# --------------------------------------------------------------------------------------------- form


@dataclass
class DocumentForm:
    """What the Issue page collected, before it becomes a builder."""

    kind: str = "01"
    series: str = "F001"
    issue_date: dt.date | None = None
    currency: str = "PEN"
    exchange_rate: float | None = None
    identity_type: str = "6"
    customer_number: str = ""
    customer_name: str = ""
    customer_address: str = ""
    customer_email: str = ""
    items: pd.DataFrame = field(default_factory=blank_items)
    prices_include_igv: bool = True
    send: bool = True
    purchase_order: str = ""
    note_type: str = "01"
    reason: str = ""
    affected_external_id: str = ""
    affected_number: str = ""
    affected_type: str = "01"


_NUMBER = re.compile(r"^\s*([A-Za-z0-9]{4})\s*-\s*0*(\d{1,8})\s*$")


def parse_document_number(text: str) -> tuple[str, int] | None:
    """``"F001-12"`` -> ``("F001", 12)``; ``None`` when it is not a series and number."""
    match = _NUMBER.match(text or "")
    return (match.group(1).upper(), int(match.group(2))) if match else None


def build_document(form: DocumentForm) -> Builder:
    """The connector builder of the form; raises :class:`FormProblems` with every problem found.

    Core checks only (something to send at all): the service and the plugins validate the rest, and
    their answers come back through :func:`route_errors`.
    """
    kind = KINDS.get(form.kind)
    if kind is None:
        raise FormProblems({"kind": [f"Tipo de documento no soportado: {form.kind}"]})
    problems: dict[str, list[str]] = {}
    if not form.series.strip():
        problems["series"] = ["Indica la serie."]
    if not form.customer_number.strip() and form.identity_type != "-":
        problems["customer.number"] = ["Indica el número de documento del cliente."]
    elif form.identity_type in ("1", "6"):
        found = identity_problem(form.identity_type, form.customer_number.strip())
        if found:  # checked here so SUNAT never sees a wrong check digit (3202 / 2017)
            problems["customer.number"] = [found]
    if not form.customer_name.strip():
        problems["customer.name"] = ["Indica el nombre o la razón social del cliente."]
    affected: tuple[str, str, int] | None = None
    if kind.is_note:
        if not form.reason.strip():
            problems["note.reason"] = ["Indica el motivo o sustento de la nota."]
        if not form.affected_external_id.strip():
            parsed = parse_document_number(form.affected_number)
            if parsed is None:
                problems["note.affected"] = ["Elige el documento afectado o escribe su número (F001-123)."]
            else:
                affected = (form.affected_type, parsed[0], parsed[1])
    lines: list[Line] = []
    try:
        lines = lines_from_items(form.items, prices_include_igv=form.prices_include_igv)
    except FormProblems as exc:
        problems.update(exc.problems)
    except ValueError as exc:
        problems["items"] = [str(exc)]
    if problems:
        raise FormProblems(problems)

    common: dict[str, Any] = {
        "series": form.series.strip().upper(),
        "customer": Customer(
            identity_type=form.identity_type,
            number=form.customer_number.strip() or "-",
            name=form.customer_name.strip(),
            address=form.customer_address.strip(),
            email=form.customer_email.strip(),
        ),
        "lines": lines,
        "currency": form.currency,
        "send": form.send,
    }
    if form.issue_date is not None:
        common["issue_date"] = form.issue_date
    if form.exchange_rate:
        common["exchange_rate"] = Decimal(repr(float(form.exchange_rate)))
    try:
        if kind.is_note:
            note: dict[str, Any] = {"note_type": form.note_type, "reason": form.reason.strip()}
            if form.affected_external_id.strip():
                note["affected_external_id"] = form.affected_external_id.strip()
            else:
                note["affected"] = affected
            builder = kind.builder(**common, **note)
        else:
            extra: dict[str, Any] = {}
            if form.purchase_order.strip():
                extra["purchase_order"] = form.purchase_order.strip()
            builder = kind.builder(**common, **extra)
        builder.line_amounts()  # the amounts must compute (quantities, prices, affectations)
    except ValueError as exc:
        raise FormProblems({"items": [str(exc)]}) from exc
    return builder


@dataclass(frozen=True)
class Preview:
    """What the page shows live: the amounts of each line and the header totals."""

    lines: list[LineAmounts]
    totals: DocumentTotals

    def lines_frame(self, descriptions: Sequence[str]) -> pd.DataFrame:
        """The amounts per line that the document will carry (a read-only table under the editor), as
        text: the unit value and price exactly as they go in the XML, the rest to the cent."""
        return pd.DataFrame(
            {
                "Descripción": list(descriptions),
                "Cantidad": [f"{a.quantity:f}" for a in self.lines],
                "Valor unitario": [f"{a.unit_value:f}" for a in self.lines],
                "Precio unitario": [f"{a.unit_price:f}" for a in self.lines],
                "Valor venta": [f"{a.value:,.2f}" for a in self.lines],
                "IGV": [f"{a.igv:,.2f}" for a in self.lines],
                "ICBPER": [f"{a.icbper:,.2f}" for a in self.lines],
                "Total": [f"{a.total:,.2f}" for a in self.lines],
            }
        )


def preview(builder: Builder) -> Preview:
    """Line amounts and totals of a builder (computed by ``sunat.totals`` through the builder)."""
    amounts = builder.line_amounts()
    return Preview(lines=amounts, totals=builder.totals())


# --------------------------------------------------------------------------------------------- routing

#: Service paths (prefixes) of the core payload -> slot of the widget that sets them.
FIELD_SLOTS: dict[str, str] = {
    "serie_documento": "series",
    "numero_documento": "series",
    "codigo_tipo_documento": "kind",
    "fecha_de_emision": "issue_date",
    "hora_de_emision": "issue_date",
    "fecha_de_vencimiento": "issue_date",
    "codigo_tipo_moneda": "currency",
    "factor_tipo_de_cambio": "currency",
    "codigo_tipo_operacion": "kind",
    "numero_orden_de_compra": "purchase_order",
    "datos_del_cliente_o_receptor.codigo_tipo_documento_identidad": "customer.identity_type",
    "datos_del_cliente_o_receptor.numero_documento": "customer.number",
    "datos_del_cliente_o_receptor.apellidos_y_nombres_o_razon_social": "customer.name",
    "datos_del_cliente_o_receptor.direccion": "customer.address",
    "datos_del_cliente_o_receptor.correo_electronico": "customer.email",
    "datos_del_cliente_o_receptor": "customer.name",
    "codigo_tipo_nota": "note.type",
    "motivo_o_sustento_de_nota": "note.reason",
    "documento_afectado": "note.affected",
    "items": "items",
    "totales": "items",
    "acciones": GENERAL,
}

#: Item keys of the service -> header of the column that sets them.
ITEM_FIELDS: dict[str, str] = {
    "descripcion": ITEM_COLUMNS["descripcion"],
    "cantidad": ITEM_COLUMNS["cantidad"],
    "valor_unitario": ITEM_COLUMNS["precio"],
    "precio_unitario": ITEM_COLUMNS["precio"],
    "codigo_tipo_precio": ITEM_COLUMNS["afectacion"],
    "codigo_tipo_afectacion_igv": ITEM_COLUMNS["afectacion"],
    "unidad_de_medida": ITEM_COLUMNS["unidad"],
    "codigo_interno": ITEM_COLUMNS["codigo"],
    "total_impuestos_bolsa_plastica": ITEM_COLUMNS["bolsa"],
}

_ITEM_PATH = re.compile(r"^items\.(\d+)(?:\.(.+))?$")


def _slot_of(path: str) -> str | None:
    """The core slot of a service path (longest matching prefix), or ``None``."""
    best: str | None = None
    for prefix in FIELD_SLOTS:
        if (path == prefix or path.startswith(prefix + ".")) and (best is None or len(prefix) > len(best)):
            best = prefix
    return FIELD_SLOTS[best] if best is not None else None


def _item_message(path: str, message: str) -> str:
    match = _ITEM_PATH.match(path)
    if not match:
        return message
    position, rest = int(match.group(1)), match.group(2) or ""
    column = ITEM_FIELDS.get(rest.split(".", 1)[0], rest) if rest else ""
    return _row_message(position, f"{column}: {message}" if column else message)


def route_errors(
    field_errors: Iterable[Any],
    plugin_keys: Iterable[str] = (),
    *,
    owners: Mapping[str, str] | None = None,
    message: str = "",
) -> dict[str, list[str]]:
    """Map the service's (or a plugin's) field errors to the widgets of the form.

    ``field_errors`` are :class:`connector.errors.FieldError` (``field``, ``message``).
    A path that is a plugin field key goes to ``plugin:<key>``; a path under a payload block that a
    plugin section writes (``owners``: top-level key -> section, see :func:`block_owners`) goes to
    ``section:<section>``; core paths go to their slot (:data:`FIELD_SLOTS`; item errors name the row
    and the column: ``Ítem 1 · Cantidad: ...``); anything else to :data:`GENERAL` with its path.
    ``message`` (the error's own message) goes to :data:`GENERAL` when no field error says it.
    """
    keys = set(plugin_keys)
    blocks = dict(owners or {})
    routed: dict[str, list[str]] = {}
    for error in field_errors:
        path = str(getattr(error, "field", "") or "")
        text = str(getattr(error, "message", "") or "")
        head = path.split(".", 1)[0]
        if path in keys:
            slot, shown = f"plugin:{path}", text
        elif head in blocks:
            slot, shown = f"section:{blocks[head]}", text
        elif path and (core := _slot_of(path)) is not None:
            slot = core
            shown = _item_message(path, text) if slot == "items" else text
        else:
            slot, shown = GENERAL, (f"{path}: {text}" if path else text)
        messages = routed.setdefault(slot, [])
        if shown not in messages:
            messages.append(shown)
    if message and not any(message in texts for texts in routed.values()):
        routed.setdefault(GENERAL, []).insert(0, message)
    return routed


def block_owners(
    prepare: Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]],
    payload: Mapping[str, Any],
    values: Mapping[str, Any],
    sections: Mapping[str, Iterable[str]],
) -> dict[str, str]:
    """Which plugin section writes each top-level key of the payload.

    ``prepare(payload, values)`` is the plugins' pipeline (``plugin_manager.prepare_payload`` for the
    documents family); each section's values are applied alone and the keys it adds or changes are
    attributed to it (``{"detraccion": "Detracción", "cuotas": "Pago al crédito", ...}``). Keys the core
    form also writes keep their core widget unless only the section changes them.
    """
    owners: dict[str, str] = {}
    base = dict(payload)
    for section, field_keys in sections.items():
        wanted = set(field_keys)
        alone = {key: value for key, value in values.items() if key in wanted}
        try:
            prepared = prepare(dict(base), alone)
        except Exception:  # a half-filled section may make a plugin refuse: nothing to attribute
            continue
        for key, value in prepared.items():
            if key not in base or base[key] != value:
                owners.setdefault(key, section)
    return owners


def plugin_values(values: Mapping[str, Any]) -> dict[str, Any]:
    """Plugin form values ready for ``form_values``: tables as lists of dicts without blank rows."""
    ready: dict[str, Any] = {}
    for key, value in values.items():
        if isinstance(value, pd.DataFrame):
            rows = [
                {k: (None if _missing(v) else v) for k, v in row.items()} for row in value.to_dict("records")
            ]
            ready[key] = [row for row in rows if any(v not in (None, "") for v in row.values())]
        else:
            ready[key] = value
    return ready


# --------------------------------------------------------------------------------------------- notes

#: Note types that take the whole affected document, unchanged (catalog 09: 01 anulación de la
#: operación, 02 anulación por error en el RUC, 06 devolución total).
WHOLE_DOCUMENT = frozenset({"01", "02", "06"})
#: Note types that return part of the lines: quantities editable, prices fixed (07 devolución por ítem).
BY_QUANTITY = frozenset({"07"})
#: Note types that lower prices line by line: prices editable, quantities fixed (05 descuento por ítem,
#: 09 disminución en el valor).
BY_PRICE = frozenset({"05", "09"})
#: Note types that are one amount of their own (04 descuento global; debit notes 01 intereses por mora,
#: 02 aumento en el valor, 03 penalidades): one line to write.
ONE_AMOUNT = frozenset({"04"})


def _text(number: float) -> str:
    """A number as the text a user would type for it (``59.0`` -> ``59``, ``0.1`` -> ``0.1``)."""
    text = f"{Decimal(repr(number)):f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def note_items(
    lines: Sequence[Mapping[str, Any]], kind: str, note_type: str
) -> tuple[pd.DataFrame, list[str]]:
    """The items editor of a note started from its document's ``lines`` (a detailed list row's ``items``):
    the rows and the columns the user may not change, by the note type.

    Credit notes: the whole document unchanged (01, 02, 06: every column fixed); a partial return (07:
    only the quantities); a discount per line (05, 09: only the prices); a global discount (04: one line
    to write). Debit notes and other types start from the lines with everything editable."""
    rows = []
    for line in lines:
        quantity = float(line.get("quantity") or 0)
        value = float(line.get("total_value") or 0)
        total = float(line.get("total") or 0)
        affectation = str(line.get("affectation_igv_type_id") or "10")
        taxed = affectation == "10"
        unit_price = (total / quantity) if quantity and taxed else (value / quantity if quantity else 0.0)
        rows.append(
            {
                "descripcion": str(line.get("description") or ""),
                "cantidad": _text(quantity),
                "precio": _text(round(unit_price, 6)),
                "afectacion": affectation if affectation in AFFECTATIONS else "10",
                "unidad": str(line.get("unit_type_id") or "NIU"),
                "codigo": str(line.get("internal_id") or ""),
                "bolsa": bool(float(line.get("total_plastic_bag_taxes") or 0)),
            }
        )
    columns = list(ITEM_COLUMNS)
    if kind == "07" and note_type in ONE_AMOUNT:
        frame = blank_items(1)
        frame.loc[0, "descripcion"] = "Descuento global"
        return frame, ["cantidad", "afectacion", "unidad", "bolsa"]
    frame = pd.DataFrame(rows, columns=columns) if rows else blank_items(1)
    frame = frame.astype(blank_items(0).dtypes.to_dict())
    if kind != "07":
        return frame, []
    if note_type in WHOLE_DOCUMENT:
        return frame, columns
    if note_type in BY_QUANTITY:
        return frame, [c for c in columns if c != "cantidad"]
    if note_type in BY_PRICE:
        return frame, [c for c in columns if c != "precio"]
    return frame, []


# --------------------------------------------------------------------------------------------- result


@dataclass(frozen=True)
class Outcome:
    """How an issued document stands, for people: a kind of box (``success``, ``warning``, ``error``,
    ``info``), a headline and what to do next."""

    kind: str
    headline: str
    next_step: str


def outcome(name: str, number: str, state: str, code: str = "", description: str = "") -> Outcome:
    """The state SUNAT left the document in, said plainly (never "emitida" in green for a rejection)."""
    answer = f" (código {code}: {description})" if code else ""
    if state == "05":
        return Outcome("success", f"{name} {number} emitida y aceptada por SUNAT.", "")
    if state == "07":
        return Outcome(
            "warning",
            f"{name} {number} emitida y aceptada con observaciones{answer}.",
            "Es válida; corrija lo observado en los próximos comprobantes.",
        )
    if state == "09":
        return Outcome(
            "error",
            f"{name} {number} rechazada por SUNAT{answer}.",
            f"El número {number} queda usado y el comprobante no tiene validez (no se anula): "
            "corrija el dato y emita un comprobante nuevo.",
        )
    if code:  # an exception: nothing decided, the document stays registered
        return Outcome(
            "warning",
            f"{name} {number} registrada, pero SUNAT no la procesó{answer}.",
            "Reenvíela desde Documentos («Enviar a SUNAT»).",
        )
    boleta = number[:1].upper() == "B"
    return Outcome(
        "info",
        f"{name} {number} registrada, sin enviar a SUNAT.",
        "Se declara en el resumen diario (página Resúmenes)."
        if boleta
        else "Envíela desde Documentos («Enviar a SUNAT»).",
    )
