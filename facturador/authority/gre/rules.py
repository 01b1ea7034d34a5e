"""SUNAT's rules for a dispatch guide (GRE 2022 ``DespatchAdvice``, 09 remitente / 31 transportista).

The codes, conditions and formats are those of SUNAT's GRE stylesheets
(``ValidaExprRegGreRemitente-2.0.1.xsl`` / ``...GreTransportista-2.0.1.xsl``) for what a simulator can
check: versions, the ID against the file name, dates, the transfer reason (catalog 20), the transport
mode (catalog 18) and what each mode requires (carrier with RUC and MTC number, or vehicle and drivers
with licence), plate and licence formats, weight, ubigeos (catalog 13), addresses and the related
documents (catalog 61). :func:`check_guide` raises :class:`~facturador.authority.rules.context.Answer`
with the first error and returns the observations (4xxx) otherwise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal, InvalidOperation

from lxml import etree

from facturador.authority import reading
from facturador.authority.rules.context import Answer, note
from facturador.ubl.namespaces import CAC, CBC, DESPATCH_ADVICE
from sunat import catalogs
from sunat.ubigeo import is_valid_ubigeo

__all__ = ["GUIDE_TYPES", "GreFileName", "check_guide", "gre_file_name"]

#: Dispatch guide types of catalog 01 the GRE REST API takes.
GUIDE_TYPES = ("09", "31")
ROOT_TAG = f"{{{DESPATCH_ADVICE}}}DespatchAdvice"

_FILE = re.compile(r"^(\d{11})-(09|31)-([A-Z0-9]{4})-(\d{1,8})$")
_ID = {
    "09": re.compile(r"^(T[A-Z0-9]{3}|EG0[1-9]|\d{4})-\d{1,8}$"),
    "31": re.compile(r"^(V[A-Z0-9]{3}|\d{4})-\d{1,8}$"),
}
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_PLATE = re.compile(r"^(?!0+$)[0-9A-Z]{6,8}$")
_CERTIFICATE = re.compile(r"^(?!0+$)[0-9A-Z]{10,15}$")
_LICENCE = re.compile(r"^(?!0+$)[0-9A-Z]{9,10}$")
_MTC = re.compile(r"^(?!0+$)[0-9A-Z]{1,20}$")
_UBIGEO = re.compile(r"^\d{6}$")
_DNI = re.compile(r"^\d{8}$")
_OTHER_ID = re.compile(r"^\S+$")
_WEIGHT = re.compile(r"^\d{1,12}(\.\d{1,3})?$")


@dataclass(frozen=True)
class GreFileName:
    """What a GRE file name ``RUC-TT-SERIE-NUMERO`` says."""

    name: str
    ruc: str
    doc_type: str
    series: str
    number: str

    @property
    def doc_id(self) -> str:
        return f"{self.series}-{self.number}"


def gre_file_name(name: str) -> GreFileName:
    """Parse a guide's file name (without extension); raises :class:`Answer` 0151 when it does not fit."""
    match = _FILE.match(name)
    if not match:
        raise Answer("0151", f'nomArchivo valor: "{name}"')
    return GreFileName(name, *match.groups())


def _path(*parts: str) -> str:
    return "/".join(CBC(p[4:]) if p.startswith("cbc:") else CAC(p[4:]) for p in parts)


@dataclass
class _Guide:
    root: etree._Element
    file: GreFileName
    today: date
    notes: list[str] = field(default_factory=list)

    def text(self, *parts: str) -> str:
        return reading.text(self.root, _path(*parts), "")

    def observe(self, code: str, detail: str = "") -> None:
        text = note(code)
        self.notes.append(f"{text} - Detalle: {detail}" if detail else text)


def check_guide(root: etree._Element, file: GreFileName, *, today: date) -> tuple[str, ...]:
    """Apply SUNAT's GRE rules to a parsed guide; return its observations or raise the first error."""
    guide = _Guide(root, file, today)
    _header(guide)
    _recipient(guide)
    _related_documents(guide)
    _shipment(guide)
    _addresses(guide)
    _lines(guide)
    return tuple(guide.notes)


