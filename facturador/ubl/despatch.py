"""The GRE 2022 ``DespatchAdvice`` (UBL 2.1, CustomizationID 2.0) of dispatch guides, reference/sunat.md
§3.4: 09 (guía de remisión remitente) and 31 (guía de remisión transportista).

:func:`build_despatch` turns a :class:`Dispatch` into an unsigned lxml tree in the XSD's element order;
:func:`sign_despatch` signs it with the tenant's identity like every other document (enveloped XML-DSig,
``facturador.ubl.signing``) and returns a :class:`~facturador.ubl.invoice.SignedXml`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, time
from decimal import Decimal

from lxml import etree

from facturador.model import Issuer

from .invoice import SignedXml
from .namespaces import CAC, CBC, DESPATCH_ADVICE, EXT, nsmap_for
from .parts import fmt_decimal, fmt_quantity, one_line, sub
from .signing import SIGNATURE_ID, SigningIdentity, sign

__all__ = [
    "Dispatch",
    "DispatchLine",
    "Driver",
    "Party",
    "Place",
    "RelatedDocument",
    "build_despatch",
    "sign_despatch",
]

_SUNAT = "PE:SUNAT"
_CATALOG = "urn:pe:gob:sunat:cpe:see:gem:catalogos:catalogo{}"
_IDENTITY = {
    "schemeName": "Documento de Identidad",
    "schemeAgencyName": _SUNAT,
    "schemeURI": _CATALOG.format("06"),
}


@dataclass(frozen=True)
class Party:
    """A person or company: identity type (catalog 06), number, name; ``mtc`` for a carrier."""

    identity_type: str
    number: str
    name: str
    mtc: str = ""


@dataclass(frozen=True)
class Driver:
    """A driver: identity document, first and family names, licence; ``principal`` or secondary."""

    identity_type: str
    number: str
    first_name: str
    family_name: str
    licence: str
    principal: bool = True


@dataclass(frozen=True)
class Place:
    """Where goods leave from or arrive: ubigeo (catalog 13), address and, for an establishment of a
    registered company, its RUC and establishment code (``cbc:AddressTypeCode``)."""

    ubigeo: str
    address: str
    ruc: str = ""
    establishment_code: str = ""


@dataclass(frozen=True)
class RelatedDocument:
    """A document related to the transfer (catalog 61): type, number, issuer's RUC."""

    doc_type: str
    number: str
    description: str
    issuer_ruc: str = ""


@dataclass(frozen=True)
class DispatchLine:
    """One item moved: quantity in a unit (catalog 03), description, internal and SUNAT codes."""

    quantity: Decimal
    unit: str
    description: str
    code: str = ""
    sunat_code: str = ""


@dataclass(frozen=True)
class Dispatch:
    """Everything a dispatch guide's XML says.

    ``doc_type`` "09" (the issuer sends its goods: ``customer`` receives them, ``transfer_reason`` of
    catalog 20, ``transport_mode`` 01 public with ``carrier`` or 02 private with ``vehicles`` and
    ``drivers``) or "31" (the issuer carries someone's goods: ``sender`` and ``customer``, always
    ``vehicles`` and ``drivers``). ``vehicles[0]`` is the main plate, the rest secondary.
    """

    doc_type: str
    issuer: Issuer
    series: str
    number: int
    issue_date: date
    issue_time: time
    customer: Party
    origin: Place
    delivery: Place
    start_date: date
    gross_weight: Decimal
    weight_unit: str
    lines: tuple[DispatchLine, ...]
    transfer_reason: str = ""
    transfer_description: str = ""
    transport_mode: str = ""
    note: str = ""
    packages: int | None = None
    transshipment: bool = False
    carrier: Party | None = None
    sender: Party | None = None
    issuer_mtc: str = ""
    drivers: tuple[Driver, ...] = ()
    vehicles: tuple[str, ...] = ()
    vehicle_certificate: str = ""
    related: tuple[RelatedDocument, ...] = field(default_factory=tuple)

    @property
    def document_id(self) -> str:
        return f"{self.series}-{self.number}"

    @property
    def filename(self) -> str:
        """``RUC-09-T001-1``."""
        return f"{self.issuer.ruc}-{self.doc_type}-{self.series}-{self.number}"


def _coded(parent: etree._Element, tag: str, value: str, list_name: str, catalog: str) -> None:
    sub(
        parent,
        CBC(tag),
        value,
        {"listAgencyName": _SUNAT, "listName": list_name, "listURI": _CATALOG.format(catalog)},
    )


