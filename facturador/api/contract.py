"""The OpenAPI contract of the routes: request bodies from the field declarations, responses with their
real status codes and shapes, the error envelope and the two ways to authenticate.

Request bodies are never written here: :func:`body` publishes the :class:`~facturador.domain.fields.Object`
the route's reader enforces. Responses are described here, next to nothing else, and held to the code by
the contract test (``tests/facturador/api/test_contract.py`` runs schemathesis against the served schema).
"""

from __future__ import annotations

from typing import Any

from facturador.domain.fields import Components, Object

#: Named schemas of the document: the declared bodies and the responses below (``#/components/schemas``).
COMPONENTS: Components = {}

SECURITY_SCHEMES = {
    "bearerAuth": {
        "type": "http",
        "scheme": "bearer",
        "description": "El token de API de un usuario de la empresa: Authorization: Bearer TOKEN.",
    },
    "apiToken": {
        "type": "apiKey",
        "in": "query",
        "name": "api_token",
        "description": "El mismo token como parámetro ?api_token= (lo usan clientes reales).",
    },
}
#: Either scheme authenticates a request.
SECURED: list[dict[str, list[str]]] = [{"bearerAuth": []}, {"apiToken": []}]

STATUS_DESCRIPTIONS = {
    200: "OK",
    202: "El ticket sigue en proceso en SUNAT: consulte de nuevo después de Retry-After segundos.",
    400: "El cuerpo no es un objeto JSON válido (vacío, mal formado, una lista, demasiado anidado).",
    401: "Falta el token o no es de un usuario de esta empresa.",
    404: "No existe la empresa de esta dirección, o el recurso pedido.",
    409: "Conflicto: el número ya está registrado, u otro envío cambió los mismos documentos.",
    413: "El cuerpo supera el límite de tamaño de la petición.",
    422: "La petición no cumple una regla: cada campo con problemas en errors[].",
    502: "SUNAT rechazó el archivo o no respondió (Code: c; Description: d).",
}


def _component(name: str, schema: dict[str, Any]) -> dict[str, str]:
    COMPONENTS[name] = schema
    return {"$ref": f"#/components/schemas/{name}"}


def _string(nullable: bool = False, **extra: Any) -> dict[str, Any]:
    return {"type": ["string", "null"] if nullable else "string", **extra}


def _object(properties: dict[str, Any], *, required: tuple[str, ...] | None = None) -> dict[str, Any]:
    """A response object; every listed key is always present unless ``required`` names fewer."""
    return {
        "type": "object",
        "properties": properties,
        "required": list(required if required is not None else properties),
    }


ERROR = _component(
    "Error",
    {
        **_object(
            {
                "success": {"const": False},
                "message": _string(description="Qué pasó, en castellano."),
                "error_code": _string(description="Código estable para programas (TOTALS_MISMATCH, ...)."),
                "errors": {
                    "type": "array",
                    "items": _object({"field": _string(), "message": _string()}),
                    "description": "Un problema por campo: field es su ruta (items.0.cantidad).",
                },
            }
        ),
        "description": "La respuesta de todo error.",
    },
)
ERROR_CONTENT = {"application/json": {"schema": ERROR}}

