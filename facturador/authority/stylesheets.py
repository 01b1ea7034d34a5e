"""SUNAT's own validation stylesheets, run by the simulator when a tenant points at them.

SUNAT checks every document with XSLT stylesheets (``ValidaExprReg*.xsl``) after the XML schema: a rule
that fails either rejects the document (its code is the CDR's) or adds an observation. SUNAT publishes
them (with the catalogues they read, under ``commons/``); a tenant whose setting ``authority_rules_dir``
names a folder holding them gets the simulator's business answers from SUNAT's own rules
(:meth:`SunatStylesheets.check`), on top of what only the simulator can decide (file, signature,
duplicates, registries; see :mod:`facturador.authority.simulator`).

The stylesheets were written for SUNAT's IBM DataPower gateway. They run here with SaxonC-HE
(``saxonche``, the optional extra ``sunat-rules``) on a working copy (under the data directory) in which
only the gateway's plumbing is replaced; no rule is changed:

- ``local:///`` paths become the working copy's ``file:`` URI, and ``dp:variable(...)`` of the received
  file name becomes the stylesheet parameter ``$nombreArchivoEnviado``;
- ``commons/error/error_utils.xsl`` (how a rule rejects or observes) is replaced by one that reports the
  code in the message, so the first rejection and the observations before it can be read back;
- the EXSLT date functions the rules call (``date:date``, ``date:seconds``, ``date:difference``) are
  given in XSLT 3.0 (Lima time, and "today" is the simulator's day), and ``dyn:evaluate`` of catalogue
  lookups is written as the XPath it evaluates;
- ``commons/cpe/datos/dat_fechas.xml``, which only the gateway has, is given the date SUNAT's own
  desktop copy uses (instalment rules are errors from 2021-04-01);
- a variable a stylesheet uses without declaring it gets an empty global declaration (NC/ND's
  ``MontoDescuentoAfectoBI`` the sum of the base-affecting global discounts, as SUNAT's desktop copy
  declares it).

Import this module only when the setting is used: it imports ``saxonche`` when a folder is loaded.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import shutil
import threading
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

__all__ = ["STYLESHEETS", "Finding", "StylesheetsError", "SunatStylesheets", "Verdict", "check_folder"]

#: The stylesheet of each kind of document (file names as SUNAT publishes them).
STYLESHEETS = {
    "01": "ValidaExprRegFactura-2.0.1.xsl",
    "03": "ValidaExprRegBoleta-2.0.1.xsl",
    "07": "ValidaExprRegNC-2.0.1.xsl",
    "08": "ValidaExprRegND-2.0.1.xsl",
    "RC": "ValidaExprRegSummary-1.1.0.xsl",
    "RA": "ValidaExprRegSummaryVoided-1.0.1.xsl",
}
#: What else the folder must hold: the shared templates and the catalogues.
_REQUIRED = ("commons/error/validate_utils.xsl", "commons/StringTemplates.xsl", "commons/cpe/catalogo")
#: Bump when the working copy is made differently (old copies are then rebuilt).
_COPY_VERSION = "1"
_MARK = "@@SUNAT@@"
_EMPTY = "''"
_MESSAGE = re.compile(rf"^{_MARK}(E|W)@@([^@]*)@@(.*)$", re.S)
_UNDECLARED = re.compile(r"Variable \$([\w.-]+) has not been declared")
#: Declarations SUNAT's desktop copy has for variables the gateway copy uses undeclared.
_DECLARATIONS = {
    "MontoDescuentoAfectoBI": "sum(/*/cac:AllowanceCharge[cbc:AllowanceChargeReasonCode = '02']/cbc:Amount)",
}

_ERROR_UTILS = f"""<?xml version="1.0" encoding="UTF-8"?>
<!-- facturador: SUNAT's error_utils.xsl, the code in each message; the first rejection is the answer
     (the run goes on without printing Saxon's stack of a terminating message). -->
<xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
    xmlns:json="http://www.ibm.com/xmlns/prod/2009/jsonx">
  <xsl:template name="rejectCall">
    <xsl:param name="errorCode"/>
    <xsl:param name="errorMessage"/>
    <xsl:param name="priority" select="'error'"/>
    <xsl:message terminate="no"><xsl:value-of
        select="concat('{_MARK}E@@', string($errorCode), '@@', string($errorMessage))"/></xsl:message>
  </xsl:template>
  <xsl:template name="addWarning">
    <xsl:param name="warningCode"/>
    <xsl:param name="warningMessage"/>
    <xsl:message terminate="no"><xsl:value-of
        select="concat('{_MARK}W@@', string($warningCode), '@@', string($warningMessage))"/></xsl:message>
  </xsl:template>
  <xsl:template name="error">
    <xsl:param name="codigo"/>
    <xsl:value-of
        select="document('../cpe/catalogo/CatalogoErrores.xml')/catalogoerrores/error[@numero=$codigo]"/>
  </xsl:template>
  <xsl:template name="createWarning">
    <xsl:param name="warningCode"/>
    <xsl:param name="warningMessage"/>
    <json:object>
      <json:string name="codigo"><xsl:value-of select="$warningCode"/></json:string>
      <json:string name="warning"><xsl:value-of select="$warningMessage"/></json:string>
    </json:object>
  </xsl:template>
</xsl:stylesheet>
"""

# EXSLT dates-and-times as the rules use them. A date or dateTime without a zone counts as UTC (EXSLT's
# rule); "today" is the simulator's day in Lima (-05:00), given as the parameter simulatorToday.
_EXSLT_DATES = """<?xml version="1.0" encoding="UTF-8"?>
<xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
    xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:date="http://exslt.org/dates-and-times"
    xmlns:f="urn:facturador:exslt" exclude-result-prefixes="#all">
  <xsl:param name="simulatorToday" select="''"/>
  <xsl:variable name="f:lima" select="xs:dayTimeDuration('-PT5H')"/>
  <xsl:function name="f:moment" as="xs:dateTime?">
    <xsl:param name="value"/>
    <xsl:variable name="text" select="normalize-space(string($value))"/>
    <xsl:variable name="moment" as="xs:dateTime?" select="
        if ($text castable as xs:dateTime) then xs:dateTime($text)
        else if ($text castable as xs:date) then dateTime(xs:date($text), xs:time('00:00:00'))
        else ()"/>
    <xsl:sequence select="if (exists($moment) and empty(timezone-from-dateTime($moment)))
        then adjust-dateTime-to-timezone($moment, xs:dayTimeDuration('PT0H')) else $moment"/>
  </xsl:function>
  <xsl:function name="date:date" as="xs:string">
    <xsl:sequence select="if ($simulatorToday castable as xs:date)
        then string(xs:date(concat($simulatorToday, '-05:00')))
        else string(xs:date(adjust-dateTime-to-timezone(current-dateTime(), $f:lima)))"/>
  </xsl:function>
  <xsl:function name="date:date-time" as="xs:string">
    <xsl:sequence select="string(adjust-dateTime-to-timezone(current-dateTime(), $f:lima))"/>
  </xsl:function>
  <xsl:function name="date:seconds">
    <xsl:sequence select="date:seconds(date:date-time())"/>
  </xsl:function>
  <xsl:function name="date:seconds">
    <xsl:param name="value"/>
    <xsl:variable name="text" select="normalize-space(string($value))"/>
    <xsl:choose>
      <xsl:when test="$text castable as xs:duration">
        <xsl:variable name="d" select="xs:duration($text)"/>
        <xsl:sequence select="((years-from-duration($d) * 12 + months-from-duration($d)) * 30
            + days-from-duration($d)) * 86400 + hours-from-duration($d) * 3600
            + minutes-from-duration($d) * 60 + seconds-from-duration($d)"/>
      </xsl:when>
      <xsl:when test="exists(f:moment($text))">
        <xsl:sequence select="(f:moment($text) - xs:dateTime('1970-01-01T00:00:00Z'))
            div xs:dayTimeDuration('PT1S')"/>
      </xsl:when>
      <xsl:otherwise><xsl:sequence select="number('NaN')"/></xsl:otherwise>
    </xsl:choose>
  </xsl:function>
  <xsl:function name="date:difference" as="xs:string">
    <xsl:param name="start"/>
    <xsl:param name="end"/>
    <xsl:variable name="from" select="f:moment($start)"/>
    <xsl:variable name="to" select="f:moment($end)"/>
    <xsl:sequence select="if (exists($from) and exists($to)) then string($to - $from) else ''"/>
  </xsl:function>
