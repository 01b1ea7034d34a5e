"""The request bodies of the dispatch guides (reference/facturador-api.md §8.10-8.13), declared once for
the check and the OpenAPI contract, and read into a :class:`~facturador.model.Dispatch`.

What the service refuses (422 naming the field): missing or malformed keys, codes outside their catalogs
(20 transfer reasons, 18 transport modes, KGM/TNE, 06 identity types, 61 related documents), a transport
mode without what it needs (a carrier for 01; a driver and a vehicle for 02 and carrier guides), a
transfer date before the issue date, an issue date in the future. Formats SUNAT itself judges (plates,
licences, MTC numbers, ubigeos in catalog 13) travel to the GRE API and come back as its answer.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from facturador.domain.dispatch_links import LinkedDocument
from facturador.domain.document_input import CUSTOMER, NAME, SERIES
from facturador.domain.fields import Boolean, Code, Date, List, Number, Object, Text, Time
from facturador.domain.reader import Reader
from facturador.model import (
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
    description="Un conductor (transporte privado).",
    fields={
        "codigo_tipo_documento_identidad": _IDENTITY.but(required=True),
        "numero_documento": Text("Número de documento.", required=True, max_length=15),
        "nombres": Text("Apellidos y nombres (APELLIDOS, NOMBRES).", required=True, max_length=250),
        "numero_licencia": Text("Número de licencia de conducir.", required=True, max_length=10, upper=True),
        "telefono": Text(max_length=30),
    },
)
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
    description="Un bien trasladado.",
    fields={
        "codigo_interno": Text("Código interno del producto.", max_length=30),
        "descripcion": Text("Descripción.", required=True, max_length=500),
        "nombre": Text(max_length=500),
        "codigo_producto_sunat": Text("Código UNSPSC.", pattern="^([0-9]{8})?$", max_length=8),
        "unidad_de_medida": Code(
            "Unidad de medida.", required=True, codes=catalogs.UNITS, catalog="catálogo 03", upper=True
        ),
        "cantidad": Number("Cantidad.", required=True, decimals=10, minimum="positive"),
    },
)
PAYER = Object(
    name="DispatchFreightPayer",
    description="Quién paga el flete (guía de transportista).",
    fields={
        "indicador_pagador_flete": Code(
            "Remitente, Subcontratador o Tercero.",
            codes=("Remitente", "Subcontratador", "Tercero"),
            catalog="indicador de pagador de flete",
        ),
    },
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
    "fecha_de_traslado": Date("Fecha de inicio del traslado.", required=True),
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
    code = values["codigo_del_domicilio_fiscal"] or ""
    return Place(values["ubigeo"] or "", values["direccion"] or "", ruc if code else "", code)


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
) -> tuple[Dispatch, dict[str, Any]]:
    """Check a guide's body (see module doc) and return the guide (numbered 0 when ``numero_documento``
    is "#") with the values read (``linked_documents``: the ids of the tenant's documents it names,
    found with ``find``); raises one 422 listing every problem."""
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
    if private:
        reader.require(
            "chofer",
            isinstance(body, dict) and isinstance(body.get("chofer"), dict),
            "El conductor es requerido para el transporte privado.",
        )
        reader.require(
            "vehiculo",
            isinstance(body, dict) and isinstance(body.get("vehiculo"), dict),
            "El vehículo es requerido para el transporte privado.",
        )
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
    reader.raise_if_errors()
    values["linked_documents"] = linked

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
        vehicles = (
            values["vehiculo"]["numero_de_placa"],
            *(v["numero_de_placa"] for v in values["vehiculo_secundario"] or []),
        )
        certificate = values["vehiculo"]["certificado_habilitacion_vehicular"] or ""
    payer = (values.get("pagador_flete") or {}).get("indicador_pagador_flete") or ""
    packages = values["numero_de_bultos"]
    dispatch = Dispatch(
        doc_type=doc_type,
        issuer=issuer,
        series=series,
        number=0 if number_text == "#" else int(number_text),
        issue_date=issued,
        issue_time=values["hora_de_emision"],
        customer=customer,
        origin=_place(values["direccion_partida"], issuer.ruc if doc_type == "09" else ""),
        delivery=_place(
            values["direccion_llegada"],
            issuer.ruc if doc_type == "09" and values.get("codigo_motivo_traslado") == "04" else "",
        ),
        start_date=start,
        gross_weight=values["peso_total"],
        weight_unit=values["unidad_peso_total"],
        lines=tuple(
            DispatchLine(
                item["cantidad"],
                item["unidad_de_medida"],
                item["descripcion"],
                item["codigo_interno"] or "",
                item["codigo_producto_sunat"] or "",
            )
            for item in values["items"]
        ),
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
        related=tuple(related_documents),
    )
    return dispatch, values
