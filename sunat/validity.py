"""SUNAT's *consulta integrada de validez de CPE* API as data: its paths, scope, request body, answer and
what each answer means for a document's state in the books (``docs/validity.md``, with the sources).

``POST {api}/v1/contribuyente/contribuyentes/{ruc}/validarcomprobante`` with a bearer token from the
``client_credentials`` grant of ``{token}/v1/clientesextranet/{client_id}/oauth2/token/`` (scope
:data:`SCOPE`); the body names one document (:class:`ValidityQuery`), the answer says SUNAT's state of it
(:class:`ValidityAnswer`: ``estadoCp`` 0-4, ``estadoRuc``, ``condDomiRuc``, ``observaciones``).

No HTTP here: the analyst's client is :mod:`connector.validity`, the simulator
:mod:`facturador.authority.validity`; both speak this module's format.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

__all__ = [
    "CP_STATES",
    "DOCUMENT_TYPES",
    "DOMICILE_CONDITIONS",
    "QUERY_PATH",
    "RUC_STATES",
    "SCOPE",
    "SUNAT_API_URL",
    "SUNAT_TOKEN_URL",
    "TOKEN_PATH",
    "ValidityAnswer",
    "ValidityQuery",
    "agrees",
    "proposed_state",
    "verdict_of",
]

#: SUNAT's hosts: the token (``api-seguridad``) and the API (``api``).
SUNAT_TOKEN_URL = "https://api-seguridad.sunat.gob.pe"
SUNAT_API_URL = "https://api.sunat.gob.pe"
#: The token endpoint (``client_credentials``; the client id goes in the path and in the form).
TOKEN_PATH = "/v1/clientesextranet/{client_id}/oauth2/token/"
#: The query; ``{ruc}`` is the RUC of who asks (the company whose API credentials these are).
QUERY_PATH = "/v1/contribuyente/contribuyentes/{ruc}/validarcomprobante"
SCOPE = "https://api.sunat.gob.pe/v1/contribuyente/contribuyentes"

#: What the API checks: facturas, boletas, liquidaciones (04), notes, receipts for fees (R1) and notes
#: of them (R7).
DOCUMENT_TYPES = ("01", "03", "04", "07", "08", "R1", "R7")
#: ``estadoCp``: the document's state at SUNAT (3 and 4 are for printed documents).
CP_STATES = {"0": "NO EXISTE", "1": "ACEPTADO", "2": "ANULADO", "3": "AUTORIZADO", "4": "NO AUTORIZADO"}
#: ``estadoRuc``: the issuer's taxpayer state.
RUC_STATES = {
    "00": "ACTIVO",
    "01": "BAJA PROVISIONAL",
    "02": "BAJA PROV. POR OFICIO",
    "03": "SUSPENSION TEMPORAL",
    "10": "BAJA DEFINITIVA",
    "11": "BAJA DE OFICIO",
    "22": "INHABILITADO-VENT.UNICA",
}
#: ``condDomiRuc``: the issuer's domicile condition.
DOMICILE_CONDITIONS = {
    "00": "HABIDO",
    "09": "PENDIENTE",
    "11": "POR VERIFICAR",
    "12": "NO HABIDO",
    "20": "NO HALLADO",
}
#: The observation the simulator adds to a "0" about a document SUNAT rejected (SUNAT's estadoCp has no
#: "rejected": a rejected document is no valid document, so it reads NO EXISTE).
REJECTED_MARK = "rechazado"

#: The sweep's verdicts: SUNAT's answer for the books.
VERDICTS = ("not_found", "accepted", "voided", "rejected", "authorized", "not_authorized")


@dataclass(frozen=True)
class ValidityQuery:
    """One document to ask about: its issuer's ``ruc``, type (catalog 01), ``series``, ``number``, date of
    issue and total (``amount``, in its own currency; None leaves it out)."""

    ruc: str
    doc_type: str
    series: str
    number: int
    issued: dt.date
    amount: Decimal | None = None

    @property
    def reference(self) -> str:
        """``F001-7``."""
        return f"{self.series}-{self.number}"

    def body(self) -> dict[str, Any]:
        """The JSON body (``monto`` as a string of two decimals: :meth:`to_json` sends it as a number)."""
        body: dict[str, Any] = {
            "numRuc": self.ruc,
            "codComp": self.doc_type,
            "numeroSerie": self.series,
            "numero": int(self.number),
            "fechaEmision": self.issued.strftime("%d/%m/%Y"),
        }
        if self.amount is not None:
            body["monto"] = f"{self.amount.quantize(Decimal('0.01'))}"
        return body

    def to_json(self) -> bytes:
        """The body as SUNAT takes it: ``monto`` a JSON number with two decimals (never a float)."""
        body = self.body()
        amount = body.pop("monto", None)
        text = json.dumps(body, separators=(",", ":"))
        if amount is not None:
            text = f'{text[:-1]},"monto":{amount}}}'
        return text.encode()

    @classmethod
    def from_body(cls, body: Mapping[str, Any]) -> ValidityQuery:
        """Read a request body; raises ValueError naming the first field that is wrong."""
        ruc = str(body.get("numRuc") or "")
        if len(ruc) != 11 or not ruc.isdigit():
            raise ValueError("numRuc: debe tener 11 dígitos")
        doc_type = str(body.get("codComp") or "")
        if doc_type not in DOCUMENT_TYPES:
            raise ValueError(f"codComp: debe ser uno de {', '.join(DOCUMENT_TYPES)}")
        series = str(body.get("numeroSerie") or "").upper()
        if len(series) != 4 or not series.isalnum():
            raise ValueError("numeroSerie: debe tener 4 caracteres")
        number = body.get("numero")
        try:
            value = int(str(number))
        except ValueError:
            raise ValueError("numero: debe ser un número") from None
        if not 1 <= value <= 99_999_999:
            raise ValueError("numero: debe estar entre 1 y 99999999")
        try:
            issued = dt.datetime.strptime(str(body.get("fechaEmision") or ""), "%d/%m/%Y").date()
        except ValueError:
            raise ValueError("fechaEmision: debe tener el formato dd/mm/aaaa") from None
        amount = None
        if body.get("monto") not in (None, ""):
            try:
                amount = Decimal(str(body["monto"]))
            except InvalidOperation:
                raise ValueError("monto: debe ser un importe") from None
            if not amount.is_finite() or amount < 0:
                raise ValueError("monto: debe ser un importe")
        return cls(ruc, doc_type, series, value, issued, amount)


@dataclass(frozen=True)
class ValidityAnswer:
    """SUNAT's answer about one document: ``state`` (``estadoCp``), the issuer's ``ruc_state`` and
    ``domicile``, and ``observations``."""

    state: str
    ruc_state: str = ""
    domicile: str = ""
    observations: tuple[str, ...] = ()
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def description(self) -> str:
        """``ACEPTADO``..."""
        return CP_STATES.get(self.state, self.state)

    @property
    def verdict(self) -> str:
        """One of :data:`VERDICTS`."""
        return verdict_of(self.state, self.observations)

    @classmethod
    def from_body(cls, body: Mapping[str, Any]) -> ValidityAnswer:
        """Read a successful answer ``{success: true, data: {...}}``; raises ValueError otherwise."""
        data = body.get("data")
        if not body.get("success") or not isinstance(data, Mapping) or data.get("estadoCp") is None:
            raise ValueError(str(body.get("message") or "respuesta sin data.estadoCp"))
        observations = data.get("observaciones") or []
        if not isinstance(observations, list):
            observations = [observations]
        return cls(
            state=str(data.get("estadoCp")),
            ruc_state=str(data.get("estadoRuc") or ""),
            domicile=str(data.get("condDomiRuc") or ""),
            observations=tuple(str(o).strip() for o in observations if str(o).strip()),
            raw=dict(body),
        )

    def to_body(self) -> dict[str, Any]:
        """The answer as SUNAT sends it."""
        data: dict[str, Any] = {"estadoCp": self.state}
        if self.ruc_state:
            data["estadoRuc"] = self.ruc_state
        if self.domicile:
            data["condDomiRuc"] = self.domicile
        if self.observations:
            data["observaciones"] = list(self.observations)
        return {"success": True, "message": "Operation Success! ", "data": data}


def verdict_of(state: str, observations: tuple[str, ...] | list[str] = ()) -> str:
    """SUNAT's ``estadoCp`` (with its observations) as a verdict of :data:`VERDICTS`."""
    if state == "1":
        return "accepted"
    if state == "2":
        return "voided"
    if state == "3":
        return "authorized"
    if state == "4":
        return "not_authorized"
    if any(REJECTED_MARK in o.lower() for o in observations):
        return "rejected"
    return "not_found"


