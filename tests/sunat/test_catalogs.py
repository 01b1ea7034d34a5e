import re
from decimal import Decimal

import pytest

from sunat import catalogs as c
from tests.reference import shared_path


def test_existing_names_keep_their_behaviour():
    assert c.TAX_SCHEMES["1000"] == c.TaxScheme("1000", "IGV", "VAT")
    assert c.tax_scheme_for("10").id == "1000"
    assert c.tax_scheme_for("17").id == "1016"
    assert c.tax_scheme_for("16").id == "9996"
    assert c.tax_scheme_for("20").id == "9997"
    assert c.tax_scheme_for("30").id == "9998"
    assert c.tax_scheme_for("40").id == "9995"
    assert c.is_free("21") and not c.is_free("10")
    assert c.bears_igv("16") and not c.bears_igv("21")
    assert c.STATE_TYPES["05"] == "Aceptado"


def test_document_and_identity_types():
    for code in ("01", "03", "07", "08", "09", "20", "31", "40", "RC", "RA"):
        assert code in c.DOCUMENT_TYPES
    assert set(c.IDENTITY_TYPES) == {"0", "1", "4", "6", "7", "A", "B", "C", "D", "E", "F", "G", "-"}
    assert c.IDENTITY_TYPES["6"] == "RUC"


def test_note_types():
    assert set(c.CREDIT_NOTE_TYPES) == {f"{i:02d}" for i in range(1, 14)}
    assert set(c.DEBIT_NOTE_TYPES) == {"01", "02", "03", "11", "12"}


def test_operation_types_by_document():
    assert set(c.OPERATION_TYPES_BY_DOCUMENT) == {"01", "03"}
    for allowed in c.OPERATION_TYPES_BY_DOCUMENT.values():
        assert allowed <= set(c.OPERATION_TYPES)
        assert "0101" in allowed and "0303" not in allowed
    factura, boleta = c.OPERATION_TYPES_BY_DOCUMENT["01"], c.OPERATION_TYPES_BY_DOCUMENT["03"]
    assert "0112" in factura and "0112" not in boleta
    assert "0113" in boleta and "0113" not in factura
    assert {"0202", "0205"} <= factura and not {"0202", "0205"} & boleta
    assert "2105" in boleta and "2105" not in factura
    assert c.EXPORT_OPERATION_TYPES == {f"020{i}" for i in range(9)}
    assert c.DETRACTION_OPERATION_TYPES == {"1001", "1002", "1003", "1004"}
    assert c.EXPORT_OPERATION_TYPES <= set(c.OPERATION_TYPES)


def test_small_catalogs():
    assert set(c.PRICE_TYPES) == {"01", "02"}
    assert {"1000", "1002", "2006", "2007"} <= set(c.LEGENDS)
    assert {"00", "01", "02", "03", "04", "45", "46", "47", "48", "49", "50", "62"} <= set(
        c.CHARGE_DISCOUNT_TYPES
    )
    assert {"001", "003", "009", "999"} <= set(c.PAYMENT_MEANS)
    assert {"02", "03", "99"} <= set(c.RELATED_DOCUMENT_TYPES)
    assert c.SUMMARY_CONDITIONS == {"1": "Adicionar", "2": "Modificar", "3": "Anulado"}


def test_detraction_types_carry_rates():
    assert c.DETRACTION_TYPES["008"] == ("Madera", Decimal("4"))
    assert c.DETRACTION_TYPES["037"][1] == Decimal("12")
    assert c.DETRACTION_TYPES["035"][1] == Decimal("1.5")
    for description, rate in c.DETRACTION_TYPES.values():
        assert description and isinstance(rate, Decimal) and 0 < rate <= 15


