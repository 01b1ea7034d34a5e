"""Check a document against the authority's record, as SUNAT's own *consulta de validez* does: what the
authority answered for it (its CDR: code, description, the document it refers to) next to the state the
service lists.

The CDR is the authority's record of a factura or a note sent one by one; boletas are reported in daily
summaries and have no CDR of their own (their state says whether a summary declared them).
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass, field
from xml.etree import ElementTree

from connector.errors import FacturadorError, NotFoundError
from connector.models import DocumentRecord

__all__ = ["AuthorityCheck", "check_document", "read_cdr"]

_CBC = "{urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2}"
_CAC = "{urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2}"

#: What SUNAT's consulta shows for each state the service lists.
VERDICTS = {
    "01": "No informado a SUNAT",
    "03": "Enviado, sin respuesta de SUNAT",
    "05": "Aceptado",
    "07": "Aceptado con observaciones",
    "09": "Rechazado",
    "11": "Anulado (comunicación de baja aceptada)",
    "13": "Por anular (baja en proceso)",
}


@dataclass(frozen=True)
class CdrAnswer:
    """What a CDR says: SUNAT's response code and description, its notes, and the document it is about."""

    code: str
    description: str
    document: str
    notes: list[str] = field(default_factory=list)


def read_cdr(content: bytes) -> CdrAnswer:
    """Read a CDR zip (``R-<file>.zip`` with the ``ApplicationResponse`` XML) or the XML itself."""
    xml = content
    if zipfile.is_zipfile(io.BytesIO(content)):
        with zipfile.ZipFile(io.BytesIO(content)) as archive:
            names = [n for n in archive.namelist() if n.lower().endswith(".xml")]
            if not names:
                raise ValueError("the CDR zip has no XML")
            xml = archive.read(names[0])
    root = ElementTree.fromstring(xml)
    response = root.find(f".//{_CAC}DocumentResponse/{_CAC}Response")
    if response is None:
        raise ValueError("the CDR has no DocumentResponse")
    reference = root.findtext(f".//{_CAC}DocumentResponse/{_CAC}DocumentReference/{_CBC}ID") or ""
    notes = [n.text or "" for n in root.findall(f"{_CBC}Note")]
    return CdrAnswer(
        code=(response.findtext(f"{_CBC}ResponseCode") or "").strip(),
        description=(response.findtext(f"{_CBC}Description") or "").strip(),
        document=reference.strip(),
        notes=[n for n in notes if n],
    )


@dataclass(frozen=True)
class AuthorityCheck:
    """The result of :func:`check_document`: the listed state, the authority's verdict and whether they
    agree, with a sentence for people."""

    number: str
    listed_state: str
    verdict: str
    cdr: CdrAnswer | None
    consistent: bool
    message: str


def _expected(code: str) -> set[str]:
    """The listed states a CDR code allows."""
    try:
        value = int(code)
    except ValueError:
        return set()
    if value == 0:
        return {"05", "11", "13"}
    if value >= 4000:
        return {"07", "11", "13"}
    if 2000 <= value <= 3999:
        return {"09"}
    return {"01"}


def check_document(client: object, record: DocumentRecord) -> AuthorityCheck:
    """Ask the service for the document's CDR and compare it with its listed state (``client`` is a
    :class:`~connector.Client`)."""
    verdict = VERDICTS.get(record.state_type_id, record.state_type_description or record.state_type_id)
    boleta = record.series[:1].upper() == "B"
    if boleta:
        declared = record.state_type_id in ("05", "07", "11", "13")
        message = (
            "Boleta informada en un resumen diario: SUNAT la tiene registrada."
            if declared
            else "Boleta aún no informada: SUNAT no la tiene hasta que un resumen diario la declare."
        )
        return AuthorityCheck(record.number, record.state_type_id, verdict, None, True, message)
    try:
        answer = read_cdr(client.documents.download_cdr(record.external_id))  # type: ignore[attr-defined]
    except NotFoundError:
        consistent = record.state_type_id in ("01", "03")
        message = (
            "Sin CDR: SUNAT no tiene respuesta para este documento (no enviado o sin respuesta)."
            if consistent
            else f"El servicio lo lista como «{verdict}» pero no tiene su CDR."
        )
        return AuthorityCheck(record.number, record.state_type_id, verdict, None, consistent, message)
    except (FacturadorError, ValueError, ElementTree.ParseError) as exc:
        return AuthorityCheck(
            record.number, record.state_type_id, verdict, None, False, f"No se pudo leer el CDR: {exc}"
        )
    refers = not answer.document or answer.document.upper() == record.number.upper()
    consistent = refers and record.state_type_id in _expected(answer.code)
    if not refers:
        message = f"El CDR corresponde a {answer.document}, no a {record.number}."
    elif consistent:
        message = f"SUNAT: {answer.code} - {answer.description}"
    else:
        message = (
            f"No coincide: el servicio lo lista como «{verdict}» y el CDR dice {answer.code} - "
            f"{answer.description}."
        )
    return AuthorityCheck(record.number, record.state_type_id, verdict, answer, consistent, message)
