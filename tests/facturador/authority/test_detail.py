# ruff: noqa: E501 - the cases are a table, one a line
"""SUNAT's Detalle as the simulator writes it (facturador.authority.detail): the forms SUNAT's answers
carry (thegreenter/demo #111, thegreenter/greenter #41 and #58), which parsers take apart."""

from __future__ import annotations

import re

import pytest

from facturador.authority.detail import described, sunat_detail
from sunat.catalogs import response_message

FORM = re.compile(
    r"xxx\.xxx\.xxx value='ticket: (\d+) error: (INFO: |Error en la linea: \d+: )(\d{4}) \(nodo: \"(.*)\" valor: \"(.*)\"\)'"
)


@pytest.mark.parametrize(
    ("code", "detail", "where", "node", "value"),
    [
        (
            "3246",
            'cac:PaymentTerms/cbc:PaymentMeansID valor: "Contado"',
            "INFO: ",
            "cac:PaymentTerms/cbc:PaymentMeansID",
            "Contado",
        ),
        (
            "2040",
            'line 3: cbc:TaxExemptionReasonCode valor: "99"',
            "Error en la linea: 3: ",
            "cbc:TaxExemptionReasonCode",
            "99",
        ),
        (
            "3127",
            'cac:PaymentTerms[cbc:ID="Detraccion"]/cbc:PaymentMeansID',
            "INFO: ",
            'cac:PaymentTerms[cbc:ID="Detraccion"]/cbc:PaymentMeansID',
            "",
        ),
    ],
)
def test_a_detail_reads_as_sunats(code: str, detail: str, where: str, node: str, value: str) -> None:
    found = FORM.fullmatch(sunat_detail(code, detail, "1634614171354"))
    assert found is not None
    assert found.groups() == ("1634614171354", where, code, node, value)
    assert FORM.fullmatch(sunat_detail(code, detail)) is not None  # a processing number of its own


def test_a_description_is_the_catalogue_text_and_its_detalle() -> None:
    assert described("2800") == response_message("2800")
    text = described("2800", 'cbc:ID/@schemeID valor: "7"', "1")
    assert text == (
        f"{response_message('2800')} - Detalle: xxx.xxx.xxx value='ticket: 1 error: INFO: 2800 "
        '(nodo: "cbc:ID/@schemeID" valor: "7")\''
    )