def _header(guide: _Guide) -> None:
    root, file = guide.root, guide.file
    if root.tag != ROOT_TAG:
        raise Answer("1003", f'DespatchAdvice valor: "{etree.QName(root).localname}"')
    ubl = guide.text("cbc:UBLVersionID")
    if not ubl:
        raise Answer("2111")
    if ubl != "2.1":
        raise Answer("2110", f'cbc:UBLVersionID valor: "{ubl}"')
    customization = guide.text("cbc:CustomizationID")
    if not customization:
        raise Answer("2113")
    if customization != "2.0":
        raise Answer("2112", f'cbc:CustomizationID valor: "{customization}"')
    doc_id = guide.text("cbc:ID")
    if not _ID[file.doc_type].match(doc_id):
        raise Answer("1001", f'cbc:ID valor: "{doc_id}"')
    supplier = guide.text("cac:DespatchSupplierParty", "cac:Party", "cac:PartyIdentification", "cbc:ID")
    if supplier != file.ruc:
        raise Answer(
            "1034", f'cac:DespatchSupplierParty/cac:Party/cac:PartyIdentification/cbc:ID valor: "{supplier}"'
        )
    if doc_id[:4] != file.series:
        raise Answer("1035", f'cbc:ID valor: "{doc_id}"')
    if doc_id[5:] != file.number:
        raise Answer("1036", f'cbc:ID valor: "{doc_id}"')
    issued = guide.text("cbc:IssueDate")
    if not _DATE.match(issued):
        raise Answer("3436", f'cbc:IssueDate valor: "{issued}"')
    if date.fromisoformat(issued) > guide.today:
        raise Answer("2329", f'cbc:IssueDate valor: "{issued}"')
    type_code = guide.text("cbc:DespatchAdviceTypeCode")
    if not type_code:
        raise Answer("1050")
    if type_code != file.doc_type:
        raise Answer("1051", f'cbc:DespatchAdviceTypeCode valor: "{type_code}"')
    if file.doc_type == "09":
        customer = guide.text("cac:DeliveryCustomerParty", "cac:Party", "cac:PartyIdentification", "cbc:ID")
        if not customer:
            raise Answer("2757")
        customer_name = guide.text(
            "cac:DeliveryCustomerParty", "cac:Party", "cac:PartyLegalEntity", "cbc:RegistrationName"
        )
        if not customer_name:
            raise Answer("2759")


#: Transfer reasons (catalog 20) whose recipient is the sender itself (2554) or must not be (2555).
_TO_ITSELF = frozenset({"02", "04", "07"})
_TO_ANOTHER = frozenset({"01", "03", "05", "06", "09", "14", "17"})
#: Reasons whose origin (3411 "Punto de Partida") or delivery may not carry the sender's RUC.
_ORIGIN_NOT_OWN = frozenset({"02", "07", "08"})
_DELIVERY_NOT_OWN = frozenset({"01", "03", "05", "06", "14", "17"})
_WITH_SUPPLIER = frozenset({"02", "07"})


def _recipient(guide: _Guide) -> None:
    """A remitente guide's recipient against its transfer reason: the sender itself (with its RUC) for
    02, 04 and 07 (2554), someone else for a sale and the like (2555); a purchase names its supplier
    (``cac:SellerSupplierParty``, observation 4375)."""
    if guide.file.doc_type != "09":
        return
    reason = guide.text("cac:Shipment", "cbc:HandlingCode")
    identification = guide.root.find(
        _path("cac:DeliveryCustomerParty", "cac:Party", "cac:PartyIdentification", "cbc:ID")
    )
    scheme = identification.get("schemeID", "") if identification is not None else ""
    recipient = (identification.text or "").strip() if identification is not None else ""
    sender = guide.text("cac:DespatchSupplierParty", "cac:Party", "cac:PartyIdentification", "cbc:ID")
    if reason in _TO_ITSELF and (scheme != "6" or recipient != sender):
        raise Answer(
            "2554", f'cac:DeliveryCustomerParty/cac:Party/cac:PartyIdentification/cbc:ID valor: "{recipient}"'
        )
    if reason in _TO_ANOTHER and scheme == "6" and recipient == sender:
        raise Answer(
            "2555", f'cac:DeliveryCustomerParty/cac:Party/cac:PartyIdentification/cbc:ID valor: "{recipient}"'
        )
    if reason in _WITH_SUPPLIER and not guide.text(
        "cac:SellerSupplierParty", "cac:Party", "cac:PartyIdentification", "cbc:ID"
    ):
        guide.observe("4375")


