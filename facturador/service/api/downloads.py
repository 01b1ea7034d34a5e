"""``/downloads/document/{xml|pdf|cdr}/{external_id}``: a document's files (public, as in real tenants)."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from starlette.concurrency import run_in_threadpool

from facturador.service.api.common import current_tenant

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