#: ``response`` of a document: ``[]`` while not sent, else SUNAT's answer.
AUTHORITY_ANSWER = {
    "anyOf": [
        {"type": "array", "maxItems": 0},
        _object(
            {"code": _string(), "description": _string(), "notes": {"type": "array", "items": _string()}},
            required=("code", "description"),
        ),
    ],
    "description": "[] si no se envió; si no, la respuesta de SUNAT (code, description, notes).",
}
DOCUMENT_SUMMARY = {
    "number": _string(description="SERIE-NÚMERO."),
    "filename": _string(),
    "external_id": _string(),
    "state_type_id": _string(),
    "state_type_description": _string(),
}
ISSUED = _component(
    "Issued",
    _object(
        {
            "success": {"const": True},
            "data": _object(
                {
                    **DOCUMENT_SUMMARY,
                    "number_to_letter": _string(),
                    "hash": _string(description="DigestValue de la firma."),
                    "qr": _string(description="PNG del QR en base64."),
                    "id": {"type": "integer"},
                }
            ),
            "links": _object({"xml": _string(), "pdf": _string(), "cdr": _string()}),
            "response": AUTHORITY_ANSWER,
            "was_duplicate": {
                "type": "boolean",
                "description": "true: la clave de idempotencia ya había emitido este documento.",
            },
        }
    ),
)
SENT = _component(
    "Sent",
    _object(
        {
            "success": {"const": True},
            "data": _object(DOCUMENT_SUMMARY),
            "links": _object({"cdr": _string()}),
            "response": AUTHORITY_ANSWER,
        }
    ),
)
MESSAGE = _component("Message", _object({"success": {"const": True}, "message": _string()}))
STATE_CHANGE = _component(
    "StateChange",
    _object(
        {
            "changed_at": _string(description="Hora de Lima con su desfase (2026-12-05T09:15:00-05:00)."),
            "user_id": {"type": ["integer", "null"]},
            "user_name": _string(),
            "from_state_type_id": _string(),
            "from_state_type_description": _string(),
            "state_type_id": _string(),
            "state_type_description": _string(),
            "reason": _string(description="El motivo dado (vacío si no se dio)."),
        }
    ),
)
STATE_CHANGES = _component(
    "StateChanges",
    _object({"success": {"const": True}, "data": {"type": "array", "items": STATE_CHANGE}}),
)
_MONEY = _string(pattern=r"^-?[0-9]+\.[0-9]{2}$")
DOCUMENT_ROW = _component(
    "DocumentRow",
    _object(
        {
            "id": {"type": "integer"},
            "external_id": _string(),
            "group_id": _string(),
            "soap_type_id": _string(),
            "soap_type_description": _string(),
            "date_of_issue": _string(format="date"),
            "time_of_issue": _string(),
            "date_of_due": _string(nullable=True),
            "number": _string(),
            "series": _string(),
            "correlative": {"type": "integer"},
            "filename": _string(),
            "document_type_id": _string(),
            "document_type_description": _string(),
            "operation_type_id": _string(nullable=True),
            "customer_name": _string(nullable=True),
            "customer_number": _string(nullable=True),
            "customer_identity_document_type_id": _string(nullable=True),
            "customer_identity_document_type_description": _string(),
            "customer_telephone": _string(nullable=True),
            "customer_email": _string(nullable=True),
            "user_id": {"type": ["integer", "null"]},
            "currency_type_id": _string(),
            "exchange_rate_sale": _string(),
            **{
                key: _MONEY
                for key in (
                    "total_exportation",
                    "total_free",
                    "total_unaffected",
                    "total_exonerated",
                    "total_taxed",
                    "total_igv",
                    "total_plastic_bag_taxes",
                    "total_taxes",
                    "total_value",
                    "total",
                )
            },
            "state_type_id": _string(),
            "state_type_description": _string(),
            "has_xml": {"type": "boolean"},
            "has_pdf": {"type": "boolean"},
            "has_cdr": {"type": "boolean"},
            "download_xml": _string(),
            "download_pdf": _string(),
            "download_cdr": _string(),
            "regularize_shipping": {"type": "boolean"},
            "message_regularize_shipping": _string(nullable=True),
            "affected_document": {"type": ["object", "null"]},
            "note_type_id": _string(nullable=True),
            "purchase_order": _string(nullable=True),
            "sales_note": {
                "type": "array",
                "description": "La nota de venta de la que salió el documento (vacío si ninguna).",
                "items": _object(
                    {"id": {"type": "integer"}, "number_full": _string(), "external_id": _string()}
                ),
            },
            "created_at": _string(nullable=True),
            "updated_at": _string(nullable=True),
            "soap_type": _object({"id": _string(), "description": _string()}),
            "send_server": {"type": "boolean"},
            **{
                key: {"type": ["object", "null"]}
                for key in ("shipping_status", "sunat_shipping_status", "query_status", "order_note")
            },
            "custom_fields_data": {"type": ["object", "array", "null"]},
            # this service's extension: the audit record of the state set by hand (empty: never)
            "state_changes": {"type": "array", "items": STATE_CHANGE},
            # real PRO's record of e-mails sent, with this service's state of each delivery
            "email_send_it": {"type": "boolean"},
            "email_send_it_array": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "email": _string(),
                        "send_it": {"type": "boolean"},
                        "send_date": _string(),
                        "state": {"type": "string", "enum": ["queued", "sent", "failed"]},
                        "attempts": {"type": "integer"},
                        "last_error": _string(nullable=True),
                    },
                    "required": ["email", "send_it", "send_date", "state", "attempts", "last_error"],
                },
            },
        }
    ),
)
DOCUMENT_LIST = _component(
    "DocumentList",
    _object(
        {
            "data": {"type": "array", "items": DOCUMENT_ROW},
            # only when the request used the extension (changed_since, limit, after: docs/local_store.md)
            "changes": _object(
                {
                    "as_of": _string(description="La hora del servicio al leer (el próximo changed_since)."),
                    "next": _string(nullable=True, description="El after de la página siguiente."),
                    "limit": {"type": "integer"},
                }
            ),
        },
        required=("data",),
    ),
)
SUMMARY_SENT = _component(
    "SummarySent",
    _object(
        {
            "success": {"const": True},
            "data": _object(
                {
                    "external_id": _string(),
                    "ticket": _string(),
                    "summaries": {
                        "type": "array",
                        "items": _object({"external_id": _string(), "ticket": _string()}),
                        "description": "Cuando hicieron falta varios resúmenes (500 líneas cada uno).",
                    },
                },
                required=("external_id", "ticket"),
            ),
        }
    ),
)
TICKET_ANSWERED = _component(
    "TicketAnswered",
    _object(
        {
            "success": {"const": True},
            "data": _object({"filename": _string(), "external_id": _string()}),
            "links": _object({"xml": _string(), "cdr": _string()}),
            "response": _object(
                {
                    "sent": {"const": True},
                    "code": _string(),
                    "description": _string(),
                    "notes": {"type": "array", "items": _string()},
                    "is_accepted": {"type": "boolean"},
                    "status_code": {"type": "integer", "enum": [0, 99]},
                }
            ),
        }
    ),
)
TICKET_IN_PROCESS = _component(
    "TicketInProcess",
    {
        "allOf": [
            ERROR,
            _object(
                {
                    "data": _object(
                        {
                            "filename": _string(),
                            "external_id": _string(),
                            "ticket": _string(),
                            "state_type_id": _string(),
                            "state_type_description": _string(),
                        }
                    )
                }
            ),
        ]
    },
)
SUMMARY_ROW = _component(
    "SummaryRow",
    _object(
        {
            "id": {"type": "integer"},
            "external_id": _string(),
            "identifier": _string(description="RC-AAAAMMDD-n o RA-AAAAMMDD-n."),
            "filename": _string(),
            "ticket": _string(),
            "summary_type": _string(enum=["RC", "RA"]),
            "process_type": _string(enum=["1", "3"]),
            "date_of_issue": _string(format="date"),
            "date_of_reference": _string(format="date"),
            "documents": {"type": "integer"},
            "state_type_id": _string(),
            "state_type_description": _string(),
            "response": {"type": ["object", "null"]},
            "has_cdr": {"type": "boolean"},
            "download_xml": _string(),
            "download_cdr": _string(),
            "created_at": _string(nullable=True),
        }
    ),
)
SUMMARY_LIST = _component("SummaryList", _object({"data": {"type": "array", "items": SUMMARY_ROW}}))

