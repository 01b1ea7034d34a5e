"""``GET /api/company/certificate``: the certificate the tenant signs with and SUNAT's last certificate
error; ``GET /api/company/attention``: what the service stopped doing by itself, for a person to settle
(extensions of this service: real tenants do not expose them, and the connector says so)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.concurrency import run_in_threadpool

from facturador.api import contract
from facturador.api.common import authenticated
from facturador.api.listing import BOOLEAN, INTEGER, component, obj, string
from facturador.domain.company import certificate_status
from facturador.domain.pending import needing_a_person

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


ATTENTION = component(
    "Attention",
    obj(
        {
            "success": {"const": True},
            "data": {
                "type": "array",
                "items": obj(
                    {
                        "kind": string(description="document or summary"),
                        "reference": string(description="F001-7, RC-20261205-1"),
                        "date": string(description="Y-m-d"),
                        "code": string(description="SUNAT's last code"),
                        "reason": string(),
                    }
                ),
            },
        }
    ),
)


@router.get(
    "/api/company/attention",
    summary="Documents and summaries the service stopped sending or asking about, for a person to settle",
    operation_id="companyAttention",
    openapi_extra=contract.secured(),
    responses=contract.responses(ATTENTION, 401, 404),
)
async def attention(request: Request) -> dict[str, Any]:
    tenant, _caller = authenticated(request)
    data = await run_in_threadpool(needing_a_person, request.app.state.context, tenant.id)
    return {"success": True, "data": data}