def _related_documents(guide: _Guide) -> None:
    """Each related document's type is of catalog 61 and allowed for this kind of guide (2692)."""
    for reference in guide.root.iterchildren(CAC("AdditionalDocumentReference")):
        code = reading.text(reference, CBC("DocumentTypeCode"), "")
        entry = catalogs.GRE_RELATED_DOCUMENTS.get(code)
        if entry is None or guide.file.doc_type not in entry[1]:
            raise Answer("2692", f'cbc:DocumentTypeCode valor: "{code}"')


def _shipment(guide: _Guide) -> None:
    shipment = "cac:Shipment"
    doc_type = guide.file.doc_type
    mode = guide.text(shipment, "cac:ShipmentStage", "cbc:TransportModeCode")
    if doc_type == "09":
        reason = guide.text(shipment, "cbc:HandlingCode")
        if not reason:
            raise Answer("3404")
        if reason not in catalogs.TRANSFER_REASONS:
            raise Answer("3405", f'cbc:HandlingCode valor: "{reason}"')
        if not mode:
            raise Answer("2532")
        if mode not in catalogs.TRANSPORT_MODES:
            raise Answer("2773", f'cbc:TransportModeCode valor: "{mode}"')
    _weight(guide)
    _start_date(guide, mode)
    if doc_type == "31":
        _mtc(guide)
    if doc_type == "09" and mode == "01":
        _carrier(guide)
    elif doc_type == "09" and guide.text(
        shipment, "cac:ShipmentStage", "cac:CarrierParty", "cac:PartyIdentification", "cbc:ID"
    ):
        raise Answer("3347", 'cac:CarrierParty valor: ""')
    _vehicles(guide, mode)
    if doc_type == "31" or mode == "02":
        _drivers(guide)


def _weight(guide: _Guide) -> None:
    node = guide.root.find(_path("cac:Shipment", "cbc:GrossWeightMeasure"))
    if node is None or not (node.text or "").strip():
        raise Answer("2880")
    value = (node.text or "").strip()
    try:
        positive = Decimal(value) > 0
    except InvalidOperation:
        positive = False
    if not _WEIGHT.match(value) or not positive:
        raise Answer("2523", f'cbc:GrossWeightMeasure valor: "{value}"')
    unit = (node.get("unitCode") or "").strip()
    if not unit:
        raise Answer("2881")
    if unit not in catalogs.WEIGHT_UNITS:
        raise Answer("2523", f'cbc:GrossWeightMeasure@unitCode valor: "{unit}"')


def _start_date(guide: _Guide, mode: str) -> None:
    """The transfer's start date (or delivery to the carrier, public transport): required with private
    transport and on carrier guides (3406), YYYY-MM-DD (3407), not before the issue date (3343; only an
    observation, 4386, for the date goods are handed to a public carrier)."""
    start = guide.text("cac:Shipment", "cac:ShipmentStage", "cac:TransitPeriod", "cbc:StartDate")
    public = guide.file.doc_type == "09" and mode == "01"
    if not start:
        if not public:
            raise Answer("3406")
        return
    if not _DATE.match(start):
        raise Answer("3407", f'cbc:StartDate valor: "{start}"')
    if start < guide.text("cbc:IssueDate"):
        if public:
            guide.observe("4386", f'cbc:StartDate "{start}"')
        else:
            raise Answer("3343", f'cbc:StartDate valor: "{start}"')


def _carrier(guide: _Guide) -> None:
    """Public transport: the carrier's RUC (2558, 2561, 2485), not the sender (2560), its name (2563)
    and its MTC registration (observations 4391 / 4392)."""
    carrier = guide.root.find(_path("cac:Shipment", "cac:ShipmentStage", "cac:CarrierParty"))
    number_node = carrier.find(_path("cac:PartyIdentification", "cbc:ID")) if carrier is not None else None
    number = (number_node.text or "").strip() if number_node is not None and number_node.text else ""
    if not number:
        raise Answer("2558")
    assert number_node is not None and carrier is not None
    scheme = (number_node.get("schemeID") or "").strip()
    if not scheme:
        raise Answer("2561")
    if scheme != "6":
        raise Answer("2485", f'cbc:ID@schemeID valor: "{scheme}"')
    if number == guide.file.ruc:
        raise Answer("2560", f'cac:CarrierParty/cac:PartyIdentification/cbc:ID valor: "{number}"')
    if not reading.text(carrier, _path("cac:PartyLegalEntity", "cbc:RegistrationName"), ""):
        raise Answer("2563")
    _mtc(guide)


