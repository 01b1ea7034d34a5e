"""SUNAT's Detalle: how its answers say where a rule failed.

A refusal's text is SUNAT's text of the code, then `` - Detalle: `` and the place, in the form SUNAT's
gateway writes it (thegreenter/demo #111, thegreenter/greenter #41 and #58)::

    xxx.xxx.xxx value='ticket: 1634614171354 error: INFO: 3246 (nodo: "cbc:PaymentMeansID" valor: "Contado")'

Parsers read the code, the node and the value from it, so the simulator writes nothing else there.
"""

from __future__ import annotations

import itertools
import re
import time

from sunat.catalogs import response_message

__all__ = ["described", "sunat_detail"]

#: A rule's detail written ``<node> valor: "<value>"`` (the form of the simulator's rules).
_NODE_VALUE = re.compile(r'^(?P<node>.*?)\s*valor:\s*"(?P<value>.*)"$', re.S)
#: A rule of one line names it first (``line 3: cbc:TaxExemptionReasonCode``), as SUNAT's
#: "Error en la linea: 3: 2040 (nodo: ...)" does (thegreenter/greenter #58).
_LINE = re.compile(r"^(?:line|linea) (?P<line>\d+):\s*(?P<node>.*)$", re.S)
_SEQUENCE = itertools.count(1)


def sunat_detail(code: str, detail: str, ticket: str = "") -> str:
    """A rule's ``detail`` (``<node> valor: "<value>"``, or just the node) as SUNAT writes its Detalle;
    ``ticket`` is the number of SUNAT's processing (a fresh one when none is given)."""
    match = _NODE_VALUE.match(detail)
    node, value = (match["node"], match["value"]) if match else (detail, "")
    where = "INFO: "
    if line := _LINE.match(node):  # a rule of one line: SUNAT's "Error en la linea: 1: 2026 (nodo: ...)"
        where, node = f"Error en la linea: {line['line']}: ", line["node"]
    ticket = ticket or f"{time.time_ns() // 1_000_000}{next(_SEQUENCE) % 1000:03d}"
    return f'xxx.xxx.xxx value=\'ticket: {ticket} error: {where}{code} (nodo: "{node}" valor: "{value}")\''


def described(code: str, detail: str = "", ticket: str = "") -> str:
    """SUNAT's text of ``code`` and, when there is a detail, its Detalle: ``<text> - Detalle: ...``."""
    text = response_message(code)
    return f"{text} - Detalle: {sunat_detail(code, detail, ticket)}" if detail else text
