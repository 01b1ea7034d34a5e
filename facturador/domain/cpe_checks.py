"""``services/consult_cdr_status`` and ``services/validate_cpe``: what SUNAT keeps of one of the tenant's
documents, asked for the tenant (its SOAP endpoint's billConsultService, or the built-in simulator's
register for a tenant that sends to it).

Real PRO's ``consult_cdr_status`` asks ``getStatusCdr`` and answers ``{"success", "message"}``; here the
CDR's code, description and notes come too. Real PRO's ``validate_cpe`` scrapes SUNAT's captcha-guarded
"consulta unificada" page for any issuer; this service answers it for the tenant's own documents only,
from ``getStatus`` (the document's state) and the imported padrón (the issuer's state and condition), in
real PRO's keys. Another issuer's document needs SUNAT's validity REST API (not built here): 422.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from facturador.authority.cdr import read_cdr
from facturador.authority.registry import RegistryKey
from facturador.authority.soap.client import SoapGateway
from facturador.context import ServiceContext, TenantInfo, sends_remotely
from facturador.domain.fields import Code, Date, Number, Object, Text
from facturador.domain.padron import find_taxpayer
from facturador.domain.reader import Reader
from facturador.domain.validity_sweep import validity_asker
from facturador.errors import ServiceError, field_error
from facturador.store.models import DOCUMENTS
from sunat.validity import CP_STATES, DOMICILE_CONDITIONS, RUC_STATES, ValidityQuery
from sunat.validity_client import ValidityError

CONSULTED_TYPES = {"01": "Factura", "03": "Boleta", "07": "Nota de crédito", "08": "Nota de débito"}
_DOCUMENT_FIELDS = {
    "codigo_tipo_documento": Code(
        "Tipo de comprobante.", required=True, codes=CONSULTED_TYPES, catalog="catálogo 01 (01, 03, 07, 08)"
    ),
    "serie_documento": Text(
        "Serie (4 caracteres).",
        required=True,
        pattern="^[A-Za-z0-9]{4}$",
        pattern_message="El campo {path} debe tener 4 letras o dígitos.",
        upper=True,
    ),
    "numero_documento": Number(
        "Número (1 a 99999999).", required=True, integer_digits=8, decimals=0, minimum="positive"
    ),
}
CDR_BODY = Object(
    name="ConsultCdrBody",
    description="El comprobante del tenant cuya constancia (CDR) se consulta a SUNAT.",
    required=True,
    fields=_DOCUMENT_FIELDS,
)
VALIDATE_BODY = Object(
    name="ValidateCpeBody",
    description="El comprobante cuya validez se consulta (propio o de otro emisor: API de validez).",
    required=True,
    fields={
        "numero_ruc_emisor": Text(
            "RUC del emisor.",
            required=True,
            pattern="^[0-9]{11}$",
            pattern_message="El campo {path} debe tener 11 dígitos.",
        ),
        **_DOCUMENT_FIELDS,
        "fecha_de_emision": Date("Fecha de emisión (AAAA-MM-DD)."),
        "total": Number("Importe total.", integer_digits=12, decimals=2, minimum="zero"),
    },
)
#: real PRO's ``comprobante_estado_codigo`` (ValidateCpe2's states) from billConsultService's getStatus.
_DOCUMENT_STATES = {"accepted": ("1", "ACEPTADO"), "voided": ("2", "ANULADO"), "rejected": ("0", "NO EXISTE")}
_COMPANY_STATES = {
    "ACTIVO": "00",
    "BAJA PROVISIONAL": "01",
    "SUSPENSION TEMPORAL": "03",
    "BAJA DEFINITIVA": "10",
}
_COMPANY_STATES |= {"BAJA DE OFICIO": "11"}
_CONDITIONS = {"HABIDO": "00", "PENDIENTE": "09", "NO HABIDO": "12", "NO HALLADO": "20"}


def _read(declared: Object, body: Any) -> dict[str, Any]:
    reader = Reader()
    values = declared.read(reader, body, "")
    reader.raise_if_errors()
    return values


def _document(context: ServiceContext, tenant: TenantInfo, values: dict[str, Any]) -> Any:
    """The tenant's document of the body, or 404 ("Documento no encontrado", as real PRO says)."""
    doc_type, series, number = (
        values["codigo_tipo_documento"],
        values["serie_documento"],
        values["numero_documento"],
    )
    with context.engine.connect() as connection:
        row = connection.execute(
            select(DOCUMENTS.c.id, DOCUMENTS.c.total, DOCUMENTS.c.date_of_issue).where(
                DOCUMENTS.c.tenant_id == tenant.id,
                DOCUMENTS.c.document_type_id == doc_type,
                DOCUMENTS.c.series == series,
                DOCUMENTS.c.number == int(number),
            )
        ).one_or_none()
    if row is None:
        raise ServiceError(
            404, f"Documento no encontrado: {doc_type} {series}-{int(number)}.", "DOCUMENT_NOT_FOUND"
        )
    return row