#: The local states (``state_type_id``) each verdict agrees with: 01 (registered, not sent) with
#: "not_found" only; 03 (sent, no answer) and 13 (voiding sent, no answer) with none (a sweep runs once
#: tickets have settled, so SUNAT's answer settles them).
_AGREES: dict[str, frozenset[str]] = {
    "accepted": frozenset({"05", "07"}),
    "voided": frozenset({"11"}),
    "not_found": frozenset({"01", "09"}),
    "rejected": frozenset({"09"}),
    "authorized": frozenset({"05", "07"}),
    "not_authorized": frozenset({"09"}),
}
#: The state the books should take from each verdict.
_PROPOSED = {
    "accepted": "05",
    "voided": "11",
    "not_found": "01",
    "rejected": "09",
    "authorized": "05",
    "not_authorized": "09",
}


def agrees(verdict: str, local_state: str) -> bool:
    """Whether SUNAT's ``verdict`` agrees with the books' ``local_state``."""
    return local_state in _AGREES.get(verdict, frozenset())


def proposed_state(verdict: str, local_state: str) -> str:
    """The state the books should take after SUNAT's ``verdict`` (the local one when they agree; an
    observed 07 stays 07 when SUNAT says accepted)."""
    if agrees(verdict, local_state):
        return local_state
    return _PROPOSED.get(verdict, local_state)
