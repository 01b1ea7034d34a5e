"""SUNAT's own stylesheets on the XML we make, through the reference folder's runner (tests/reference.py).

The runner of the reference folder knows invoices, notes, RC, RA and RR; retentions (20) and perceptions
(40) are added here: their stylesheets (``ValidaExprRegRetencion-1.0.3.xsl``,
``ValidaExprRegPercepcion-1.0.2.xsl``) are registered and the document kind is read from the root
element. No rule is changed. Every function skips the calling test when the folder is absent.
"""

from __future__ import annotations

import importlib.util
import re
import sys
import tempfile
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from lxml import etree

from sunat.calendar import peru_today
from tests import reference

#: Root element -> (kind, stylesheet) added to the runner.
OTHER_KINDS = {
    "Retention": ("20", "ValidaExprRegRetencion-1.0.3.xsl"),
    "Perception": ("40", "ValidaExprRegPercepcion-1.0.2.xsl"),
}
_AGENT_RUC = "cac:AgentParty/cac:PartyIdentification/cbc:ID/text()"


@cache
def _module() -> ModuleType:
    path = reference.shared_path("sunat-rules", "run_xsl.py")
    spec = importlib.util.spec_from_file_location("sunat_rules_run_xsl", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    for kind, sheet in OTHER_KINDS.values():
        module.STYLESHEETS.setdefault(kind, sheet)
    original = module.describe

    def describe(xml_path: Path) -> tuple[str, str]:
        root = etree.parse(str(xml_path)).getroot()
        local = etree.QName(root).localname
        if local not in OTHER_KINDS:
            return original(xml_path)
        kind = OTHER_KINDS[local][0]
        ident = (
            root.findtext("{urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2}ID") or ""
        )
        ruc = root.xpath(_AGENT_RUC, namespaces=module.NS)
        name = xml_path.name
        if not name.startswith(f"{ruc[0] if ruc else ''}-{kind}-"):
            name = f"{ruc[0] if ruc else ''}-{kind}-{ident}.xml"
        return kind, name

    module.describe = describe
    return module


@cache
def _runner() -> Any:
    module = _module()
    xsl_dir = reference.shared_path("sunat-rules", "contenido")
    work = Path(tempfile.gettempdir()) / "sunat-xsl-runtime-facturador" / "datapower"
    runtime = module.build_runtime(xsl_dir, work, "datapower")
    for _kind, sheet in OTHER_KINDS.values():
        _include_error_utils_once(work / sheet)
    _define_regexp_match(work / module.STYLESHEETS["RR"])
    codes = module.load_codes([xsl_dir / "commons/cpe/catalogo/CatalogoErrores.xml"])
    return module.Runner(runtime, codes, "all", None, module.SchemaCheck(xsl_dir / "commons/xsd"))


def _include_error_utils_once(path: Path) -> None:
    """These two stylesheets include ``error_utils.xsl`` and ``validate_utils.xsl``, which includes it
    again (``dp:ignore-multiple="yes"``: the gateway ignores the repetition); Saxon refuses a template
    defined twice, so the direct include is dropped, as the gateway does."""
    text = path.read_text(encoding="utf-8")
    kept = re.sub(r'<xsl:include href="[^"]*/commons/error/error_utils\.xsl"/>', "", text, count=1)
    if kept != text and "validate_utils.xsl" in kept:
        path.write_text(kept, encoding="utf-8")


def _define_regexp_match(path: Path) -> None:
    """The reversion stylesheet includes ``error_utils.xsl`` only, so the runner's EXSLT shims (``date:*``,
    ``regexp:match``, provided through ``validate_utils.xsl``) are missing; the runtime copy includes them
    (the rules themselves are unchanged)."""
    text = path.read_text(encoding="utf-8")
    shims = (path.parent / "commons/error/harness_exslt_date.xsl").as_uri()
    if shims in text:
        return
    start = text.index(">", text.index("<xsl:stylesheet")) + 1
    path.write_text(text[:start] + f'<xsl:include href="{shims}"/>' + text[start:], encoding="utf-8")


def run(xml: bytes, filename: str) -> Any:
    """SUNAT's verdict on ``xml`` sent as ``filename`` (``RUC-20-R001-1``): the runner's ``Result``
    (``first_rejection``, ``rejections``, ``observations``, ``xsd``, ``runtime_error``)."""
    runner = _runner()
    runner.today = peru_today().isoformat()  # SUNAT's date rules on the day of our clock, not the machine's
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"{filename}.xml"
        path.write_bytes(xml)
        return runner.run(path)


def assert_no_rejection(xml: bytes, filename: str) -> Any:
    """SUNAT's stylesheet runs on ``xml`` without error and rejects nothing; returns the result."""
    result = run(xml, filename)
    assert result.runtime_error is None, result.runtime_error
    assert result.xsd in ("ok", "not checked"), result.xsd
    assert not result.rejections, [(f.code, f.text, f.detail) for f in result.rejections]
    return result
