"""The SIRE RVIE API simulator as an ASGI application (Starlette), mountable in the service or run alone.

Routes (the token host ``api-seguridad`` and the API host ``api-sire`` share one application here, as
the GRE simulator does; :data:`BOOKS` = ``/v1/contribuyente/migeigv/libros``):

- ``POST /v1/clientessol/{client_id}/oauth2/token/``: the password grant;
- ``GET  BOOKS/rvierce/padron/web/omisos/{codLibro}/periodos``;
- ``GET  BOOKS/rvie/propuesta/web/propuesta/{per}/exportapropuesta`` -> ``{numTicket}``;
- ``GET  BOOKS/rvierce/gestionprocesosmasivos/web/masivo/consultaestadotickets``;
- ``GET  BOOKS/rvierce/gestionprocesosmasivos/web/masivo/archivoreporte`` -> the file;
- ``POST BOOKS/rvie/propuesta/web/propuesta/{per}/aceptapropuesta`` -> ``{numTicket}``;
- ``POST BOOKS/rvierce/receptorpropuesta/web/propuesta/upload`` (TUS creation, 201 + ``Location``),
  ``HEAD``/``PATCH`` of ``…/upload/{id}`` (the last ``PATCH`` answers ``{numTicket}``); the same for the
  later adjustments at ``BOOKS/rvierce/receptorajustesposteriores/web/ajustesposteriores/upload``;
- ``POST BOOKS/rvierce/gestionlibro/web/registroslibros/{per}/registrapreliminar`` -> ``{numTicket}``;
- ``GET  BOOKS/rvierce/resumen/web/resumencomprobantes/{per}/{tipo}/{archivo}/exporta`` -> TXT.

Errors: the token endpoint ``{error, error_description}`` (400/401); the API ``{cod, msg, errors:[{cod,
msg}]}`` with 401 (token), 404, 422 (business), 429/503 (injected, with ``Retry-After``).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from facturador.authority.sire.simulator import SireApiError, SireSimulator, TokenError

__all__ = ["BOOKS", "create_sire_app"]

logger = logging.getLogger(__name__)

BOOKS = "/v1/contribuyente/migeigv/libros"
UPLOAD = BOOKS + "/rvierce/receptorpropuesta/web/propuesta/upload"
ADJUSTMENTS = BOOKS + "/rvierce/receptorajustesposteriores/web/ajustesposteriores/upload"
#: The largest chunk a PATCH may carry here (the client sends 5 MB).
MAX_CHUNK = 8 * 1024 * 1024
TUS = {"Tus-Resumable": "1.0.0"}


def create_sire_app(simulator: SireSimulator, *, threads: int = 4) -> Starlette:
    """The ASGI application answering SUNAT's SIRE RVIE API with ``simulator``."""
    limiter = anyio.CapacityLimiter(threads)

    async def off_loop(function: Callable[..., Any], *args: Any) -> Any:
        def shared() -> Any:
            with simulator.shared():  # the state every worker process of the service sees
                return function(*args)

        return await anyio.to_thread.run_sync(shared, limiter=limiter)

    def api(
        work: Callable[[Request, str], Awaitable[Response]], *, period_param: str | None = "period"
    ) -> Callable[[Request], Awaitable[Response]]:
        async def run(request: Request) -> Response:
            try:
                ruc = simulator.taxpayer(request.headers.get("authorization"))
                period = request.path_params.get(period_param or "") or request.query_params.get(
                    "perTributario"
                )
                simulator.gate(ruc, period)
                return await work(request, ruc)
            except SireApiError as exc:
                headers = {"Retry-After": f"{exc.retry_after:g}"} if exc.retry_after is not None else None
                return JSONResponse(exc.body(), exc.status, headers=headers)
            except Exception:  # pragma: no cover - bugs only
                logger.exception("SIRE simulator failed on %s", request.url.path)
                return JSONResponse({"cod": "500", "msg": "Error interno del servicio"}, 500)

        return run

    async def token(request: Request) -> JSONResponse:
        try:
            form = await request.form()
        except Exception:  # noqa: BLE001 - a body that is not a form is invalid_request
            return JSONResponse(
                {"error": "invalid_request", "error_description": "formulario no valido"}, 400
            )
        fields = {key: value for key, value in form.items() if isinstance(value, str)}
        try:
            answer = await off_loop(simulator.token, request.path_params["client_id"], fields)
        except TokenError as exc:
            return JSONResponse(exc.body(), exc.status)
        return JSONResponse(answer)

    async def periods(request: Request, ruc: str) -> Response:
        return JSONResponse(await off_loop(simulator.periods, ruc, request.path_params["book"]))

    async def proposal(request: Request, ruc: str) -> Response:
        answer = await off_loop(
            simulator.request_proposal, ruc, request.path_params["period"], dict(request.query_params)
        )
        return JSONResponse(answer)

    async def tickets(request: Request, ruc: str) -> Response:
        return JSONResponse(await off_loop(simulator.tickets, ruc, dict(request.query_params)))

    async def report(request: Request, ruc: str) -> Response:
        name, data = await off_loop(simulator.report_file, ruc, dict(request.query_params))
        return Response(
            data,
            media_type="application/octet-stream",
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    async def accept(request: Request, ruc: str) -> Response:
        return JSONResponse(await off_loop(simulator.accept, ruc, request.path_params["period"]))

    async def preliminary(request: Request, ruc: str) -> Response:
        return JSONResponse(
            await off_loop(simulator.register_preliminary, ruc, request.path_params["period"])
        )

    async def summary(request: Request, ruc: str) -> Response:
        data = await off_loop(
            simulator.summary,
            ruc,
            request.path_params["period"],
            request.path_params["kind"],
            request.query_params.get("codLibro", ""),
        )
        return Response(data, media_type="text/plain; charset=utf-8")

    async def create(request: Request, ruc: str) -> Response:
        adjustments = "ajustesposteriores" in request.url.path
        headers = {k.lower(): v for k, v in request.headers.items()}
        upload_id = await off_loop(lambda: simulator.create_upload(ruc, headers, adjustments=adjustments))
        where = ADJUSTMENTS if adjustments else UPLOAD
        location = f"{request.scope.get('root_path', '')}{where}/{upload_id}"
        return Response(status_code=201, headers={**TUS, "Location": location, "Upload-Offset": "0"})

    async def upload(request: Request, ruc: str) -> Response:
        upload_id = request.path_params["upload"]
        if request.method == "HEAD":
            offset, length = await off_loop(simulator.upload_offset, ruc, upload_id)
            return Response(
                status_code=200,
                headers={
                    **TUS,
                    "Upload-Offset": str(offset),
                    "Upload-Length": str(length),
                    "Cache-Control": "no-store",
                },
            )
        if request.headers.get("content-type") != "application/offset+octet-stream":
            raise SireApiError(415, "415", "Content-Type debe ser application/offset+octet-stream")
        try:
            offset = int(request.headers.get("upload-offset") or "")
        except ValueError:
            raise SireApiError(400, "400", "Upload-Offset es obligatorio") from None
        chunk = await request.body()
        if len(chunk) > MAX_CHUNK:
            raise SireApiError(413, "413", "El fragmento es demasiado grande")
        new_offset, ticket = await off_loop(simulator.append, ruc, upload_id, offset, chunk)
        headers = {**TUS, "Upload-Offset": str(new_offset)}
        if ticket:
            return JSONResponse({"numTicket": ticket}, 200, headers=headers)
        return Response(status_code=204, headers=headers)

    prefix = BOOKS
    app = Starlette(
        routes=[
            Route("/v1/clientessol/{client_id}/oauth2/token/", token, methods=["POST"]),
            Route("/v1/clientessol/{client_id}/oauth2/token", token, methods=["POST"]),
            Route(prefix + "/rvierce/padron/web/omisos/{book}/periodos", api(periods), methods=["GET"]),
            Route(
                prefix + "/rvie/propuesta/web/propuesta/{period}/exportapropuesta",
                api(proposal),
                methods=["GET"],
            ),
            Route(
                prefix + "/rvierce/gestionprocesosmasivos/web/masivo/consultaestadotickets",
                api(tickets),
                methods=["GET"],
            ),
            Route(
                prefix + "/rvierce/gestionprocesosmasivos/web/masivo/archivoreporte",
                api(report),
                methods=["GET"],
            ),
            Route(
                prefix + "/rvie/propuesta/web/propuesta/{period}/aceptapropuesta",
                api(accept),
                methods=["POST"],
            ),
            Route(
                prefix + "/rvierce/gestionlibro/web/registroslibros/{period}/registrapreliminar",
                api(preliminary),
                methods=["POST"],
            ),
            Route(
                prefix + "/rvierce/resumen/web/resumencomprobantes/{period}/{kind}/{format}/exporta",
                api(summary),
                methods=["GET"],
            ),
            Route(UPLOAD, api(create, period_param=None), methods=["POST"]),
            Route(UPLOAD + "/{upload}", api(upload, period_param=None), methods=["HEAD", "PATCH"]),
            Route(ADJUSTMENTS, api(create, period_param=None), methods=["POST"]),
            Route(ADJUSTMENTS + "/{upload}", api(upload, period_param=None), methods=["HEAD", "PATCH"]),
        ]
    )
    app.state.simulator = simulator
    return app
