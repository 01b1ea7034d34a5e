"""``GET /api/company/certificate``: the certificate the tenant signs with and SUNAT's last certificate
error (an extension of this service: real tenants do not expose it, and the connector says so)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.concurrency import run_in_threadpool

from facturador.api import contract
from facturador.api.common import authenticated
from facturador.api.listing import BOOLEAN, INTEGER, component, obj, string
from facturador.domain.company import certificate_status

router = APIRouter(tags=["company"])

CERTIFICATE = obj(
    {
        "subject": string(),
        "issuer": string(),
        "serial": string(),
        "not_before": string(description="Y-m-d"),
        "not_after": string(description="Y-m-d"),
        "days_left": INTEGER,
        "self_signed": BOOLEAN,
    }
)
CERTIFICATE_ERROR = obj(
    {"code": string(), "description": string(), "number": string(), "date_of_issue": string()}
)
CERTIFICATE_STATUS = component(
    "CertificateStatus",
    obj(
        {
            "success": {"const": True},
            "data": obj(
                {
                    "sending": string(description="simulator, beta, production or ose"),
                    "certificate": {"anyOf": [CERTIFICATE, {"type": "null"}]},
                    "last_certificate_error": {"anyOf": [CERTIFICATE_ERROR, {"type": "null"}]},
                }
            ),
        }
    ),
)


@router.get(
    "/api/company/certificate",
    summary="The signing certificate (validity, days left) and SUNAT's last certificate error (2325-2328)",
    operation_id="companyCertificate",
    openapi_extra=contract.secured(),
    responses=contract.responses(CERTIFICATE_STATUS, 401, 404),
)
async def certificate(request: Request) -> dict[str, Any]:
    tenant, _caller = authenticated(request)
    data = await run_in_threadpool(certificate_status, request.app.state.context, tenant)
    return {"success": True, "data": data}
