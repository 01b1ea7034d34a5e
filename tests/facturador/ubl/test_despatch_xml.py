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
from facturador.issued import DispatchParty
from facturador.ubl import xsd
from facturador.ubl.despatch import prepare_despatch, sign_despatch
from facturador.ubl.namespaces import CBC
from facturador.ubl.signing import SigningIdentity, generate_identity, verify
from tests import reference
from tests.facturador.authority.test_gre_simulator import broken_cases
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