def _party(parent: etree._Element, party: Party) -> etree._Element:
    el = etree.SubElement(parent, CAC("Party"))
    sub(
        etree.SubElement(el, CAC("PartyIdentification")),
        CBC("ID"),
        party.number.strip(),
        {"schemeID": party.identity_type, **_IDENTITY},
    )
    legal = etree.SubElement(el, CAC("PartyLegalEntity"))
    sub(legal, CBC("RegistrationName"), one_line(party.name))
    return legal


def _address(parent: etree._Element, tag: str, place: Place) -> None:
    el = etree.SubElement(parent, tag)
    sub(el, CBC("ID"), place.ubigeo, {"schemeAgencyName": "PE:INEI", "schemeName": "Ubigeos"})
    if place.establishment_code and place.ruc:
        sub(
            el,
            CBC("AddressTypeCode"),
            place.establishment_code,
            {"listAgencyName": _SUNAT, "listName": "Establecimientos anexos", "listID": place.ruc},
        )
    sub(etree.SubElement(el, CAC("AddressLine")), CBC("Line"), one_line(place.address)[:500])


def build_despatch(dispatch: Dispatch) -> etree._Element:
    """The unsigned ``DespatchAdvice`` of a dispatch guide (see :class:`Dispatch`)."""
    if not dispatch.lines:
        raise ValueError("a dispatch guide needs at least one line")
    root = etree.Element(f"{{{DESPATCH_ADVICE}}}DespatchAdvice", nsmap=nsmap_for(DESPATCH_ADVICE))
    extension = etree.SubElement(etree.SubElement(root, EXT("UBLExtensions")), EXT("UBLExtension"))
    etree.SubElement(extension, EXT("ExtensionContent"))
    sub(root, CBC("UBLVersionID"), "2.1")
    sub(root, CBC("CustomizationID"), "2.0")
    sub(root, CBC("ID"), dispatch.document_id)
    sub(root, CBC("IssueDate"), dispatch.issue_date.isoformat())
    sub(root, CBC("IssueTime"), dispatch.issue_time.strftime("%H:%M:%S"))
    _coded(root, "DespatchAdviceTypeCode", dispatch.doc_type, "Tipo de Documento", "01")
    if dispatch.note.strip():
        sub(root, CBC("Note"), one_line(dispatch.note)[:250])
    for related in dispatch.related:
        reference = etree.SubElement(root, CAC("AdditionalDocumentReference"))
        sub(reference, CBC("ID"), related.number)
        _coded(reference, "DocumentTypeCode", related.doc_type, "Documento relacionado al transporte", "61")
        sub(reference, CBC("DocumentType"), one_line(related.description)[:120])
        if related.issuer_ruc:
            issuer = etree.SubElement(
                etree.SubElement(reference, CAC("IssuerParty")), CAC("PartyIdentification")
            )
            sub(issuer, CBC("ID"), related.issuer_ruc, {"schemeID": "6", **_IDENTITY})
    signature = etree.SubElement(root, CAC("Signature"))
    sub(signature, CBC("ID"), f"SIGN{dispatch.issuer.ruc}")
    signatory = etree.SubElement(signature, CAC("SignatoryParty"))
    sub(etree.SubElement(signatory, CAC("PartyIdentification")), CBC("ID"), dispatch.issuer.ruc)
    sub(etree.SubElement(signatory, CAC("PartyName")), CBC("Name"), one_line(dispatch.issuer.name))
    attachment = etree.SubElement(signature, CAC("DigitalSignatureAttachment"))
    sub(etree.SubElement(attachment, CAC("ExternalReference")), CBC("URI"), f"#{SIGNATURE_ID}")
    supplier = etree.SubElement(root, CAC("DespatchSupplierParty"))
    legal = _party(supplier, Party("6", dispatch.issuer.ruc, dispatch.issuer.name))
    if dispatch.doc_type == "31" and dispatch.issuer_mtc:
        sub(legal, CBC("CompanyID"), dispatch.issuer_mtc)
    _party(etree.SubElement(root, CAC("DeliveryCustomerParty")), dispatch.customer)
    _shipment(root, dispatch)
    for index, line in enumerate(dispatch.lines, start=1):
        el = etree.SubElement(root, CAC("DespatchLine"))
        sub(el, CBC("ID"), str(index))
        sub(el, CBC("DeliveredQuantity"), fmt_quantity(line.quantity), {"unitCode": line.unit})
        sub(etree.SubElement(el, CAC("OrderLineReference")), CBC("LineID"), str(index))
        item = etree.SubElement(el, CAC("Item"))
        sub(item, CBC("Description"), one_line(line.description)[:500])
        if line.code:
            sub(etree.SubElement(item, CAC("SellersItemIdentification")), CBC("ID"), line.code[:30])
        if line.sunat_code:
            sub(
                etree.SubElement(item, CAC("CommodityClassification")),
                CBC("ItemClassificationCode"),
                line.sunat_code,
                {"listID": "UNSPSC", "listAgencyName": "GS1 US", "listName": "Item Classification"},
            )
    return root


