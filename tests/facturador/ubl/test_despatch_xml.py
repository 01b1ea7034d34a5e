"""The GRE 2022 DespatchAdvice: valid against UBL 2.1's XSD, signed, accepted by SUNAT's GRE stylesheets
(``commons/xsl/ValidaExprRegGreRemitente-2.0.1.xsl`` / ``...GreTransportista-2.0.1.xsl``), and the
simulator's answer to each broken variant agrees with those stylesheets."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest
from lxml import etree

from facturador.authority.gre.rules import check_guide, gre_file_name
from facturador.authority.rules.context import Answer
from facturador.issued import DispatchParty, Driver
from facturador.ubl import xsd
from facturador.ubl.despatch import build_despatch, prepare_despatch, sign_despatch
from facturador.ubl.namespaces import CAC, CBC
from facturador.ubl.signing import SigningIdentity, generate_identity, sign, verify
from tests import reference
from tests.facturador.authority.test_gre_simulator import broken_cases
from tests.samples.dispatches import DRIVER as MAIN_DRIVER
from tests.samples.dispatches import GRE_RUC, guide

GUIDES = {"09-public": ("01", "09"), "09-private": ("02", "09"), "31": ("02", "31")}
#: Guides written only in some cases, judged by SUNAT's stylesheets too: a carrier's guide whose freight
#: a third party pays (``cac:OriginatorCustomerParty``, SUNAT's 3399 / 3400 / 4401-4402 / 4370).
MORE_GUIDES = {
    "31-third-payer": (
        "02",
        "31",
        {
            "freight_payer": "Tercero",
            "freight_payer_party": DispatchParty("6", "20601030013", "PAGADOR DEL FLETE S.A.C."),
        },
    ),
}


@pytest.fixture(scope="module")
def identity() -> SigningIdentity:
    return SigningIdentity.from_pem(*generate_identity(GRE_RUC, "EMISOR DE GUIAS S.A.C."))


#: Runs SUNAT's runner in a child process (SaxonC's native image must not share a process with the
#: test servers' threads): every XML file given is judged, the verdicts printed as JSON.
DRIVER = """
import json, pathlib, sys
from lxml import etree
rules, work, *files = sys.argv[1:]
sys.path.insert(0, rules)
import run_xsl
run_xsl.STYLESHEETS["09"] = "ValidaExprRegGreRemitente-2.0.1.xsl"
run_xsl.STYLESHEETS["31"] = "ValidaExprRegGreTransportista-2.0.1.xsl"
described = run_xsl.describe
def describe(path):
    root = etree.parse(str(path)).getroot()
    if etree.QName(root).localname == "DespatchAdvice":
        code = root.findtext("{urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2}"
                             "DespatchAdviceTypeCode")
        return code, path.name
    return described(path)
run_xsl.describe = describe
xsl_dir = pathlib.Path(rules) / "contenido"
runtime = run_xsl.build_runtime(xsl_dir, pathlib.Path(work), "sfs")
codes = run_xsl.load_codes([xsl_dir / "commons/cpe/catalogo/CatalogoErrores.xml"])
runner = run_xsl.Runner(runtime, codes, "first", None, None)
out = {}
for name in files:
    r = runner.run(pathlib.Path(name))
    out[pathlib.Path(name).name] = {"rejection": r.first_rejection, "error": r.runtime_error,
                                    "observations": [o.code for o in r.observations]}
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def judge(tmp_path_factory: pytest.TempPathFactory) -> Callable[[list[tuple[str, bytes]]], dict[str, Any]]:
    """Judge ``(filename, xml)`` pairs with SUNAT's GRE stylesheets (SFS family) in a child process."""
    rules = reference.shared_path("sunat-rules")
    work = tmp_path_factory.mktemp("xsl")

    def run(documents: list[tuple[str, bytes]]) -> dict[str, Any]:
        folder = tmp_path_factory.mktemp("guides")
        paths = []
        for filename, xml in documents:
            path = folder / f"{filename}.xml"
            path.write_bytes(xml)
            paths.append(str(path))
        done = subprocess.run(
            [sys.executable, "-c", DRIVER, str(rules), str(work / "sfs"), *paths],
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        )
        return {name[:-4]: verdict for name, verdict in json.loads(done.stdout.splitlines()[-1]).items()}

    return run


@pytest.mark.parametrize("kind", GUIDES)
def test_guides_are_schema_valid_and_signed(identity: SigningIdentity, kind: str) -> None:
    mode, doc_type = GUIDES[kind]
    signed = sign_despatch(guide(mode, doc_type=doc_type), identity)
    assert xsd.validate(signed.xml, "DespatchAdvice") == []
    assert verify(signed.xml).digest_value == signed.digest_value
    assert signed.filename == f"{GRE_RUC}-{doc_type}-{'T001' if doc_type == '09' else 'V001'}-1"
    root = etree.fromstring(signed.xml)
    assert root.findtext(CBC("CustomizationID")) == "2.0" and root.findtext(CBC("UBLVersionID")) == "2.1"