def _mtc(guide: _Guide) -> None:
    """The carrier's MTC registration (observations 4391 missing, 4392 malformed)."""
    mtc = guide.text(
        "cac:Shipment", "cac:ShipmentStage", "cac:CarrierParty", "cac:PartyLegalEntity", "cbc:CompanyID"
    )
    if not mtc:
        guide.observe("4391")
    elif not _MTC.match(mtc):
        guide.observe("4392", f'cbc:CompanyID valor: "{mtc}"')


#: SUNAT's indicators (``cac:Shipment/cbc:SpecialInstructions``) that change a sender's vehicle rules:
#: a category M1 or L vehicle, and the carrier's vehicle and drivers named on a public-transport guide.
_M1L = "SUNAT_Envio_IndicadorTrasladoVehiculoM1L"
_CARRIERS_VEHICLE = "SUNAT_Envio_IndicadorVehiculoConductoresTransp"
_TUC = _path("cac:ApplicableTransportMeans", "cbc:RegistrationNationalityID")
_TUC_NODE = "cac:ApplicableTransportMeans/cbc:RegistrationNationalityID"


def _vehicles(guide: _Guide, mode: str) -> None:
    """The main vehicle and the secondary ones (``cac:AttachedTransportEquipment``) as SUNAT's GRE
    stylesheets judge them: the main plate where required (2566) or forbidden (3354 on public transport),
    every plate's format (2567), the vehicle certificate (TUC: 4399 missing on a carrier's vehicle, 3452 /
    3454 on a sender's guide that does not carry the carrier's vehicle, 3355 its format), at most two
    secondary vehicles (4389), none without a main one (4408) nor on public transport (3453)."""
    carrier = guide.file.doc_type == "31"
    instructions = {
        (node.text or "").strip()
        for node in guide.root.iterfind(_path("cac:Shipment", "cbc:SpecialInstructions"))
    }
    m1l = not carrier and _M1L in instructions
    carriers_vehicle = carrier or _CARRIERS_VEHICLE in instructions
    public = not carrier and mode == "01"
    equipment = guide.root.find(_path("cac:Shipment", "cac:TransportHandlingUnit", "cac:TransportEquipment"))
    plate = reading.text(equipment, CBC("ID"), "")
    tuc = reading.text(equipment, _TUC, "")
    if not plate and (carrier or (not m1l and (mode == "02" or (public and carriers_vehicle)))):
        raise Answer("2566")
    if plate and public and not m1l and not carriers_vehicle:
        raise Answer("3354", f'cac:TransportEquipment/cbc:ID valor: "{plate}"')
    if plate and not _PLATE.match(plate):
        raise Answer("2567", f'cac:TransportEquipment/cbc:ID valor: "{plate}"')
    if not tuc and (carrier or (public and not m1l and carriers_vehicle)):
        guide.observe("4399", f'cac:TransportEquipment/cbc:ID valor: "{plate}"')
    if tuc and not carriers_vehicle:
        raise Answer("3452", f'{_TUC_NODE} valor: "{tuc}"')
    if tuc and not _CERTIFICATE.match(tuc):
        raise Answer("3355", f'{_TUC_NODE} valor: "{tuc}"')
    secondary = [] if equipment is None else equipment.findall(CAC("AttachedTransportEquipment"))
    if len(secondary) > 2:
        guide.observe("4389")
    for vehicle in secondary:
        _secondary_vehicle(
            guide, vehicle, main=plate, public=public, m1l=m1l, carriers_vehicle=carriers_vehicle
        )


def _secondary_vehicle(
    guide: _Guide, vehicle: etree._Element, *, main: str, public: bool, m1l: bool, carriers_vehicle: bool
) -> None:
    """One secondary vehicle (the template SUNAT's stylesheets apply to each)."""
    carrier = guide.file.doc_type == "31"
    plate = reading.text(vehicle, CBC("ID"), "")
    tuc = reading.text(vehicle, _TUC, "")
    where = f'cac:AttachedTransportEquipment/cbc:ID valor: "{plate}"'
    if plate and not carrier and not main:
        guide.observe("4408", where)
    if plate and (m1l or (public and not carriers_vehicle)):
        raise Answer("3453", where)
    if plate and not _PLATE.match(plate):
        raise Answer("2567", where)
    if plate and not tuc and (carrier or (public and not m1l and carriers_vehicle)):
        guide.observe("4399", where)
    if tuc and not carriers_vehicle:
        raise Answer("3454", f'cac:AttachedTransportEquipment/{_TUC_NODE} valor: "{tuc}"')
    if tuc and not _CERTIFICATE.match(tuc):
        raise Answer("3355", f'cac:AttachedTransportEquipment/{_TUC_NODE} valor: "{tuc}"')


