"""``/downloads/document/{xml|pdf|cdr}/{external_id}``: a document's files (public, as in real tenants);
``/downloads/summary/{xml|cdr}/{external_id}`` and ``/downloads/voided/{xml|cdr}/{external_id}``: the
signed XML and the CDR of a daily summary and of a voided communication."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from typing import Annotated

from fastapi import APIRouter, Path, Request, Response
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from facturador.api import contract, heavy
from facturador.api.common import CLIENT_CLOSED_REQUEST, ExternalIdParameter, current_tenant, path_parameter
from facturador.domain import documents, summaries
from facturador.domain.document_schema import EXTERNAL_ID
from facturador.domain.summaries import RA, RC
from facturador.render.pdf import RenderCancelled

router = APIRouter(prefix="/downloads", tags=["downloads"], default_response_class=Response)

DocumentKind = Annotated[
    str, Path(description="El archivo (otro: 404).", json_schema_extra={"enum": list(documents.FILE_KINDS)})
]
SummaryKind = Annotated[
    str, Path(description="El archivo (otro: 404).", json_schema_extra={"enum": list(summaries.FILE_KINDS)})
]
PdfFormat = Annotated[
    str,
    Path(
        description="El formato del PDF (otro: 404).",
        json_schema_extra={"enum": list(documents.PDF_DOWNLOAD_FORMATS)},
    ),
]
#: How long a download waits for the PDF of a document of more than ``HEAVY_LINES`` lines being rendered
#: before answering 202 with Retry-After (the rendering goes on, once, and the PDF is stored for the
#: request sent again): a big document (a 999-line factura renders in seconds, 20 at once took up to 31 s)
#: does not hold a connection, a client's timeout or a proxy's. A small document's PDF, rendered in a
#: moment, is always answered at once. ``FACTURADOR_PDF_WAIT_SECONDS`` sets it.
PDF_WAIT_SECONDS = 2.0
PDF_WAIT_ENV = "FACTURADOR_PDF_WAIT_SECONDS"
#: The Retry-After of a PDF not ready yet.
PDF_RETRY_AFTER_SECONDS = 2
PDF_NOT_READY_SCHEMA = {
    "type": "object",
    "required": ["success", "status", "message", "retry_after"],
    "properties": {
        "success": {"type": "boolean"},
        "status": {"type": "string", "enum": ["rendering"]},
        "message": {"type": "string"},
        "retry_after": {"type": "integer", "description": "Segundos."},
    },
}
DOCUMENT_FILES = contract.responses(
    None,
    404,
    422,
    extra={
        200: contract.files("application/xml", "application/pdf", "application/zip"),
        202: {
            "description": "El PDF se está generando: pídalo de nuevo tras Retry-After segundos.",
            "headers": {"Retry-After": {"schema": {"type": "integer"}, "description": "Segundos."}},
            "content": {"application/json": {"schema": PDF_NOT_READY_SCHEMA}},
        },
    },
)
SUMMARY_FILES = contract.responses(
    None, 404, 422, extra={200: contract.files("application/xml", "application/zip")}
)
log = logging.getLogger("facturador.downloads")
DISCONNECT_POLL_SECONDS = 0.05


@router.get(
    "/document/{kind}/{external_id}",
    summary="Download the signed XML, the PDF or the CDR zip",
    operation_id="downloadDocument",
    responses=DOCUMENT_FILES,
)
async def document_file(request: Request, kind: DocumentKind, external_id: ExternalIdParameter) -> Response:
    return await _document_file(request, kind, external_id, None)


@router.get(
    "/document/{kind}/{external_id}/{fmt}",
    summary="Download the PDF in a format (a4, ticket)",
    operation_id="downloadDocumentPdf",
    responses=DOCUMENT_FILES,
)
async def document_pdf(
    request: Request, kind: DocumentKind, external_id: ExternalIdParameter, fmt: PdfFormat
) -> Response:
    return await _document_file(request, kind, external_id, fmt)


async def _document_file(request: Request, kind: str, external_id: str, fmt: str | None) -> Response:
    tenant = current_tenant(request)
    external_id = path_parameter(EXTERNAL_ID, external_id, "external_id")
    found = await heavy.light(request.app.state.documents.download, tenant, kind, external_id, fmt)
    if isinstance(found, documents.PdfToRender):
        try:
            content = await _rendered(request, found, external_id)
        except heavy.ClientGone:
            return Response(status_code=CLIENT_CLOSED_REQUEST)
        except heavy.NotReady:
            return _not_ready(found.filename)
        found = documents.Download(content, found.filename, "application/pdf")
    disposition = "inline" if found.media_type == "application/pdf" else "attachment"
    return Response(
        content=found.content,
        media_type=found.media_type,
        headers={"Content-Disposition": f'{disposition}; filename="{found.filename}"'},
    )


async def _rendered(request: Request, pdf: documents.PdfToRender, external_id: str) -> bytes:
    """The PDF rendered in the heavy lane, once for every request that wants it meanwhile; raises
    :class:`~facturador.api.heavy.ClientGone` when this request's client leaves first. The rendering
    stops when every client that asked for it has left."""

    def render(abandoned: Callable[[], bool]) -> bytes:
        try:
            return pdf.render(abandoned)
        except RenderCancelled:
            log.info("rendering the PDF of %s stopped: every client that asked for it left", external_id)
            raise

    gone = asyncio.Event()
    watcher = asyncio.create_task(_watch_disconnect(request, gone))
    try:
        # a small document's PDF is waited for (it takes a moment), a big one's for PDF_WAIT_SECONDS at most
        wait = pdf_wait_seconds() if pdf.lines > heavy.HEAVY_LINES else None
        return await heavy.heavy_work(request).shared(pdf.key, render, gone, wait=wait)
    finally:
        watcher.cancel()


def pdf_wait_seconds() -> float:
    """How long a download waits for its PDF (:data:`PDF_WAIT_SECONDS`; ``FACTURADOR_PDF_WAIT_SECONDS``)."""
    try:
        return max(float(os.environ.get(PDF_WAIT_ENV) or PDF_WAIT_SECONDS), 0.0)
    except ValueError:
        return PDF_WAIT_SECONDS


def _not_ready(filename: str) -> JSONResponse:
    """202: the PDF is being rendered (once, whoever asks meanwhile); ask again after Retry-After."""
    return JSONResponse(
        {
            "success": True,
            "status": "rendering",
            "message": f"El PDF {filename} se está generando; vuelva a pedirlo en {PDF_RETRY_AFTER_SECONDS} "
            "segundos.",
            "retry_after": PDF_RETRY_AFTER_SECONDS,
        },
        status_code=202,
        headers={"Retry-After": str(PDF_RETRY_AFTER_SECONDS), "Cache-Control": "no-store"},
    )


async def _watch_disconnect(request: Request, gone: asyncio.Event) -> None:
    """Set ``gone`` when the client disconnects (checked every 50 ms) so a long rendering stops."""
    while not await request.is_disconnected():
        await asyncio.sleep(DISCONNECT_POLL_SECONDS)
    gone.set()


@router.get(
    "/summary/{kind}/{external_id}",
    summary="Download a daily summary's signed XML or CDR zip",
    operation_id="downloadSummary",
    responses=SUMMARY_FILES,
)
async def summary_file(request: Request, kind: SummaryKind, external_id: ExternalIdParameter) -> Response:
    return await _summary_file(request, RC, kind, external_id)


@router.get(
    "/voided/{kind}/{external_id}",
    summary="Download a voided communication's signed XML or CDR zip",
    operation_id="downloadVoided",
    responses=SUMMARY_FILES,
)
async def voided_file(request: Request, kind: SummaryKind, external_id: ExternalIdParameter) -> Response:
    return await _summary_file(request, RA, kind, external_id)


async def _summary_file(request: Request, summary_type: str, kind: str, external_id: str) -> Response:
    tenant = current_tenant(request)
    external_id = path_parameter(EXTERNAL_ID, external_id, "external_id")
    download = await run_in_threadpool(
        request.app.state.summaries.download, tenant, summary_type, kind, external_id
    )
    return Response(
        content=download.content,
        media_type=download.media_type,
        headers={"Content-Disposition": f'attachment; filename="{download.filename}"'},
    )