@pytest.mark.parametrize("kind", GUIDES)
def test_a_guide_built_before_its_number_signs_as_one_built_with_it(
    identity: SigningIdentity, kind: str
) -> None:
    """The service builds a guide outside its numbering transaction and signs it inside with the number
    it takes: byte for byte what building and signing the numbered guide gives."""
    mode, doc_type = GUIDES[kind]
    prepared = prepare_despatch(guide(mode, doc_type=doc_type, number=0))
    for number in (1, 87, 99999999):
        assert prepared.sign(identity, number) == sign_despatch(
            guide(mode, doc_type=doc_type, number=number), identity
        )


@pytest.mark.requires_shared
def test_sunat_gre_stylesheets_accept_the_guides(identity: SigningIdentity, judge: Any) -> None:
    signed = {
        kind: sign_despatch(guide(mode, doc_type=doc_type), identity)
        for kind, (mode, doc_type) in GUIDES.items()
    }
    signed |= {
        kind: sign_despatch(guide(mode, doc_type=doc_type, number=2, **changes), identity)
        for kind, (mode, doc_type, changes) in MORE_GUIDES.items()
    }
    verdicts = judge([(s.filename, s.xml) for s in signed.values()])
    for kind, document in signed.items():
        verdict = verdicts[document.filename]
        assert verdict == {"rejection": None, "error": None, "observations": []}, kind
        root = etree.fromstring(document.xml)
        assert check_guide(root, gre_file_name(document.filename), today=guide().issue_date) == ()


#: Rules the stylesheets leave to SUNAT's gateway (its README: the issue-date window is not in them).
SIMULATOR_ONLY = {"2329"}


@pytest.mark.requires_shared
def test_simulator_and_stylesheets_agree_on_broken_guides(identity: SigningIdentity, judge: Any) -> None:
    cases = [case for case in broken_cases() if case[3] not in SIMULATOR_ONLY]
    signed = [
        sign_despatch(guide(mode, number=index, **changes), identity)
        for index, (_l, mode, changes, _c) in enumerate(cases, 1)
    ]
    verdicts = judge([(s.filename, s.xml) for s in signed])
    assert len(cases) >= 15
    for (label, _mode, _changes, code), document in zip(cases, signed, strict=True):
        assert verdicts[document.filename]["rejection"] == code, label
        with pytest.raises(Answer) as answer:
            check_guide(
                etree.fromstring(document.xml), gre_file_name(document.filename), today=guide().issue_date
            )
        assert answer.value.code == code, label


# -- vehicles and drivers ------------------------------------------------------------------------------

SECOND_DRIVER = Driver("1", "87654321", "ANA", "QUISPE ROJAS", "Q87654321", principal=False)


def _plates(root: etree._Element) -> list[str]:
    holders = (CAC("TransportEquipment"), CAC("AttachedTransportEquipment"))
    return [node.text or "" for node in root.iter(CBC("ID")) if node.getparent().tag in holders]


@pytest.mark.parametrize("kind", ["09", "31"])
def test_every_plate_is_written_as_sunat_wants_it(kind: str) -> None:
    """SUNAT's 2567 takes ``[0-9A-Z]{6,8}``: a plate typed "def-456" or "XYZ 789" is written without its
    hyphen or space, upper case, for the main and every secondary vehicle of either guide."""
    dispatch = guide("02", doc_type=kind, vehicles=("abc-123", "def 456", " Xy-Z 789 "))
    assert _plates(build_despatch(dispatch)) == ["ABC123", "DEF456", "XYZ789"]


def test_a_senders_guide_carries_no_vehicle_certificate() -> None:
    """The TUC is the carrier's: on a 09 guide without SUNAT's indicator of the carrier's vehicle SUNAT
    rejects it (3452), so only a 31 guide writes it."""
    tuc = f"{CAC('ApplicableTransportMeans')}/{CBC('RegistrationNationalityID')}"
    sender = build_despatch(guide("02", vehicle_certificate="TUC1234567"))
    assert sender.find(f".//{tuc}") is None
    carrier = build_despatch(guide("02", doc_type="31"))
    assert carrier.findtext(f".//{tuc}") == "TUC1234567"


def _tree_edit(path: str, value: str) -> Callable[[etree._Element], None]:
    """Set the text of the first element at ``path`` (under cac:Shipment) to ``value``."""

    def edit(root: etree._Element) -> None:
        node = root.find(f"{CAC('Shipment')}/{path}")
        assert node is not None, path
        node.text = value

    return edit