def _drivers(guide: _Guide) -> None:
    """Exactly one main driver (3357 / 3358), each driver's document (2568, 2570, 2569) and licence
    (2572, 2573)."""
    drivers = list(guide.root.iterfind(_path("cac:Shipment", "cac:ShipmentStage", "cac:DriverPerson")))
    principal = [d for d in drivers if reading.text(d, CBC("JobTitle"), "") == "Principal"]
    if not principal:
        raise Answer("3357")
    if len(principal) > 1:
        raise Answer("3358")
    for driver in drivers:
        id_node = driver.find(CBC("ID"))
        number = (id_node.text or "").strip() if id_node is not None and id_node.text else ""
        if not number:
            raise Answer("2568")
        assert id_node is not None
        scheme = (id_node.get("schemeID") or "").strip()
        if not scheme:
            raise Answer("2570")
        if (scheme == "1" and not _DNI.match(number)) or not _OTHER_ID.match(number):
            raise Answer("2569", f'cbc:ID valor: "{number}"')
        licence = reading.text(driver, _path("cac:IdentityDocumentReference", "cbc:ID"), "")
        if not licence:
            raise Answer("2572")
        if not _LICENCE.match(licence):
            raise Answer("2573", f'cac:DriverPerson/cac:IdentityDocumentReference/cbc:ID valor: "{licence}"')


def _addresses(guide: _Guide) -> None:
    """Origin and delivery: ubigeo present (2775), six digits (2776), in catalog 13 (3363 origin,
    3368 delivery), and the address line (2577 origin, 2574 delivery)."""
    delivery = guide.root.find(_path("cac:Shipment", "cac:Delivery"))
    for address_path, not_in_catalog, no_line in (
        (_path("cac:Despatch", "cac:DespatchAddress"), "3363", "2577"),
        (CAC("DeliveryAddress"), "3368", "2574"),
    ):
        address = delivery.find(address_path) if delivery is not None else None
        ubigeo = reading.text(address, CBC("ID"), "")
        if not ubigeo:
            raise Answer("2775", f'cac:{address_path.rsplit("}", 1)[-1]}/cbc:ID valor: ""')
        if not _UBIGEO.match(ubigeo):
            raise Answer("2776", f'cac:{address_path.rsplit("}", 1)[-1]}/cbc:ID valor: "{ubigeo}"')
        if not is_valid_ubigeo(ubigeo):
            raise Answer(not_in_catalog, f'cac:{address_path.rsplit("}", 1)[-1]}/cbc:ID valor: "{ubigeo}"')
        if not reading.text(address, _path("cac:AddressLine", "cbc:Line"), ""):
            raise Answer(no_line)
    reason = guide.text("cac:Shipment", "cbc:HandlingCode") if guide.file.doc_type == "09" else ""
    sender = guide.text("cac:DespatchSupplierParty", "cac:Party", "cac:PartyIdentification", "cbc:ID")
    for address_path, reasons, where in (
        (_path("cac:Despatch", "cac:DespatchAddress"), _ORIGIN_NOT_OWN, "cac:DespatchAddress"),
        (CAC("DeliveryAddress"), _DELIVERY_NOT_OWN, "cac:DeliveryAddress"),
    ):
        address = delivery.find(address_path) if delivery is not None else None
        code = address.find(CBC("AddressTypeCode")) if address is not None else None
        if reason in reasons and code is not None and code.get("listID") == sender:
            raise Answer("3411", f'{where}/cbc:AddressTypeCode/@listID valor: "{sender}"')


def _lines(guide: _Guide) -> None:
    """At least one line with a positive quantity (2023-like checks are SUNAT's XSD's, kept light)."""
    lines = list(guide.root.iterchildren(CAC("DespatchLine")))
    if not lines:
        raise Answer("0306", 'cac:DespatchLine valor: ""')