</xsl:stylesheet>
"""

_DAT_FECHAS = """<?xml version="1.0" encoding="UTF-8"?>
<!-- facturador: the gateway's own file is not published; the date of SUNAT's desktop copy. -->
<l><d id="factoring" valor="20210401"/></l>
"""


class StylesheetsError(Exception):
    """The stylesheets cannot be used: saxonche is not installed, or the folder lacks them."""


@dataclass(frozen=True)
class Finding:
    """A rule that fired: SUNAT's code and the stylesheet's own detail (node and value)."""

    code: str
    detail: str


@dataclass(frozen=True)
class Verdict:
    """SUNAT's answer to one document: its first rejection (None when accepted) and the observations."""

    rejection: Finding | None
    observations: tuple[Finding, ...]


def check_folder(folder: str | Path) -> Path:
    """The folder of SUNAT's stylesheets, resolved; raises :class:`StylesheetsError` (a message for the
    user) when ``saxonche`` is missing or the folder does not hold the stylesheets."""
    if importlib.util.find_spec("saxonche") is None:
        raise StylesheetsError(
            "authority_rules_dir needs saxonche to run SUNAT's stylesheets: "
            "pip install 'facturador-kit[sunat-rules]'"
        )
    path = Path(folder).expanduser()
    if not path.is_dir():
        raise StylesheetsError(f"authority_rules_dir {path} is not a folder")
    missing = [name for name in (*STYLESHEETS.values(), *_REQUIRED) if not (path / name).exists()]
    if missing:
        raise StylesheetsError(
            f"authority_rules_dir {path} does not hold SUNAT's stylesheets (missing {', '.join(missing)}): "
            "it must be the folder with ValidaExprReg*.xsl and commons/ as SUNAT publishes them"
        )
    return path.resolve()


