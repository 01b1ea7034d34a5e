"""What a tenant's operator must watch about its own sending: the certificate it signs with and SUNAT's
last certificate error (2325-2328), for ``GET /api/company/certificate`` (an extension of this service)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import select

from facturador.context import ServiceContext, TenantInfo
from facturador.domain import states
from facturador.store.identities import stored_certificate
from facturador.store.models import DOCUMENTS

#: SUNAT's certificate errors: not the certificate communicated to SUNAT, revoked by its owner, not valid,
#: revoked by the authority that issued it.
CERTIFICATE_ERRORS = frozenset({"2325", "2326", "2327", "2328"})
#: How far back SUNAT's last certificate error is looked for.
LOOK_BACK_DAYS = 30


def certificate_status(context: ServiceContext, tenant: TenantInfo) -> dict[str, Any]:
    """The certificate the tenant signs with (subject, issuer, validity, days left, whether it is the
    generated one), where it sends, and SUNAT's latest certificate error of the last 30 days (or None)."""
    with context.session() as session:
        info = stored_certificate(session, tenant.id)
    since = context.today() - dt.timedelta(days=LOOK_BACK_DAYS)
    query = (
        select(DOCUMENTS.c.series, DOCUMENTS.c.number, DOCUMENTS.c.date_of_issue, DOCUMENTS.c.response)
        .where(
            DOCUMENTS.c.tenant_id == tenant.id,
            DOCUMENTS.c.state_type_id == states.REJECTED,
            DOCUMENTS.c.date_of_issue >= since,
        )
        .order_by(DOCUMENTS.c.date_of_issue.desc(), DOCUMENTS.c.id.desc())
    )
    last_error = None
    with context.engine.connect() as connection:
        for row in connection.execute(query):
            code = str((row.response or {}).get("code", ""))
            if code in CERTIFICATE_ERRORS:
                last_error = {
                    "code": code,
                    "description": str(row.response.get("description", "")),
                    "number": f"{row.series}-{row.number}",
                    "date_of_issue": row.date_of_issue.isoformat(),
                }
                break
    certificate = None
    if info is not None:
        certificate = {
            "subject": info.subject,
            "issuer": info.issuer,
            "serial": info.serial,
            "not_before": info.not_before.date().isoformat(),
            "not_after": info.not_after.date().isoformat(),
            "days_left": info.days_left(),
            "self_signed": info.self_signed,
        }
    return {
        "sending": tenant.settings.get("sunat_sending", "simulator"),
        "certificate": certificate,
        "last_certificate_error": last_error,
    }
