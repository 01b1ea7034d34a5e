"""``/downloads/document/{xml|pdf|cdr}/{external_id}``: a document's files (public, as in real tenants);
``/downloads/summary/{xml|cdr}/{external_id}`` and ``/downloads/voided/{xml|cdr}/{external_id}``: the
signed XML and the CDR of a daily summary and of a voided communication."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from starlette.concurrency import run_in_threadpool

from facturador.service.api.common import current_tenant
from facturador.service.domain.summaries import RA, RC

router = APIRouter(prefix="/downloads", tags=["downloads"])


@router.get("/document/{kind}/{external_id}", summary="Download the signed XML, the PDF or the CDR zip")
@router.get("/document/{kind}/{external_id}/{fmt}", summary="Download the PDF in a format (a4, ticket)")
async def document_file(request: Request, kind: str, external_id: str, fmt: str | None = None) -> Response:
    tenant = current_tenant(request)
    download = await run_in_threadpool(request.app.state.documents.download, tenant, kind, external_id, fmt)
    disposition = "inline" if download.media_type == "application/pdf" else "attachment"
    return Response(
        content=download.content,
        media_type=download.media_type,
        headers={"Content-Disposition": f'{disposition}; filename="{download.filename}"'},
    )


@router.get("/summary/{kind}/{external_id}", summary="Download a daily summary's signed XML or CDR zip")
async def summary_file(request: Request, kind: str, external_id: str) -> Response:
    return await _summary_file(request, RC, kind, external_id)


@router.get("/voided/{kind}/{external_id}", summary="Download a voided communication's signed XML or CDR zip")
async def voided_file(request: Request, kind: str, external_id: str) -> Response:
    return await _summary_file(request, RA, kind, external_id)


async def _summary_file(request: Request, summary_type: str, kind: str, external_id: str) -> Response:
    tenant = current_tenant(request)
    download = await run_in_threadpool(
        request.app.state.summaries.download, tenant, summary_type, kind, external_id
    )
    return Response(
        content=download.content,
        media_type=download.media_type,
        headers={"Content-Disposition": f'attachment; filename="{download.filename}"'},
    )