class SunatStylesheets:
    """SUNAT's stylesheets of ``folder``, ready to run (see the module doc).

    ``work`` is where the working copy goes (one sub-folder per version of the stylesheets). Each
    stylesheet is compiled the first time it is needed and reused; one object serves a whole process
    (runs are serialized: a Saxon executable is not shared between threads).
    """

    def __init__(self, folder: str | Path, work: Path) -> None:
        self.folder = check_folder(folder)
        from saxonche import PySaxonProcessor  # the optional extra: imported only when used

        self._processor = PySaxonProcessor(license=False)
        self._compiler = self._processor.new_xslt30_processor()
        self._copy = _working_copy(self.folder, work)
        self._compiled: dict[str, Any] = {}
        self._lock = threading.Lock()

    def check(self, kind: str, xml: bytes, filename: str, today: date) -> Verdict:
        """Run the stylesheet of ``kind`` (01, 03, 07, 08, RC, RA) on ``xml`` received as ``filename``
        (``RUC-TT-SERIE-NUMERO.xml`` or ``RUC-RC-YYYYMMDD-N.xml``) on SUNAT's day ``today``."""
        with self._lock:
            executable = self._executable(kind)
            executable.clear_parameters()
            executable.set_parameter("nombreArchivoEnviado", self._processor.make_string_value(filename))
            executable.set_parameter("simulatorToday", self._processor.make_string_value(today.isoformat()))
            executable.set_save_xsl_message(True, None)
            executable.clear_xsl_messages()
            source = self._processor.parse_xml(xml_text=xml.decode("utf-8"))
            failure = ""
            try:
                executable.transform_to_string(xdm_node=source)
            except Exception as exc:  # a fault of the stylesheet on this document
                failure = str(exc)
            messages = executable.get_xsl_messages()
            texts = [str(messages.item_at(i)) for i in range(messages.size if messages is not None else 0)]
        rejection, observations = None, []
        for raw in texts:
            match = _MESSAGE.match(raw.strip())
            if match is None:
                continue
            kind_of, code, detail = match.groups()
            finding = Finding(code.strip().lstrip("0") or "0", " ".join(detail.split()))
            if kind_of == "E":
                rejection = rejection or finding
            else:
                observations.append(finding)
        if rejection is None and failure:
            raise StylesheetsError(f"{STYLESHEETS[kind]} failed on {filename}: {failure[:300]}")
        return Verdict(rejection, tuple(observations))

    def _executable(self, kind: str) -> Any:
        """The compiled stylesheet of ``kind``; a variable used undeclared gets a global declaration."""
        if kind not in self._compiled:
            path = self._copy / STYLESHEETS[kind]
            for _attempt in range(10):
                try:
                    self._compiled[kind] = self._compiler.compile_stylesheet(stylesheet_file=str(path))
                    break
                except Exception as exc:
                    names = sorted(set(_UNDECLARED.findall(str(exc))))
                    if not names:
                        raise StylesheetsError(f"{path.name} does not compile: {str(exc)[:300]}") from exc
                    _declare(path, names)
            else:  # pragma: no cover - a stylesheet missing more than ten declarations
                raise StylesheetsError(f"{path.name} does not compile")
        return self._compiled[kind]


def _declare(path: Path, names: list[str]) -> None:
    """Add global declarations of ``names`` right after the ``xsl:stylesheet`` start tag."""
    text = path.read_text(encoding="utf-8")
    declarations = "".join(
        f'<xsl:variable name="{name}" select="{_DECLARATIONS.get(name, _EMPTY)}"/>' for name in names
    )
    start = text.index(">", text.index("<xsl:stylesheet")) + 1
    path.write_text(text[:start] + declarations + text[start:], encoding="utf-8")


