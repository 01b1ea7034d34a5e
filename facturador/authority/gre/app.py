"""The GRE REST API simulator as an ASGI application (Starlette), mountable in the service or run alone.

Routes, as SUNAT publishes them (``docs/sunat_domain.md``, transport; the token host ``api-seguridad`` and the
API host ``api-cpe`` share one application here):

- ``POST /v1/clientessol/{client_id}/oauth2/token/`` (form: grant_type=password, scope, client_id,
  client_secret, username, password) -> ``{access_token, token_type, expires_in}``;
- ``POST /v1/contribuyente/gem/comprobantes/{name}`` (bearer; JSON ``{archivo: {nomArchivo, arcGreZip,
  hashZip}}``) -> ``{numTicket, fecRecepcion}``;
- ``GET /v1/contribuyente/gem/comprobantes/envios/{numTicket}`` (bearer) -> ``{codRespuesta, error?,
  arcCdr?, indCdrGenerado?}``.

Errors: the token endpoint answers ``{error, error_description}`` (400/401); the API ``{cod, msg,
errors}`` with 401 (token), 404 (ticket), 422 (file) and 500 for a simulator bug.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from facturador.authority.gre.simulator import GreError, GreSimulator, TokenError
from facturador.errors import ServiceError

__all__ = ["API_PREFIX", "create_gre_app"]

logger = logging.getLogger(__name__)

API_PREFIX = "/v1/contribuyente/gem/comprobantes"
#: The largest request the API takes (SUNAT's limit for a guide's zip is far below it).
MAX_BODY_BYTES = 5 * 1024 * 1024


Endpoint = Callable[[Request], Awaitable[JSONResponse]]
#: The service's one check of path parameters (``facturador.domain.fields.check_path_parameters``):
#: raises :class:`ServiceError` naming a parameter it refuses.
PathCheck = Callable[[Mapping[str, str], bytes], None]


def _no_check(_parameters: Mapping[str, str], _raw_path: bytes) -> None:
    return None


def _checked(endpoint: Endpoint, refused: Callable[[str], JSONResponse], check: PathCheck) -> Endpoint:
    """``endpoint`` after the service's one check of path parameters; a refusal is ``refused(message)``,
    in the shape of the endpoint's own errors."""

    async def run(request: Request) -> JSONResponse:
        try:
            check(request.path_params, request.scope.get("raw_path") or b"")
        except ServiceError as exc:
            return refused(exc.message)
        return await endpoint(request)

    return run


def create_gre_app(
    simulator: GreSimulator, *, threads: int = 8, check_path: PathCheck = _no_check
) -> Starlette:
    """The ASGI application answering SUNAT's GRE REST API with ``simulator``.

    Its blocking work runs on worker threads of its own (at most ``threads`` at once), not on the
    default pool: the service calls this API from its own worker threads, and sharing one pool could
    leave every thread waiting on a request that needs a thread to be answered.
    """
    limiter = anyio.CapacityLimiter(threads)

    async def run_in_threadpool(function: Callable[..., Any], *args: Any) -> Any:
        return await anyio.to_thread.run_sync(lambda: function(*args), limiter=limiter)

    async def token(request: Request) -> JSONResponse:
        try:
            form = await request.form()
        except Exception:  # noqa: BLE001 - a body that is not a form is SUNAT's invalid_request
            return JSONResponse(
                {"error": "invalid_request", "error_description": "formulario no valido"}, 400
            )
        fields = {key: value for key, value in form.items() if isinstance(value, str)}
        try:
            answer = await run_in_threadpool(simulator.token, request.path_params["client_id"], fields)
        except TokenError as exc:
            return JSONResponse(exc.body(), exc.status)
        return JSONResponse(answer)

    async def send(request: Request) -> JSONResponse:
        try:
            ruc = simulator.taxpayer(request.headers.get("authorization"))
            raw = await request.body()
            if len(raw) > MAX_BODY_BYTES:
                raise GreError(413, "0155", "El archivo supera el tamaño permitido")
            try:
                body: Any = json.loads(raw)
            except ValueError:
                raise GreError(422, "0155", "El cuerpo no es un JSON valido") from None
            answer = await run_in_threadpool(simulator.receive, ruc, request.path_params["name"], body)
        except GreError as exc:
            return JSONResponse(exc.body(), exc.status)
        except ClientDisconnect:
            raise  # the client left: the service logs one line (a bare simulator has nobody to tell)
        except Exception:  # pragma: no cover - bugs only
            logger.exception("GRE simulator failed receiving %s", request.path_params["name"])
            return JSONResponse({"cod": "0100", "msg": "Error interno del servicio"}, 500)
        return JSONResponse(answer)

    async def status(request: Request) -> JSONResponse:
        try:
            ruc = simulator.taxpayer(request.headers.get("authorization"))
            answer = await run_in_threadpool(simulator.status, ruc, request.path_params["ticket"])
        except GreError as exc:
            return JSONResponse(exc.body(), exc.status)
        except Exception:  # pragma: no cover - bugs only
            logger.exception("GRE simulator failed answering ticket %s", request.path_params["ticket"])
            return JSONResponse({"cod": "0100", "msg": "Error interno del servicio"}, 500)
        return JSONResponse(answer)

    def token_refused(message: str) -> JSONResponse:
        return JSONResponse(TokenError(400, "invalid_request", message).body(), 400)

    def api_refused(message: str) -> JSONResponse:
        return JSONResponse(GreError(422, "0155", message).body(), 422)

    app = Starlette(
        routes=[
            Route(
                "/v1/clientessol/{client_id}/oauth2/token/",
                _checked(token, token_refused, check_path),
                methods=["POST"],
            ),
            Route(
                "/v1/clientessol/{client_id}/oauth2/token",
                _checked(token, token_refused, check_path),
                methods=["POST"],
            ),
            Route(
                API_PREFIX + "/envios/{ticket}", _checked(status, api_refused, check_path), methods=["GET"]
            ),
            Route(API_PREFIX + "/{name}", _checked(send, api_refused, check_path), methods=["POST"]),
        ]
    )
    app.state.simulator = simulator
    return app
