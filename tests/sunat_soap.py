"""Talking to the simulator's SOAP endpoint (``/sunat`` of the live service) the way a hand-written SOAP
client does: envelopes built here as text, sent with httpx, answers read with lxml. Nothing of the
endpoint's own code is used to build a request or to read an answer."""

from __future__ import annotations

import base64
import io
import itertools
import uuid
import zipfile
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import httpx
from lxml import etree

from facturador.authority.soap.protocol import (
    BILL_BETA_PATH,
    BILL_PATH,
    CONSULT_PATH,
    OTHER_BETA_PATH,
    OTHER_PATH,
    wsdl_dir,
)
from facturador.domain.tenants import set_secret
from facturador.ubl.signing import SigningIdentity, generate_identity
from sunat.calendar import peru_today
from sunat.identity import ruc_check_digit
from tests.conftest import LiveService
from tests.samples.ubl_xml import filename_for, invoice, package
from tests.shops import Shop, new_shop

SOAP = "http://schemas.xmlsoap.org/soap/envelope/"
SUNAT_NS = "http://service.sunat.gob.pe"
WSSE = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd"
TEXT = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordText"
MOUNT = "/sunat"
BETA = MOUNT + BILL_BETA_PATH
PRODUCTION = MOUNT + BILL_PATH
OTHER_BETA = MOUNT + OTHER_BETA_PATH
OTHER = MOUNT + OTHER_PATH
CONSULT = MOUNT + CONSULT_PATH
SOL_USER = "FACTURAS1"
SOL_PASSWORD = "Clave-SOL.9"
_NUMBERS = itertools.count(1)


def envelope(
    operation: str,
    fields: dict[str, str | bytes],
    *,
    user: str | None,
    password: str | None,
    password_type: str | None = TEXT,
    qualified: bool = False,
    prefixes: tuple[str, str, str] = ("soapenv", "ser", "wsse"),
) -> bytes:
    """A SOAP 1.1 request as clients write it by hand (``user`` None: no security header)."""
    env, ser, wsse = prefixes
    header = ""
    if user is not None:
        kind = f' Type="{password_type}"' if password_type else ""
        secret = f"<{wsse}:Password{kind}>{password}</{wsse}:Password>" if password is not None else ""
        header = (
            f'<{env}:Header><{wsse}:Security xmlns:{wsse}="{WSSE}"><{wsse}:UsernameToken>'
            f"<{wsse}:Username>{user}</{wsse}:Username>{secret}</{wsse}:UsernameToken></{wsse}:Security>"
            f"</{env}:Header>"
        )
    children = "".join(
        f"<{ser + ':' if qualified else ''}{name}>"
        f"{base64.b64encode(value).decode() if isinstance(value, bytes) else value}"
        f"</{ser + ':' if qualified else ''}{name}>"
        for name, value in fields.items()
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        f'<{env}:Envelope xmlns:{env}="{SOAP}" xmlns:{ser}="{SUNAT_NS}">'
        f"{header}<{env}:Body><{ser}:{operation}>{children}</{ser}:{operation}></{env}:Body></{env}:Envelope>"
    ).encode()


@dataclass
class Answer:
    """An HTTP answer of the endpoint, read as SOAP."""

    response: httpx.Response

    @property
    def status(self) -> int:
        return self.response.status_code

    @cached_property
    def root(self) -> etree._Element:
        return etree.fromstring(self.response.content)

    @property
    def fault(self) -> tuple[str, str]:
        """``(faultcode, faultstring)``; fails when the answer is not a fault."""
        node = self.root.find(f"{{{SOAP}}}Body/{{{SOAP}}}Fault")
        assert node is not None, self.response.text[:500]
        return node.findtext("faultcode") or "", node.findtext("faultstring") or ""

    @property
    def body(self) -> etree._Element:
        """The response element (``sendBillResponse``...); fails on a fault."""
        assert self.status == 200, self.response.text[:800]
        (element,) = self.root.find(f"{{{SOAP}}}Body")
        return element

    def field(self, path: str) -> str:
        found = self.body.findtext(path)
        assert found is not None, f"{path} missing in {self.response.text[:500]}"
        return found

    def zip(self, path: str) -> bytes:
        return base64.b64decode(self.field(path))


def post(
    live: LiveService, path: str, body: bytes, *, action: str | None = None, timeout: float = 60
) -> Answer:
    headers = {"Content-Type": "text/xml; charset=utf-8"}
    if action is not None:
        headers["SOAPAction"] = action
    return Answer(httpx.post(live.root + path, content=body, headers=headers, timeout=timeout))


def cdr_entries(zip_bytes: bytes) -> tuple[list[str], bytes]:
    """The entry names of a CDR zip and its XML."""
    with zipfile.ZipFile(io.BytesIO(zip_bytes)) as archive:
        names = archive.namelist()
        xml = archive.read(next(n for n in names if n.endswith(".xml")))
    return names, xml


def cdr_code(zip_bytes: bytes) -> str:
    _names, xml = cdr_entries(zip_bytes)
    cbc = "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"
    return etree.fromstring(xml).findtext(f".//{{{cbc}}}ResponseCode") or ""


@dataclass
class Taxpayer:
    """A tenant with a SOL user and password, its signing key, and how to send as it."""

    shop: Shop
    identity: SigningIdentity
    user: str = SOL_USER
    password: str = SOL_PASSWORD

    @property
    def ruc(self) -> str:
        return self.shop.ruc

    @property
    def username(self) -> str:
        return self.ruc + self.user

    def factura(self, **changes: Any) -> tuple[str, bytes]:
        """A valid factura of today with a fresh number, signed and zipped: ``(name, zip)``."""
        changes.setdefault("doc_id", f"F001-{next(_NUMBERS)}")
        changes.setdefault("issue_date", peru_today())
        root = invoice(ruc=self.ruc, **changes)
        return package(root, self.identity, filename_for(root, self.ruc))

    def send_bill(
        self, live: LiveService, name: str, data: bytes, path: str = BETA, **options: Any
    ) -> Answer:
        body = envelope(
            "sendBill",
            {"fileName": f"{name}.zip", "contentFile": data},
            user=self.username,
            password=self.password,
        )
        return post(live, path, body, action='"urn:sendBill"', **options)

    def call(self, live: LiveService, path: str, operation: str, **fields: str | bytes) -> Answer:
        body = envelope(operation, dict(fields), user=self.username, password=self.password)
        return post(live, path, body, action=f"urn:{operation}")


def random_ruc() -> str:
    """A valid RUC (check digit included) that no test tenant has."""
    first10 = "20" + str(uuid.uuid4().int % 10**8).zfill(8)
    return first10 + str(ruc_check_digit(first10))


def new_taxpayer(live: LiveService, prefix: str, **settings: Any) -> Taxpayer:
    """A fresh tenant with SOL user :data:`SOL_USER` and password :data:`SOL_PASSWORD` (its secret)."""
    shop = new_shop(live, prefix, sol_user=SOL_USER, **settings)
    with live.context.session() as session, session.begin():
        set_secret(session, live.context.vault, shop.slug, "sol_password", SOL_PASSWORD)
    return Taxpayer(shop, SigningIdentity.from_pem(*generate_identity(shop.ruc, f"{prefix.upper()} S.A.C.")))


def shipped_schema(name: str) -> etree.XMLSchema:
    """SUNAT's XSD of a service, as shipped with the package."""
    return etree.XMLSchema(etree.parse(str(wsdl_dir() / name)))