def _read(path: Path) -> str:
    """A stylesheet's text (a few published copies carry Windows-1252 accents in comments)."""
    raw = path.read_bytes()
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("cp1252", errors="replace")


def _working_copy(folder: Path, work: Path) -> Path:
    """The working copy of ``folder`` under ``work`` (made once per version of the stylesheets)."""
    digest = hashlib.sha256(_COPY_VERSION.encode())
    sources = [folder / name for name in STYLESHEETS.values()] + [folder / "commons/error/validate_utils.xsl"]
    for path in sources:
        digest.update(path.name.encode() + path.read_bytes())
    copy = work / digest.hexdigest()[:16]
    if (copy / ".complete").exists():
        return copy
    building = work / f"{copy.name}.{os.getpid()}-{threading.get_ident()}.tmp"  # one per worker
    shutil.rmtree(building, ignore_errors=True)
    commons = building / "commons"
    shutil.copytree(folder / "commons/cpe", commons / "cpe")
    shutil.copy(folder / "commons/StringTemplates.xsl", commons / "StringTemplates.xsl")
    dates_file = commons / "cpe/datos/dat_fechas.xml"
    if not dates_file.exists():
        dates_file.parent.mkdir(parents=True, exist_ok=True)
        dates_file.write_text(_DAT_FECHAS, encoding="utf-8")
    (commons / "error").mkdir(parents=True)
    (commons / "error/error_utils.xsl").write_text(_ERROR_UTILS, encoding="utf-8")
    (commons / "error/exslt_dates.xsl").write_text(_EXSLT_DATES, encoding="utf-8")
    root_uri = copy.resolve().as_uri() + "/"
    utils = _utilities(_read(folder / "commons/error/validate_utils.xsl")).replace("local:///", root_uri)
    (commons / "error/validate_utils.xsl").write_text(utils, encoding="utf-8")
    for name in STYLESHEETS.values():
        (building / name).write_text(_main(_read(folder / name), root_uri), encoding="utf-8")
    (building / ".complete").write_text(str(folder), encoding="utf-8")
    try:
        building.rename(copy)
    except OSError:  # another process made it first
        shutil.rmtree(building, ignore_errors=True)
    return copy


def _template(text: str, name: str) -> tuple[int, int]:
    """Where the named template ``name`` starts and ends in ``text``."""
    match = re.search(rf'<xsl:template name="{re.escape(name)}">.*?</xsl:template>', text, re.S)
    if match is None:
        raise StylesheetsError(f"validate_utils.xsl has no template {name}")
    return match.span()


def _in_template(text: str, name: str, old: str, new: str) -> str:
    start, end = _template(text, name)
    return text[:start] + text[start:end].replace(old, new) + text[end:]


def _utilities(text: str) -> str:
    """SUNAT's validate_utils.xsl with the EXSLT dates included and the catalogue lookups as XPath."""
    text = text.replace(
        '<xsl:include href="error_utils.xsl"/>',
        '<xsl:include href="error_utils.xsl"/><xsl:include href="exslt_dates.xsl"/>',
        1,
    )
    by_property = "@*[name()=string($propiedad)]=string($valorPropiedad)"
    text = _in_template(
        text,
        "findElementInCatalogProperty",
        "count(document($url_catalogo)/l/c[@id=$idCatalogo and @gre-r=$valorPropiedad])",
        f"count(document($url_catalogo)/l/c[@id=string($idCatalogo) and {by_property}])",
    )
    text = _in_template(
        text,
        "findElementInCatalogPropertyxComponente",
        "count(dyn:evaluate($dynEval))",
        "count(document($url_catalogo)/l/c[@*[name()=string($propiedadCatalogo)]=string($idCatalogo) "
        f"and {by_property}])",
    )
    return _in_template(
        text,
        "getValueInCatalogProperty",
        "dyn:evaluate($dynEval)",
        "document($url_catalogo)/l/c[number(@id)=number(string($idCatalogo))]/@*[name()=string($propiedad)]",
    )


def _main(text: str, root_uri: str) -> str:
    """A main stylesheet with the received file name as a parameter and local:/// in the copy."""
    text = text.replace("dp:variable('var://context/cpe/nombreArchivoEnviado')", "$nombreArchivoEnviado")
    if not re.search(r'<xsl:param\s+name="nombreArchivoEnviado"', text):
        start = text.index(">", text.index("<xsl:stylesheet")) + 1
        text = text[:start] + '<xsl:param name="nombreArchivoEnviado"/>' + text[start:]
    return text.replace("local:///", root_uri)
