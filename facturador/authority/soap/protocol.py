"""SUNAT's SOAP services as they are published: paths, operations, namespaces and WS-Security.

Both sides of the wire use this module: the client that sends a tenant's documents to SUNAT, an OSE or
the simulator (:mod:`facturador.authority.soap.client`), and the simulator's SOAP endpoint
(:mod:`facturador.authority.soap.app`). What each constant means is in ``docs/going_live.md``.

SUNAT publishes three services, SOAP 1.1, document/literal, whose message elements live in
``http://service.sunat.gob.pe`` with *unqualified* children:

- ``billService`` (``sendBill``, ``sendSummary``, ``sendPack``, ``getStatus(ticket)``) for facturas,
  boletas, notes, daily summaries (RC) and voided communications (RA);
- the same contract at the "otros CPE" path for retentions (20), perceptions (40) and their reversions
  (RR);
- ``billConsultService`` (``getStatus`` and ``getStatusCdr`` of one document by RUC, type, series and
  number), production only at SUNAT.

``billService`` and ``billConsultService`` both name their request ``getStatus`` with the SOAPAction
``urn:getStatus``: a server tells them apart by the path it was called on.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

__all__ = [
    "BILL_SERVICE_NS",
    "DESTINATIONS",
    "PATHS",
    "SOAP_ENV_NS",
    "WSSE_NS",
    "Service",
    "ServicePath",
    "ServiceUrls",
    "beta_username",
    "soap_username",
    "sunat_urls",
    "wsdl_dir",
]

SOAP_ENV_NS = "http://schemas.xmlsoap.org/soap/envelope/"
#: The namespace of every request and response element of the three services.
BILL_SERVICE_NS = "http://service.sunat.gob.pe"
WSSE_NS = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd"
PASSWORD_TEXT = (
    "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordText"
)
#: The WSDL binding names, for clients (zeep's ``create_service``) that bind a WSDL to another address.
BILL_BINDING = "{http://service.gem.factura.comppago.registro.servicio.sunat.gob.pe/}BillServicePortBinding"
CONSULT_BINDING = (
    "{http://service.ws.consulta.comppago.electronico.registro.servicio2.sunat.gob.pe/}"
    "BillConsultServicePortBinding"
)


class Service(enum.StrEnum):
    """Which of SUNAT's SOAP services a path serves."""

    BILL = "billService"  # 01, 03, 07, 08, RC, RA
    OTHER = "otherBillService"  # 20, 40, RR ("otros CPE")
    CONSULT = "billConsultService"  # getStatus / getStatusCdr of one document


@dataclass(frozen=True)
class ServicePath:
    """One published path: the service it serves and whether it is SUNAT's beta (test) environment."""

    path: str
    service: Service
    beta: bool


#: SUNAT's own paths (the same on SUNAT's hosts, on an installation of the simulator and mounted in
#: ``facturador serve`` under ``/sunat``). The consult service has no beta at SUNAT.
BILL_BETA_PATH = "/ol-ti-itcpfegem-beta/billService"
BILL_PATH = "/ol-ti-itcpfegem/billService"
OTHER_BETA_PATH = "/ol-ti-itemision-otroscpe-gem-beta/billService"
OTHER_PATH = "/ol-ti-itemision-otroscpe-gem/billService"
CONSULT_PATH = "/ol-it-wsconscpegem/billConsultService"

PATHS: tuple[ServicePath, ...] = (
    ServicePath(BILL_BETA_PATH, Service.BILL, beta=True),
    ServicePath(BILL_PATH, Service.BILL, beta=False),
    ServicePath(OTHER_BETA_PATH, Service.OTHER, beta=True),
    ServicePath(OTHER_PATH, Service.OTHER, beta=False),
    ServicePath(CONSULT_PATH, Service.CONSULT, beta=False),
)

#: Where a tenant's documents go (tenant setting ``sunat_sending``).
DESTINATIONS = ("simulator", "beta", "production", "ose")
#: SUNAT's hosts for the ``beta`` and ``production`` destinations (tenant setting ``sunat_url`` replaces
#: the host, e.g. to reach the simulator's SOAP endpoint).
SUNAT_HOSTS = {"beta": "https://e-beta.sunat.gob.pe", "production": "https://e-factura.sunat.gob.pe"}
#: The SOL user and password SUNAT's beta takes for any RUC.
BETA_SOL_USER = "MODDATOS"
BETA_SOL_PASSWORD = "moddatos"


@dataclass(frozen=True)
class ServiceUrls:
    """The three URLs a tenant sends to: documents, other CPE (20, 40, RR) and the CDR consultation."""

    bill: str
    other: str
    consult: str


def service_paths(destination: str) -> tuple[str, str, str]:
    """The paths of billService, the other-CPE billService and billConsultService of ``beta`` or
    ``production``."""
    if destination == "beta":
        return BILL_BETA_PATH, OTHER_BETA_PATH, CONSULT_PATH
    if destination == "production":
        return BILL_PATH, OTHER_PATH, CONSULT_PATH
    raise ValueError(f"SUNAT has no {destination!r} environment (beta or production)")


def sunat_urls(destination: str, base_url: str = "") -> ServiceUrls:
    """The URLs of SUNAT's ``beta`` or ``production``, at ``base_url`` instead of SUNAT's host when given
    (``http://127.0.0.1:8000/sunat`` reaches the simulator mounted in ``facturador serve``)."""
    base = (base_url or SUNAT_HOSTS[destination]).rstrip("/")
    bill, other, consult = service_paths(destination)
    return ServiceUrls(bill=base + bill, other=base + other, consult=base + consult)


def keeps_connections(destination: str) -> bool:
    """Whether requests to ``destination`` reuse pooled keep-alive connections: not on SUNAT's beta, where
    clients report non-SOAP 401 answers on reused connections and a test's few documents gain nothing
    from reuse; production and an OSE keep them (a TLS handshake saved per document)."""
    return destination != "beta"


def soap_username(ruc: str, sol_user: str) -> str:
    """The WS-Security user name SUNAT expects: the RUC followed by the SOL user (``20123456789MODDATOS``)."""
    return f"{ruc}{sol_user}"


def beta_username(ruc: str) -> str:
    """The beta user name of a RUC (SUNAT's beta takes ``MODDATOS`` / ``moddatos`` for any RUC)."""
    return soap_username(ruc, BETA_SOL_USER)


def wsdl_dir() -> Path:
    """The folder of SUNAT's WSDL and XSD files shipped with the package (never fetched at run time)."""
    return Path(str(resources.files("facturador.authority.soap") / "wsdl"))