#: The file a download answers, by content type.
FILES = {
    "application/pdf": "El PDF (A4 o ticket).",
    "application/xml": "El XML firmado.",
    "application/zip": "La constancia de recepción (CDR) de SUNAT, en zip.",
}


def body(declared: Object, example: dict[str, Any] | None = None) -> dict[str, Any]:
    """``openapi_extra`` of a route that reads ``declared``: its JSON Schema, required, and an example."""
    content: dict[str, Any] = {"schema": declared.schema(COMPONENTS)}
    if example is not None:
        content["example"] = example
    return {"requestBody": {"required": True, "content": {"application/json": content}}}


def secured(extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """``openapi_extra`` of a route that needs a tenant user's token (either scheme)."""
    return {**(extra or {}), "security": SECURED}


def responses(
    ok: dict[str, Any] | None,
    *errors: int,
    extra: dict[int, Any] | None = None,
    links: dict[str, Any] | None = None,
) -> dict[int | str, Any]:
    """The ``responses`` of a route: 200 with ``ok`` (a JSON schema) and its ``links`` (what a client,
    or the contract test's state machine, can call next with the answer), each error status with the
    error envelope, and ``extra`` answers as given (the 202 of a ticket in process)."""
    answers: dict[int | str, Any] = {}
    if ok is not None:
        answers[200] = {"description": "OK", "content": {"application/json": {"schema": ok}}}
        if links:
            answers[200]["links"] = links
    for status in errors:
        answers[status] = {"description": STATUS_DESCRIPTIONS[status], "content": ERROR_CONTENT}
    for status, answer in (extra or {}).items():
        answers[status] = answer
    return answers


def link(operation_id: str, *, parameters: dict[str, Any] | None = None, body: Any = None) -> dict[str, Any]:
    """An OpenAPI link to ``operation_id`` with path ``parameters`` and a request ``body``, whose
    ``$response.body#/...`` expressions take values from the answer."""
    found: dict[str, Any] = {"operationId": operation_id}
    if parameters:
        found["parameters"] = parameters
    if body is not None:
        found["requestBody"] = body
    return found


ISSUED_ID = "$response.body#/data/external_id"
SUMMARY_ID = "$response.body#/data/external_id"
SUMMARY_TICKET = "$response.body#/data/ticket"


def files(*media_types: str) -> dict[str, Any]:
    """A 200 answered with a file of one of ``media_types``."""
    return {
        "description": " ".join(FILES[media] for media in media_types),
        "headers": {"Content-Disposition": {"schema": {"type": "string"}}},
        "content": {media: {"schema": {"type": "string", "format": "binary"}} for media in media_types},
    }


def ticket_in_process() -> dict[str, Any]:
    """The 202 of a ticket SUNAT still processes."""
    return {
        "description": STATUS_DESCRIPTIONS[202],
        "headers": {"Retry-After": {"schema": {"type": "integer"}, "description": "Segundos."}},
        "content": {"application/json": {"schema": TICKET_IN_PROCESS}},
    }