def test_currencies():
    assert len(c.CURRENCIES) >= 150
    for code in ("PEN", "USD", "EUR", "GBP", "JPY", "CLP", "COP", "BRL", "MXN", "ARS", "BOB", "CNY"):
        assert code in c.CURRENCIES
    assert all(re.fullmatch(r"[A-Z]{3}", code) for code in c.CURRENCIES)
    assert c.CURRENCY_NAMES["PEN"] == "SOLES"
    assert c.CURRENCY_NAMES["USD"] == "DÓLARES AMERICANOS"
    assert c.CURRENCY_NAMES["EUR"] == "EUROS"


def test_units():
    assert len(c.UNITS) >= 300
    # the ones named by sunat.md §9.12 and the Facturador seed list (facturador-api §5)
    for code in (
        "NIU",
        "ZZ",
        "KGM",
        "GRM",
        "TNE",
        "LTR",
        "GLL",
        "MTR",
        "CMT",
        "MTK",
        "MTQ",
        "BX",
        "BG",
        "PR",
        "DZN",
        "SET",
        "KT",
        "HUR",
        "DAY",
        "MON",
        "CEN",
        "4A",
        "FOT",
        "INH",
        "YRD",
    ):
        assert code in c.UNITS, code
    assert all(re.fullmatch(r"[A-Z0-9]{2,3}", code) for code in c.UNITS)


REQUIRED_CODES = (
    ["0100", "0109", "0127"]
    + [f"{i:04d}" for i in range(151, 162)]
    + ["0306", "1001", "1003", "1032", "1033"]
    + ["1034", "1035", "1036", "2010", "2014", "2015", "2016", "2017", "2022", "2071", "2101", "2108", "2116"]
    + ["2223", "2282", "2323", "2324", "2329", "2334", "2335", "2336", "2346", "2375", "2398", "2399", "2514"]
    + ["2663", "2800", "2801", "2802", "2957", "2987", "3027", "3088", "3094", "3103", "3105", "3110", "3111"]
    + ["3205", "3206"]
    + [f"{i}" for i in range(3244, 3268) if i != 3258]
    + [f"{i}" for i in range(3270, 3281)]
    + [f"{i}" for i in range(3286, 3308)]
    + ["3319", "3320", "3321", "4207", "4208", "4265", "4332", "4443", "2993", "4318", "4438"]
)


@pytest.mark.parametrize("code", REQUIRED_CODES)
def test_response_codes(code):
    assert c.RESPONSE_CODES[code]
    assert c.response_message(code) == c.RESPONSE_CODES[code]


def test_response_messages_match_sunat_catalogue():
    assert c.response_message("2800") == (
        "El dato ingresado en el tipo de documento de identidad del receptor no esta permitido."
    )
    assert c.response_message("3280") == "El importe total del comprobante no coincide con el valor calculado"
    assert c.response_message("0127") == "El ticket no existe"
    assert "9876" in c.response_message("9876")


def test_messages_are_those_of_code_errors_xml():
    text = shared_path("examples", "sunat", "CodeErrors.xml").read_text(encoding="utf-8-sig")
    published = {
        m[1]: " ".join(m[2].split()) for m in re.finditer(r'<error code="(\d+)">(.*?)</error>', text, re.S)
    }
    compared = [code for code in c.RESPONSE_CODES if code in published]
    assert len(compared) > 100
    for code in compared:
        assert c.RESPONSE_CODES[code] == published[code], code


def test_every_exception_code_of_sunats_catalogue_is_ours():
    """The codes below 2000 (exceptions: what an injected fault or exception CDR may carry) are all in the
    product's catalogue, with SUNAT's text; an unpadded code (SUNAT's ``Server.200``) reads as 0200."""
    text = shared_path("examples", "sunat", "CodeErrors.xml").read_text(encoding="utf-8-sig")
    published = {
        m[1]: " ".join(m[2].split()) for m in re.finditer(r'<error code="(\d+)">(.*?)</error>', text, re.S)
    }
    exceptions = {code: message for code, message in published.items() if int(code) < 2000}
    assert len(exceptions) > 100
    assert {code: c.RESPONSE_CODES.get(code) for code in exceptions} == exceptions
    assert c.response_message("200") == c.response_message("0200") == published["0200"]
