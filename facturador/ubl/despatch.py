"""The GRE 2022 ``DespatchAdvice`` (UBL 2.1, CustomizationID 2.0) of dispatch guides
(``docs/sunat_domain.md``, dispatch guides): 09 (guía de remisión remitente) and 31 (guía de remisión
transportista).

:func:`build_despatch` turns a :class:`Dispatch` into an unsigned lxml tree in the XSD's element order;
:func:`sign_despatch` signs it with the tenant's identity like every other document (enveloped XML-DSig,
``facturador.ubl.signing``) and returns a :class:`~facturador.ubl.invoice.SignedXml`;
:func:`prepare_despatch` builds it before its number is known (signed with it later, as a factura).
"""

from __future__ import annotations

from lxml import etree

from facturador.issued import Dispatch, DispatchDocument, DispatchLine, DispatchParty, Driver, Place

from .invoice import PreparedDocument, SignedXml, prepare_numbered
from .namespaces import CAC, CBC, DESPATCH_ADVICE, EXT, nsmap_for
from .parts import fmt_decimal, fmt_quantity, one_line, sub
from .signing import SIGNATURE_ID, SigningIdentity, sign

__all__ = [
    "Dispatch",
    "DispatchDocument",
    "DispatchLine",
    "DispatchParty",
    "Driver",
    "Place",
    "build_despatch",
    "prepare_despatch",
    "sign_despatch",
    "sunat_plate",
]

_SUNAT = "PE:SUNAT"
_CATALOG = "urn:pe:gob:sunat:cpe:see:gem:catalogos:catalogo{}"
_IDENTITY = {
    "schemeName": "Documento de Identidad",
    "schemeAgencyName": _SUNAT,
    "schemeURI": _CATALOG.format("06"),
}


def _coded(parent: etree._Element, tag: str, value: str, list_name: str, catalog: str) -> None:
    sub(
        parent,
        CBC(tag),
        value,
        {"listAgencyName": _SUNAT, "listName": list_name, "listURI": _CATALOG.format(catalog)},
    )


def _party(parent: etree._Element, party: DispatchParty) -> etree._Element:
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
    _party(supplier, DispatchParty("6", dispatch.issuer.ruc, dispatch.issuer.name))
    _party(etree.SubElement(root, CAC("DeliveryCustomerParty")), dispatch.customer)
    if dispatch.doc_type == "31" and dispatch.freight_payer_party is not None:
        _party(etree.SubElement(root, CAC("OriginatorCustomerParty")), dispatch.freight_payer_party)
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
    if dispatch.freight_payer:
        sub(
            shipment,
            CBC("SpecialInstructions"),
            f"SUNAT_Envio_IndicadorPagadorFlete_{dispatch.freight_payer}",
        )
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
    if dispatch.doc_type == "31" and dispatch.issuer_mtc:
        legal = etree.SubElement(etree.SubElement(stage, CAC("CarrierParty")), CAC("PartyLegalEntity"))
        sub(legal, CBC("RegistrationName"), one_line(dispatch.issuer.name))
        sub(legal, CBC("CompanyID"), dispatch.issuer_mtc)
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
        sub(equipment, CBC("ID"), sunat_plate(dispatch.vehicles[0]))
        # the certificate (TUC) is the carrier's: SUNAT rejects it on a sender's guide (3452)
        if dispatch.vehicle_certificate and dispatch.doc_type == "31":
            means = etree.SubElement(equipment, CAC("ApplicableTransportMeans"))
            sub(means, CBC("RegistrationNationalityID"), dispatch.vehicle_certificate)
        for plate in dispatch.vehicles[1:]:
            sub(etree.SubElement(equipment, CAC("AttachedTransportEquipment")), CBC("ID"), sunat_plate(plate))


def sunat_plate(plate: str) -> str:
    """A vehicle plate as SUNAT takes it (its rule 2567, ``[0-9A-Z]{6,8}``): upper case, without the
    hyphens and spaces people write in it ("def-456" -> "DEF456")."""
    return "".join(plate.split()).replace("-", "").upper()


def sign_despatch(dispatch: Dispatch, identity: SigningIdentity, *, sha256: bool = False) -> SignedXml:
    """Build and sign a dispatch guide (RSA-SHA1 unless ``sha256``)."""
    xml, digest = sign(build_despatch(dispatch), identity, sha256=sha256)
    return SignedXml(xml=xml, digest_value=digest, filename=dispatch.filename)


def prepare_despatch(dispatch: Dispatch) -> PreparedDocument:
    """Build the guide's XML with a token where its number goes (any ``dispatch.number`` is ignored):
    :meth:`PreparedDocument.sign <facturador.ubl.invoice.PreparedDocument.sign>` fills it in and signs."""
    return prepare_numbered(build_despatch(dispatch), dispatch)