def _add_certificate(holder: str, value: str) -> Callable[[etree._Element], None]:
    """Give the vehicle at ``holder`` (under cac:Shipment) a TUC ``value``."""

    def edit(root: etree._Element) -> None:
        node = root.find(f"{CAC('Shipment')}/{holder}")
        assert node is not None, holder
        means = etree.Element(CAC("ApplicableTransportMeans"))
        etree.SubElement(means, CBC("RegistrationNationalityID")).text = value
        node.find(CBC("ID")).addnext(means)  # type: ignore[union-attr]

    return edit


_EQUIPMENT = f"{CAC('TransportHandlingUnit')}/{CAC('TransportEquipment')}"
_SECONDARY = f"{_EQUIPMENT}/{CAC('AttachedTransportEquipment')}"
TWO = ("ABC123", "DEF456")
CREW = {"vehicles": TWO, "drivers": (MAIN_DRIVER, SECOND_DRIVER)}
SECOND_PLATE = f"{_SECONDARY}/{CBC('ID')}"
#: (label, guide type, mode, changes of the guide, an edit of its built tree or None). The plates the
#: builder cannot write wrong are broken in the tree.
VEHICLE_CASES: list[tuple[str, str, str, dict[str, Any], Callable[[etree._Element], None] | None]] = [
    ("31 secondary vehicle and driver", "31", "02", CREW, None),
    ("09 secondary vehicle and driver", "09", "02", CREW, None),
    ("31 secondary plate DEF-456", "31", "02", {"vehicles": TWO}, _tree_edit(SECOND_PLATE, "DEF-456")),
    ("09 secondary plate de456", "09", "02", {"vehicles": TWO}, _tree_edit(SECOND_PLATE, "de456")),
    ("31 main plate ABC-123", "31", "02", {}, _tree_edit(f"{_EQUIPMENT}/{CBC('ID')}", "ABC-123")),
    ("31 three secondary vehicles", "31", "02", {"vehicles": (*TWO, "GHI789", "JKL012")}, None),
    ("31 no vehicle certificate", "31", "02", {"vehicle_certificate": ""}, None),
    ("31 malformed vehicle certificate", "31", "02", {"vehicle_certificate": "TUC-1"}, None),
    ("31 malformed secondary certificate", "31", "02", {"vehicles": TWO}, _add_certificate(_SECONDARY, "T1")),
    ("31 secondary certificate", "31", "02", {"vehicles": TWO}, _add_certificate(_SECONDARY, "TUC7654321")),
    ("09 vehicle certificate", "09", "02", {}, _add_certificate(_EQUIPMENT, "TUC1234567")),
    ("09 secondary certificate", "09", "02", {"vehicles": TWO}, _add_certificate(_SECONDARY, "TUC7654321")),
    ("09 all zero plate", "09", "02", {}, _tree_edit(f"{_EQUIPMENT}/{CBC('ID')}", "000000")),
]


def _public_with_vehicle(root: etree._Element) -> None:
    """A public transport guide (01) that names a vehicle anyway (SUNAT's 3354)."""
    shipment = root.find(CAC("Shipment"))
    assert shipment is not None
    unit = etree.SubElement(shipment, CAC("TransportHandlingUnit"))
    etree.SubElement(etree.SubElement(unit, CAC("TransportEquipment")), CBC("ID")).text = "ABC123"


VEHICLE_CASES.append(("09 public transport with a vehicle", "09", "01", {}, _public_with_vehicle))


@pytest.mark.requires_shared
def test_simulator_and_stylesheets_agree_on_vehicles_and_drivers(
    identity: SigningIdentity, judge: Any
) -> None:
    """Guides with secondary vehicles and drivers, and every plate and certificate rule of SUNAT's GRE
    stylesheets: the simulator's first error and its observations are the stylesheets'."""
    signed = []
    for index, (_label, kind, mode, changes, edit) in enumerate(VEHICLE_CASES, 1):
        root = build_despatch(guide(mode, doc_type=kind, number=index, **changes))
        if edit is not None:
            edit(root)
        xml, _digest = sign(root, identity)
        signed.append((guide(mode, doc_type=kind, number=index).filename, xml))
    verdicts = judge(signed)
    simulator, sunat = {}, {}
    for (label, *_rest), (filename, xml) in zip(VEHICLE_CASES, signed, strict=True):
        verdict = verdicts[filename]
        assert verdict["error"] is None, label
        sunat[label] = (verdict["rejection"], sorted(verdict["observations"]))
        try:
            notes = check_guide(etree.fromstring(xml), gre_file_name(filename), today=guide().issue_date)
        except Answer as answer:
            simulator[label] = (answer.code, [])
        else:
            simulator[label] = (None, sorted(note[:4] for note in notes))
        if sunat[label][0] is not None:
            sunat[label] = (sunat[label][0], [])  # a rejection's CDR carries no observations
    assert simulator == sunat