def _shipment(root: etree._Element, dispatch: Dispatch) -> None:
    shipment = etree.SubElement(root, CAC("Shipment"))
    sub(shipment, CBC("ID"), "SUNAT_Envio")
    if dispatch.doc_type == "09":
        _coded(shipment, "HandlingCode", dispatch.transfer_reason, "Motivo de traslado", "20")
        if dispatch.transfer_description.strip():
            sub(shipment, CBC("HandlingInstructions"), one_line(dispatch.transfer_description)[:100])
    sub(
        shipment,
        CBC("GrossWeightMeasure"),
        fmt_decimal(dispatch.gross_weight, places=3, min_places=1),
        {"unitCode": dispatch.weight_unit},
    )
    if dispatch.packages:
        sub(shipment, CBC("TotalTransportHandlingUnitQuantity"), str(dispatch.packages))
    if dispatch.transshipment:
        sub(shipment, CBC("SpecialInstructions"), "SUNAT_Envio_IndicadorTransbordoProgramado")
    stage = etree.SubElement(shipment, CAC("ShipmentStage"))
    if dispatch.doc_type == "09":
        _coded(stage, "TransportModeCode", dispatch.transport_mode, "Modalidad de traslado", "18")
    sub(etree.SubElement(stage, CAC("TransitPeriod")), CBC("StartDate"), dispatch.start_date.isoformat())
    private = dispatch.doc_type == "31" or dispatch.transport_mode == "02"
    if not private and dispatch.carrier is not None:
        carrier = etree.SubElement(stage, CAC("CarrierParty"))
        sub(
            etree.SubElement(carrier, CAC("PartyIdentification")),
            CBC("ID"),
            dispatch.carrier.number,
            {"schemeID": dispatch.carrier.identity_type},
        )
        legal = etree.SubElement(carrier, CAC("PartyLegalEntity"))
        sub(legal, CBC("RegistrationName"), one_line(dispatch.carrier.name))
        if dispatch.carrier.mtc:
            sub(legal, CBC("CompanyID"), dispatch.carrier.mtc)
    if private:
        for driver in dispatch.drivers:
            person = etree.SubElement(stage, CAC("DriverPerson"))
            sub(person, CBC("ID"), driver.number, {"schemeID": driver.identity_type, **_IDENTITY})
            sub(person, CBC("FirstName"), one_line(driver.first_name))
            sub(person, CBC("FamilyName"), one_line(driver.family_name))
            sub(person, CBC("JobTitle"), "Principal" if driver.principal else "Secundario")
            sub(etree.SubElement(person, CAC("IdentityDocumentReference")), CBC("ID"), driver.licence)
    delivery = etree.SubElement(shipment, CAC("Delivery"))
    _address(delivery, CAC("DeliveryAddress"), dispatch.delivery)
    despatch = etree.SubElement(delivery, CAC("Despatch"))
    _address(despatch, CAC("DespatchAddress"), dispatch.origin)
    if dispatch.doc_type == "31" and dispatch.sender is not None:
        _party_despatch = etree.SubElement(despatch, CAC("DespatchParty"))
        sub(
            etree.SubElement(_party_despatch, CAC("PartyIdentification")),
            CBC("ID"),
            dispatch.sender.number,
            {"schemeID": dispatch.sender.identity_type, **_IDENTITY},
        )
        sub(
            etree.SubElement(_party_despatch, CAC("PartyLegalEntity")),
            CBC("RegistrationName"),
            one_line(dispatch.sender.name),
        )
    if dispatch.vehicles:
        equipment = etree.SubElement(
            etree.SubElement(shipment, CAC("TransportHandlingUnit")), CAC("TransportEquipment")
        )
        sub(equipment, CBC("ID"), dispatch.vehicles[0])
        for plate in dispatch.vehicles[1:]:
            sub(etree.SubElement(equipment, CAC("AttachedTransportEquipment")), CBC("ID"), plate)
        if dispatch.vehicle_certificate:
            document = etree.SubElement(equipment, CAC("ShipmentDocumentReference"))
            sub(document, CBC("ID"), dispatch.vehicle_certificate, {"schemeID": "06"})


def sign_despatch(dispatch: Dispatch, identity: SigningIdentity, *, sha256: bool = False) -> SignedXml:
    """Build and sign a dispatch guide (RSA-SHA1 unless ``sha256``)."""
    xml, digest = sign(build_despatch(dispatch), identity, sha256=sha256)
    return SignedXml(xml=xml, digest_value=digest, filename=dispatch.filename)