def consult_cdr(context: ServiceContext, tenant: TenantInfo, body: Any) -> dict[str, Any]:
    """``POST /api/services/consult_cdr_status``: the CDR SUNAT keeps of one of the tenant's documents
    (billConsultService's ``getStatusCdr``); 404 when the tenant has no such document or SUNAT no CDR."""
    values = _read(CDR_BODY, body)
    _document(context, tenant, values)
    doc_type, series, number = (
        values["codigo_tipo_documento"],
        values["serie_documento"],
        int(values["numero_documento"]),
    )
    answer = None
    if sends_remotely(tenant):
        gateway = SoapGateway(context.soap_endpoint(tenant))
        answer = gateway.get_status_cdr(tenant.ruc, doc_type, series, number)
    else:
        record = context.simulator(tenant.ruc, tenant.settings).registry.lookup(
            RegistryKey(tenant.ruc, doc_type, series, number)
        )
        if record is not None and record.cdr_zip is not None:
            answer = read_cdr(record.cdr_zip)
    if answer is None or not answer.code:
        raise ServiceError(
            404,
            f"SUNAT no tiene constancia (CDR) de {series}-{number}, o no pudo consultarse; reintente luego.",
            "CDR_NOT_FOUND",
        )
    return {
        "success": True,
        "message": answer.description,
        "data": {
            "sent": True,
            "code": answer.code,
            "description": answer.description,
            "notes": list(answer.notes),
        },
    }


def validate_cpe(context: ServiceContext, tenant: TenantInfo, body: Any) -> dict[str, Any]:
    """``POST /api/services/validate_cpe``: a document's state at SUNAT (another issuer's through SUNAT's
    validity API) and its issuer's state and condition, in real PRO's keys (``ValidateCpe2``)."""
    values = _read(VALIDATE_BODY, body)
    if values["numero_ruc_emisor"] != tenant.ruc:
        return _validity_of_another_issuer(context, tenant, values)
    _document(context, tenant, values)
    doc_type, series, number = (
        values["codigo_tipo_documento"],
        values["serie_documento"],
        int(values["numero_documento"]),
    )
    if sends_remotely(tenant):
        status = SoapGateway(context.soap_endpoint(tenant)).get_status_cdr(
            tenant.ruc, doc_type, series, number
        )
        if status is None:
            raise ServiceError(
                502,
                "SUNAT no respondió la consulta del comprobante; reintente luego.",
                "AUTHORITY_UNAVAILABLE",
            )
        state = "accepted" if status.accepted else "rejected"
    else:
        record = context.simulator(tenant.ruc, tenant.settings).registry.lookup(
            RegistryKey(tenant.ruc, doc_type, series, number)
        )
        state = record.status if record is not None else "rejected"
    code, description = _DOCUMENT_STATES.get(state, ("0", "NO EXISTE"))
    with context.engine.connect() as connection:
        taxpayer = find_taxpayer(connection, tenant.ruc)
    company_state = taxpayer.state if taxpayer else "-"
    condition = taxpayer.condition if taxpayer else "-"
    return {
        "success": True,
        "data": {
            "comprobante_estado_codigo": code,
            "comprobante_estado_descripcion": description,
            "empresa_estado_codigo": _COMPANY_STATES.get(company_state, "-"),
            "empresa_estado_description": company_state,
            "empresa_condicion_codigo": _CONDITIONS.get(condition, "-"),
            "empresa_condicion_descripcion": condition,
        },
    }


def _validity_of_another_issuer(
    context: ServiceContext, tenant: TenantInfo, values: dict[str, Any]
) -> dict[str, Any]:
    """A document of another issuer (a supplier's factura): asked of SUNAT's validity API with the tenant's
    credentials (``validity_client_id``), or of the simulator for a tenant on it (docs/validity.md)."""
    if values.get("fecha_de_emision") is None:
        raise field_error(
            "fecha_de_emision",
            "El campo fecha_de_emision es obligatorio para consultar un comprobante de otro emisor.",
            "INVALID_FIELDS",
        )
    asker = validity_asker(context, tenant.id, tenant.ruc, dict(tenant.settings))
    if asker is None:
        raise ServiceError(
            409,
            "Para validar comprobantes de otros emisores configure las credenciales de la API de validez de "
            "SUNAT (validity_client_id y el secreto validity_client_secret).",
            "VALIDITY_NOT_CONFIGURED",
        )
    query = ValidityQuery(
        values["numero_ruc_emisor"],
        values["codigo_tipo_documento"],
        values["serie_documento"],
        int(values["numero_documento"]),
        values["fecha_de_emision"],
        values.get("total"),
    )
    try:
        answer = asker.check(query)
    except ValidityError as exc:
        raise ServiceError(
            502, f"La API de validez de SUNAT no respondió: {exc}", "AUTHORITY_UNAVAILABLE"
        ) from None
    finally:
        close = getattr(asker, "close", None)
        if close is not None:
            close()
    return {
        "success": True,
        "data": {
            "comprobante_estado_codigo": answer.state,
            "comprobante_estado_descripcion": CP_STATES.get(answer.state, answer.state),
            "empresa_estado_codigo": answer.ruc_state or "-",
            "empresa_estado_description": RUC_STATES.get(answer.ruc_state, "-"),
            "empresa_condicion_codigo": answer.domicile or "-",
            "empresa_condicion_descripcion": DOMICILE_CONDITIONS.get(answer.domicile, "-"),
        },
    }
