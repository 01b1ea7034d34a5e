"""The request bodies of the dispatch guides (``docs/facturador_pro_api.md``, dispatch guides), declared once
for the check and the OpenAPI contract, and read into a :class:`~facturador.issued.Dispatch`.

What the service refuses (422 naming the field): missing or malformed keys, codes outside their catalogs
(20 transfer reasons, 18 transport modes, KGM/TNE, 06 identity types, 61 related documents), a transport
mode without what it needs (a carrier for 01; a driver with names and licence and a vehicle for 02 and
carrier guides), a transfer date before the issue date, an issue date in the future, a line naming a
product the tenant does not have without its description and unit. Formats SUNAT itself judges (plates,
licences, MTC numbers, ubigeos in catalog 13) travel to the GRE API and come back as its answer.

What real clients send and real Facturador PRO takes (docs/scenarios.md, "What real clients send"):
lines with only ``codigo_interno`` and ``cantidad`` (description and unit from the tenant's product); the
plate at the top level (``numero_de_placa``) instead of ``vehiculo``; a driver with only its document
where no driver is written (public transport); ``fecha_de_traslado`` as ``DD-MM-AAAA``; for a carrier's
guide, the places in ``direcciones_proveedores.remitente`` / ``.destinatario`` and the freight payer's
identity in ``pagador_flete``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from facturador.domain.dispatch_links import LinkedDocument
from facturador.domain.document_schema import CUSTOMER, NAME, SERIES
from facturador.domain.fields import Boolean, Code, Date, List, Number, Object, Text, Time
from facturador.domain.reader import Reader
from facturador.issued import (
    Dispatch,
    DispatchDocument,
    DispatchLine,
    DispatchParty,
    Driver,
    Issuer,
    Place,
)
from sunat import catalogs

__all__ = ["CARRIER_BODY", "DISPATCH_BODY", "GUIDE_QUERY", "read_dispatch"]

_IDENTITY = Code(
    "Tipo de documento de identidad.", codes=catalogs.IDENTITY_TYPES, catalog="catálogo 06", upper=True
)
_UBIGEO = Text(
    "Ubigeo INEI de 6 dígitos.",
    required=True,
    pattern="^[0-9]{6}$",
    pattern_message="El código ubigeo debe contener 6 dígitos",
)
PLACE = Object(
    name="DispatchPlace",
    description="Punto de partida o de llegada.",
    required=True,
    fields={
        "ubigeo": _UBIGEO,
        "direccion": Text("Dirección.", required=True, max_length=100),
        "codigo_del_domicilio_fiscal": Text("Código de establecimiento (SUNAT).", max_length=4),
    },
)
PERSON = Object(
    name="DispatchPerson",
    description="Remitente o destinatario de una guía de transportista.",
    fields={
        "codigo_tipo_documento_identidad": _IDENTITY.but(required=True),
        "descripcion_tipo_documento_identidad": Text(max_length=100),
        "numero_documento": Text("Número de documento.", required=True, max_length=15),
        "apellidos_y_nombres_o_razon_social": NAME.but(description="Nombre o razón social.", required=True),
    },
)
CARRIER = Object(
    name="DispatchCarrier",
    description="El transportista (transporte público, modalidad 01).",
    fields={
        "codigo_tipo_documento_identidad": _IDENTITY.but(required=True),
        "numero_documento": Text("RUC del transportista.", required=True, max_length=15),
        "apellidos_y_nombres_o_razon_social": NAME.but(description="Razón social.", required=True),
        "numero_mtc": Text("Número de registro MTC.", max_length=20),
    },
)
DRIVER = Object(
    name="DispatchDriver",
    description="Un conductor (transporte privado: nombres y licencia requeridos; en el público no se "
    "escribe).",
    fields={
        "codigo_tipo_documento_identidad": _IDENTITY.but(required=True),
        "numero_documento": Text("Número de documento.", required=True, max_length=15),
        "nombres": Text("Apellidos y nombres (APELLIDOS, NOMBRES).", max_length=250),
        "numero_licencia": Text("Número de licencia de conducir.", max_length=10, upper=True),
        "telefono": Text(max_length=30),
    },
)
#: What SUNAT's GRE rules require of a driver that is written (private transport and carrier guides).
DRIVER_RULES = {
    "nombres": "El conductor requiere sus apellidos y nombres (reglas SUNAT 3360 y 3361).",
    "numero_licencia": "El conductor requiere su número de licencia de conducir (regla SUNAT 2572).",
}
VEHICLE = Object(
    name="DispatchVehicle",
    description="Un vehículo.",
    fields={
        "numero_de_placa": Text("Placa (sin guiones).", required=True, max_length=8, upper=True),
        "modelo": Text(max_length=100),
        "marca": Text(max_length=100),
        "certificado_habilitacion_vehicular": Text(
            "Certificado de habilitación vehicular (TUC).", max_length=15
        ),
    },
)
RELATED = Object(
    name="DispatchRelatedDocument",
    description="Un documento relacionado al traslado (catálogo 61).",
    fields={
        "numero": Text("Serie y número (F001-1); no va con external_id.", max_length=100),
        "external_id": Text(
            "O bien el código externo de una factura o boleta de esta empresa (toma su número y tipo).",
            max_length=36,
        ),
        "empresa": Text(max_length=250),
        "ruc": Text("RUC del emisor del documento.", pattern="^([0-9]{11})?$", max_length=11),
        "documento": Object(
            name="DispatchRelatedType",
            fields={
                "id": Code(
                    "Tipo (catálogo 61).",
                    required=True,
                    codes=catalogs.GRE_RELATED_DOCUMENTS,
                    catalog="catálogo 61",
                ),
                "descripcion": Text(max_length=120),
            },
        ),
    },
)
AFFECTED = Object(
    name="DispatchAffectedDocument",
    description="La factura o boleta de esta empresa que la guía acompaña (se agrega como documento "
    "relacionado): por external_id o por serie, número y tipo.",
    fields={
        "external_id": Text("Código externo de la factura o boleta.", max_length=36),
        "serie_documento": Text("Serie (F001, B001).", max_length=4),
        "numero_documento": Text("Número.", pattern="^([0-9]{1,8})?$", max_length=8),
        "codigo_tipo_documento": Code("01 factura o 03 boleta.", codes=("01", "03"), catalog="catálogo 01"),
    },
)
ITEM = Object(
    name="DispatchItem",
    description="Un bien trasladado. Con el codigo_interno de un producto de la empresa bastan ese código "
    "y la cantidad: la descripción y la unidad son las del producto.",
    fields={
        "codigo_interno": Text("Código interno del producto.", max_length=30),
        "descripcion": Text("Descripción (la del producto si se omite).", max_length=500),
        "nombre": Text(max_length=500),
        "codigo_producto_sunat": Text("Código UNSPSC.", pattern="^([0-9]{8})?$", max_length=8),
        "unidad_de_medida": Code(
            "Unidad de medida (la del producto si se omite).",
            codes=catalogs.UNITS,
            catalog="catálogo 03",
            upper=True,
        ),
        "cantidad": Number("Cantidad.", required=True, decimals=10, minimum="positive"),
    },
)
#: ``indicador_pagador_flete`` -> SUNAT's indicator (``SUNAT_Envio_IndicadorPagadorFlete_...``): the real
#: services write every value but Remitente and Subcontratador as Tercero, so the manual's Destinatario
#: (who receives the goods pays) is a Tercero with its identity.
FREIGHT_PAYERS = {
    "Remitente": "Remitente",
    "Subcontratador": "Subcontratador",
    "Tercero": "Tercero",
    "Destinatario": "Tercero",
}
PAYER = Object(
    name="DispatchFreightPayer",
    description="Quién paga el flete (guía de transportista) y, si no es el remitente, su identidad.",
    fields={
        "indicador_pagador_flete": Code(
            "Remitente, Subcontratador, Tercero o Destinatario (un tercero).",
            codes=tuple(FREIGHT_PAYERS),
            catalog="indicador de pagador de flete",
        ),
        "codigo_tipo_documento_identidad": _IDENTITY,
        "descripcion_tipo_documento_identidad": Text(max_length=100),
        "numero": Text("Número de documento del pagador.", max_length=15),
        "nombres": NAME.but(description="Nombre o razón social del pagador."),
    },
)
#: A place of a carrier's guide as the real API manual gives it (no establishment code).
PROVIDER_PLACE = Object(
    name="DispatchProviderPlace",
    description="Punto de partida (remitente) o de llegada (destinatario).",
    fields={"ubigeo": _UBIGEO, "direccion": Text("Dirección.", required=True, max_length=100)},
)
PROVIDER_PLACES = Object(
    name="DispatchProviderPlaces",
    description="Las direcciones de una guía de transportista: donde el remitente entrega los bienes y "
    "donde el destinatario los recibe (en lugar de direccion_partida y direccion_llegada).",
    fields={"remitente": PROVIDER_PLACE, "destinatario": PROVIDER_PLACE},
)

_COMMON: dict[str, Any] = {
    "serie_documento": SERIES.but(description="Serie (T001 remitente, V001 transportista).", required=True),
    "numero_documento": Text(
        "Número, o # para el siguiente.", required=True, pattern="^(#|[0-9]{1,8})$", max_length=8
    ),
    "fecha_de_emision": Date("Fecha de emisión.", required=True),
    "hora_de_emision": Time("Hora de emisión.", required=True),
    "codigo_tipo_documento": Code(
        "Tipo de documento (09 o 31).", required=True, codes=("09", "31"), catalog="catálogo 01"
    ),
    "datos_del_emisor": Object(
        name="DispatchIssuer",
        required=True,
        fields={
            "codigo_del_domicilio_fiscal": Text("Código de establecimiento.", required=True, max_length=4)
        },
    ),
    "observaciones": Text(max_length=250),
    "fecha_de_traslado": Date("Fecha de inicio del traslado.", required=True, day_first=True),
    "indicador_de_transbordo": Boolean("Transbordo programado."),
    "codigo_de_puerto": Text(max_length=10),
    "unidad_peso_total": Code(
        "Unidad del peso bruto.", required=True, codes=catalogs.WEIGHT_UNITS, catalog="KGM o TNE", upper=True
    ),
    "peso_total": Number("Peso bruto total.", required=True, decimals=3, minimum="positive"),
    "numero_de_bultos": Number("Número de bultos.", decimals=0, integer_digits=6, absent=None),
    "numero_de_contenedor": Text(max_length=20),
    "direccion_partida": PLACE,
    "direccion_llegada": PLACE,
    "chofer": DRIVER,
    "vehiculo": VEHICLE,
    "numero_de_placa": Text(
        "Placa del vehículo principal, si no va en vehiculo (forma antigua).", max_length=8, upper=True
    ),
    "chofer_secundario": List("Conductores secundarios.", item=DRIVER, max_items=2),
    "vehiculo_secundario": List("Vehículos secundarios.", item=VEHICLE, max_items=2),
    "documento_relacionado": List("Documentos relacionados.", item=RELATED, max_items=20),
    "documento_afectado": AFFECTED,
    "items": List("Bienes trasladados.", required=True, item=ITEM, max_items=999, min_items=1),
}

DISPATCH_BODY = Object(
    name="DispatchBody",
    description="Una guía de remisión remitente (09).",
    required=True,
    fields={
        **_COMMON,
        "datos_del_cliente_o_receptor": CUSTOMER,
        "codigo_modo_transporte": Code(
            "Modalidad de traslado.",
            required=True,
            codes=catalogs.TRANSPORT_MODES,
            catalog="catálogo 18",
            digits=2,
        ),
        "codigo_motivo_traslado": Code(
            "Motivo de traslado.",
            required=True,
            codes=catalogs.TRANSFER_REASONS,
            catalog="catálogo 20",
            digits=2,
        ),
        "descripcion_motivo_traslado": Text(max_length=100),
        "transportista": CARRIER,
    },
)
CARRIER_BODY = Object(
    name="DispatchCarrierBody",
    description="Una guía de remisión transportista (31).",
    required=True,
    fields={
        **_COMMON,
        "datos_remitente": PERSON.but(required=True),
        "datos_destinatario": PERSON.but(required=True),
        "numero_mtc": Text("Registro MTC del transportista (el emisor).", max_length=20),
        "pagador_flete": PAYER,
        "direcciones_proveedores": PROVIDER_PLACES,
        "direccion_partida": PLACE.but(
            required=False, description="Punto de partida, si no va en direcciones_proveedores.remitente."
        ),
        "direccion_llegada": PLACE.but(
            required=False,
            description="Punto de llegada, si no va en direcciones_proveedores.destinatario.",
        ),
    },
)
GUIDE_QUERY = Object(
    name="DispatchQuery",
    description="Una guía, por su external_id.",
    required=True,
    fields={"external_id": Text("El código externo (external_id) de la guía.", required=True, max_length=36)},
)

#: Finds a factura or boleta of the tenant: ``find(external_id=...)`` or ``find(doc_type=..., number=...)``.
DocumentFinder = Callable[..., LinkedDocument | None]
#: The description and unit of the tenant's product with an internal code, or ``None``.
ProductFinder = Callable[[str], tuple[str, str] | None]

#: Default series per guide type (created on first use).
DEFAULT_SERIES = {"09": "T001", "31": "V001"}


def _party(values: dict[str, Any]) -> DispatchParty:
    return DispatchParty(
        values["codigo_tipo_documento_identidad"] or "",
        values["numero_documento"] or "",
        values["apellidos_y_nombres_o_razon_social"] or "",
        values.get("numero_mtc") or "",
    )


def _driver(values: dict[str, Any], principal: bool) -> Driver:
    names = values["nombres"] or ""
    family, _, first = names.partition(",")
    if not first.strip():
        parts = names.split()
        family, first = " ".join(parts[:-1]) or names, parts[-1] if parts else names
    return Driver(
        values["codigo_tipo_documento_identidad"] or "",
        values["numero_documento"] or "",
        first.strip(),
        family.strip(),
        values["numero_licencia"] or "",
        principal,
    )


def _place(values: dict[str, Any], ruc: str) -> Place:
    code = values.get("codigo_del_domicilio_fiscal") or ""
    return Place(values["ubigeo"] or "", values["direccion"] or "", ruc if code else "", code)


def _given(body: Any, *path: str) -> bool:
    """Whether the body has an object at ``path`` (``"direcciones_proveedores", "remitente"``)."""
    node = body
    for key in path:
        if not isinstance(node, dict) or not isinstance(node.get(key), dict):
            return False
        node = node[key]
    return True


def _carrier_places(reader: Reader, body: Any, values: dict[str, Any]) -> tuple[dict[str, Any], ...]:
    """A carrier's guide's origin and delivery: ``direcciones_proveedores.remitente`` / ``.destinatario``
    as the real services read them (their ``DispatchTransform::addressData``), else ``direccion_partida``
    / ``direccion_llegada``; one of each is required."""
    places = []
    for side, other in (("remitente", "direccion_partida"), ("destinatario", "direccion_llegada")):
        if _given(body, "direcciones_proveedores", side):
            places.append(values["direcciones_proveedores"][side])
            continue
        reader.require(
            f"direcciones_proveedores.{side}",
            _given(body, other),
            f"Es requerido direcciones_proveedores.{side} (o {other}).",
        )
        places.append(values[other])
    return tuple(places)


def _line(
    reader: Reader, item: dict[str, Any], index: int, products: ProductFinder | None
) -> DispatchLine | None:
    """A line; a missing description or unit is the tenant's product's (by ``codigo_interno``), as the real
    services take them (``DispatchInput::items``: the product found or created by its internal code)."""
    description, unit, code = item["descripcion"], item["unidad_de_medida"], item["codigo_interno"] or ""
    if not (description and unit) and code and products is not None:
        found = products(code)
        if found is not None:
            description, unit = description or found[0], unit or found[1]
    missing = (
        f"El producto {code} no está registrado: envíe su descripcion y unidad_de_medida." if code else ""
    )
    reader.require(f"items.{index}.descripcion", bool(description), missing)
    reader.require(f"items.{index}.unidad_de_medida", bool(unit), missing)
    if not (description and unit):
        return None
    return DispatchLine(item["cantidad"], unit, description, code, item["codigo_producto_sunat"] or "")


def _payer(
    reader: Reader, values: dict[str, Any], receiver: DispatchParty
) -> tuple[str, DispatchParty | None]:
    """SUNAT's freight-payer indicator and, for a Subcontratador or Tercero, who pays
    (``cac:OriginatorCustomerParty``): the identity sent, or the receiver for Destinatario. A number of
    the wrong form for its type is refused as SUNAT refuses it (3400)."""
    payer = values.get("pagador_flete") or {}
    indicator = FREIGHT_PAYERS.get(payer.get("indicador_pagador_flete") or "", "")
    if indicator not in ("Subcontratador", "Tercero"):
        return indicator, None
    number, kind = payer["numero"], payer["codigo_tipo_documento_identidad"]
    if not number and payer["indicador_pagador_flete"] == "Destinatario":
        return indicator, DispatchParty(receiver.identity_type, receiver.number, receiver.name)
    if not number:
        return indicator, None  # SUNAT only observes a third payer without identity (4401, 4402, 4370)
    reader.require("pagador_flete.codigo_tipo_documento_identidad", bool(kind))
    reader.require("pagador_flete.nombres", bool(payer["nombres"]))
    wrong = (kind == "1" and not (len(number) == 8 and number.isdigit())) or (
        kind == "6" and not (len(number) == 11 and number.isdigit())
    )
    if wrong or " " in number:
        reader.error(
            "pagador_flete.numero",
            f"El número {number} no es válido para el tipo de documento {kind} (regla SUNAT 3400).",
        )
    return indicator, DispatchParty(kind, number, payer["nombres"])


def _linked(found: LinkedDocument, ruc: str) -> DispatchDocument:
    return DispatchDocument(
        found.doc_type, found.number, catalogs.GRE_RELATED_DOCUMENTS[found.doc_type][0], ruc
    )


def read_dispatch(
    body: Any,
    doc_type: str,
    issuer: Issuer,
    *,
    today: dt.date,
    establishments: set[str],
    find: DocumentFinder | None = None,
    products: ProductFinder | None = None,
) -> tuple[Dispatch, dict[str, Any]]:
    """Check a guide's body (see module doc) and return the guide (numbered 0 when ``numero_documento``
    is "#") with the values read (``linked_documents``: the ids of the tenant's documents it names,
    found with ``find``; ``products``: each line's code -> the description and unit it took from the
    tenant's product, found with ``products``); raises one 422 listing every problem."""
    declared = DISPATCH_BODY if doc_type == "09" else CARRIER_BODY
    reader = Reader()
    values = declared.read(reader, body, "")
    if values["codigo_tipo_documento"] and values["codigo_tipo_documento"] != doc_type:
        reader.error("codigo_tipo_documento", f"Este servicio emite guías de tipo {doc_type}.")
    series = values["serie_documento"] or ""
    prefix = "T" if doc_type == "09" else "V"
    if series and not (len(series) == 4 and series[0] == prefix and series.isalnum()):
        reader.error(
            "serie_documento",
            f"La serie de una guía {doc_type} es {prefix}### (p. ej. {DEFAULT_SERIES[doc_type]}).",
        )
    code = values["datos_del_emisor"]["codigo_del_domicilio_fiscal"]
    if code and code not in establishments:
        reader.error(
            "datos_del_emisor.codigo_del_domicilio_fiscal",
            "El código ingresado del establecimiento es incorrecto.",
        )
    issued, start = values["fecha_de_emision"], values["fecha_de_traslado"]
    if issued and issued > today:
        reader.error("fecha_de_emision", "La fecha de emisión no puede ser posterior a la fecha actual.")
    if issued and start and start < issued:
        reader.error("fecha_de_traslado", "La fecha de traslado no puede ser anterior a la fecha de emisión.")
    mode = values.get("codigo_modo_transporte") or ""
    private = doc_type == "31" or mode == "02"
    carrier = values.get("transportista")
    if doc_type == "09" and mode == "01":
        reader.require(
            "transportista",
            bool(carrier and carrier["numero_documento"]),
            "El transportista es requerido para el transporte público (01).",
        )
        if (
            carrier
            and carrier["codigo_tipo_documento_identidad"]
            and carrier["codigo_tipo_documento_identidad"] != "6"
        ):
            reader.error(
                "transportista.codigo_tipo_documento_identidad",
                "El transportista se identifica con su RUC (6).",
            )
    plate = values["vehiculo"]["numero_de_placa"] if _given(body, "vehiculo") else values["numero_de_placa"]
    if private:
        reader.require(
            "chofer", _given(body, "chofer"), "El conductor es requerido para el transporte privado."
        )
        reader.require(
            "vehiculo",
            _given(body, "vehiculo") or bool(values["numero_de_placa"]),
            "El vehículo es requerido para el transporte privado (vehiculo o numero_de_placa).",
        )
        written = [("chofer", values["chofer"])] if _given(body, "chofer") else []
        written += [(f"chofer_secundario.{i}", d) for i, d in enumerate(values["chofer_secundario"] or [])]
        for path, driver in written:
            for key, message in DRIVER_RULES.items():
                reader.require(f"{path}.{key}", bool(driver[key]), message)
    related_documents: list[DispatchDocument] = []
    linked: list[int] = []
    for index, related in enumerate(values["documento_relacionado"] or []):
        path = f"documento_relacionado.{index}"
        kind = (related["documento"] or {}).get("id") or ""
        if related["external_id"]:
            if related["numero"]:
                reader.error(
                    f"{path}.numero", "Un documento se indica por external_id o por numero, no ambos."
                )
            found = find(external_id=related["external_id"]) if find else None
            if found is None:
                reader.error(
                    f"{path}.external_id",
                    f"No se encontró la factura o boleta con código externo {related['external_id']}.",
                )
                continue
            linked.append(found.id)
            related_documents.append(_linked(found, issuer.ruc))
            continue
        reader.require(f"{path}.numero", bool(related["numero"]))
        reader.require(f"{path}.documento.id", bool(kind))
        if kind and doc_type not in catalogs.GRE_RELATED_DOCUMENTS[kind][1]:
            reader.error(f"{path}.documento.id", f"El tipo {kind} no se relaciona con una guía {doc_type}.")
        if not kind or not related["numero"]:
            continue
        if find and (related["ruc"] or issuer.ruc) == issuer.ruc:
            own = find(doc_type=kind, number=related["numero"])
            if own is not None:
                linked.append(own.id)
        related_documents.append(
            DispatchDocument(
                kind,
                related["numero"],
                (related["documento"] or {}).get("descripcion") or catalogs.GRE_RELATED_DOCUMENTS[kind][0],
                related["ruc"] or "",
            )
        )
    affected = values.get("documento_afectado")
    if isinstance(body, dict) and isinstance(body.get("documento_afectado"), dict) and affected:
        found = None
        if affected["external_id"]:
            found = find(external_id=affected["external_id"]) if find else None
            message = f"No se encontró la factura o boleta con código externo {affected['external_id']}."
            path = "documento_afectado.external_id"
        else:
            for key in ("serie_documento", "numero_documento", "codigo_tipo_documento"):
                reader.require(f"documento_afectado.{key}", bool(affected[key]))
            number = f"{affected['serie_documento']}-{affected['numero_documento']}"
            if (
                affected["serie_documento"]
                and affected["numero_documento"]
                and affected["codigo_tipo_documento"]
            ):
                found = find(doc_type=affected["codigo_tipo_documento"], number=number) if find else None
            message = f"No se encontró el documento {number} de esta empresa."
            path = "documento_afectado.numero_documento"
        if found is None:
            if not any(error.field.startswith("documento_afectado") for error in reader.errors):
                reader.error(path, message)
        elif found.id not in linked:
            linked.append(found.id)
            related_documents.append(_linked(found, issuer.ruc))
    lines = [_line(reader, item, index, products) for index, item in enumerate(values["items"] or [])]
    if doc_type == "31":
        origin, delivery = _carrier_places(reader, body, values)
    else:
        origin, delivery = values["direccion_partida"], values["direccion_llegada"]
    receiver = _party(values["datos_destinatario"]) if doc_type == "31" else DispatchParty("", "", "")
    payer, payer_party = _payer(reader, values, receiver) if doc_type == "31" else ("", None)
    reader.raise_if_errors()
    values["linked_documents"] = linked
    values["products"] = {
        line.code: [line.description, line.unit] for line in lines if line is not None and line.code
    }

    number_text = values["numero_documento"]
    if doc_type == "09":
        customer = DispatchParty(
            values["datos_del_cliente_o_receptor"]["codigo_tipo_documento_identidad"],
            values["datos_del_cliente_o_receptor"]["numero_documento"],
            values["datos_del_cliente_o_receptor"]["apellidos_y_nombres_o_razon_social"],
        )
        sender = None
    else:
        customer = _party(values["datos_destinatario"])
        sender = _party(values["datos_remitente"])
    drivers: tuple[Driver, ...] = ()
    vehicles: tuple[str, ...] = ()
    certificate = ""
    if private:
        drivers = (
            _driver(values["chofer"], True),
            *(_driver(d, False) for d in values["chofer_secundario"] or []),
        )
        vehicles = (plate, *(v["numero_de_placa"] for v in values["vehiculo_secundario"] or []))
        certificate = values["vehiculo"]["certificado_habilitacion_vehicular"] or ""
    packages = values["numero_de_bultos"]
    dispatch = Dispatch(
        doc_type=doc_type,
        issuer=issuer,
        series=series,
        number=0 if number_text == "#" else int(number_text),
        issue_date=issued,
        issue_time=values["hora_de_emision"],
        customer=customer,
        origin=_place(origin, issuer.ruc if doc_type == "09" else ""),
        delivery=_place(
            delivery, issuer.ruc if doc_type == "09" and values.get("codigo_motivo_traslado") == "04" else ""
        ),
        start_date=start,
        gross_weight=values["peso_total"],
        weight_unit=values["unidad_peso_total"],
        lines=tuple(line for line in lines if line is not None),
        transfer_reason=values.get("codigo_motivo_traslado") or "",
        transfer_description=values.get("descripcion_motivo_traslado") or "",
        transport_mode=mode,
        note=values["observaciones"] or "",
        packages=int(packages) if isinstance(packages, Decimal) and packages else None,
        transshipment=bool(values["indicador_de_transbordo"]),
        carrier=_party(carrier) if doc_type == "09" and mode == "01" and carrier else None,
        sender=sender,
        issuer_mtc=values.get("numero_mtc") or "",
        drivers=drivers,
        vehicles=vehicles,
        vehicle_certificate=certificate,
        freight_payer=payer,
        freight_payer_party=payer_party,
        related=tuple(related_documents),
    )
    return dispatch, values
