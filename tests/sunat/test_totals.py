from dataclasses import replace
from decimal import Decimal as D

import pytest

from sunat.totals import (
    Discrepancy,
    DocumentTotals,
    LineAmounts,
    check_line,
    check_totals,
    compute_line,
    compute_totals,
)

ALL_PERCENTS_2026 = frozenset({D("18"), D("10.5")})


def codes(found):
    return [d.code for d in found]


# --- compute_line ---------------------------------------------------------------------------------------


def test_taxed_line_from_unit_value():
    line = compute_line(2, "10", unit_value=50)
    assert line == LineAmounts(
        quantity=D("2"),
        unit_value=D("50.00"),
        unit_price=D("59.00"),
        price_type="01",
        affectation="10",
        igv_base=D("100.00"),
        igv_percent=D("18"),
        igv=D("18.00"),
        icbper=D("0.00"),
        taxes=D("18.00"),
        value=D("100.00"),
        total=D("118.00"),
    )


def test_taxed_line_from_price_with_igv():
    line = compute_line(2, "10", unit_price=59)
    assert (line.unit_value, line.value, line.igv, line.total) == (
        D("50.00"),
        D("100.00"),
        D("18.00"),
        D("118.00"),
    )


def test_price_with_igv_keeps_the_total():
    line = compute_line(1, "10", unit_price=10)
    assert line.unit_value == D("8.4745762712")  # kept at 10 decimals
    assert (line.value, line.igv, line.total) == (D("8.47"), D("1.53"), D("10.00"))
    assert line.value + line.taxes == line.total
    assert check_line(line, 0) == []


def test_real_factura_lines_from_price():
    # 20505310072-01-F001-00019772.xml: 3 x 5.00 and 2 x 6.00 with IGV
    first, second = compute_line(3, "10", unit_price="5.00"), compute_line(2, "10", unit_price="6.00")
    assert (first.value, first.igv, first.total) == (D("12.71"), D("2.29"), D("15.00"))
    assert (second.value, second.igv, second.total) == (D("10.17"), D("1.83"), D("12.00"))
    totals = compute_totals([first, second])
    assert (totals.taxed, totals.igv, totals.total) == (D("22.88"), D("4.12"), D("27.00"))


def test_unit_values_keep_up_to_ten_decimals():
    assert compute_line(3, "40", unit_value="33.333").unit_value == D("33.333")
    assert compute_line(1, "20", unit_value="1.123456789012").unit_value == D("1.123456789")
    assert str(compute_line(1, "10", unit_value="1").unit_price) == "1.18"


def test_other_igv_percent():
    line = compute_line(1, "10", unit_value=100, igv_percent=D("10.5"))
    assert (line.igv_percent, line.igv, line.unit_price, line.total) == (
        D("10.5"),
        D("10.50"),
        D("110.50"),
        D("110.50"),
    )
    assert check_line(line, 0, allowed_percents=ALL_PERCENTS_2026) == []


@pytest.mark.parametrize("affectation", ["20", "30", "40"])
def test_exempt_unaffected_export_lines(affectation):
    line = compute_line(4, affectation, unit_value="25")
    assert (line.igv, line.taxes, line.value, line.total, line.igv_base) == (
        D("0.00"),
        D("0.00"),
        D("100.00"),
        D("100.00"),
        D("100.00"),
    )
    assert line.unit_price == line.unit_value == D("25.00")
    assert line.price_type == "01"
    same = compute_line(4, affectation, unit_price="25")
    assert same == line


@pytest.mark.parametrize("affectation", ["11", "12", "13", "14", "15", "16"])
def test_free_taxed_lines_carry_informative_igv(affectation):
    line = compute_line(2, affectation, unit_value=50)
    assert line.price_type == "02"
    assert (line.unit_value, line.unit_price) == (
        D("0.00"),
        D("50.00"),
    )  # Facturador PRO: valor 0, precio = ref.
    assert (line.value, line.igv_base, line.igv) == (D("100.00"), D("100.00"), D("18.00"))
    assert (line.taxes, line.total) == (D("0.00"), D("0.00"))
    assert compute_line(2, affectation, unit_price=50) == line


@pytest.mark.parametrize("affectation", ["21", "31", "32", "33", "34", "35", "36", "37"])
def test_free_untaxed_lines(affectation):
    line = compute_line(2, affectation, unit_price=50)
    assert (line.price_type, line.value, line.igv, line.taxes, line.total) == (
        "02",
        D("100.00"),
        D("0.00"),
        D("0.00"),
        D("0.00"),
    )


def test_bag_line_with_icbper():
    line = compute_line(2, "10", unit_price="0.10", icbper_rate="0.50")
    assert line.icbper == D("1.00")
    assert (line.value, line.igv) == (D("0.17"), D("0.03"))
    assert line.taxes == D("1.03")
    assert line.total == D("1.20")
    assert check_line(line, 0, icbper_rate=D("0.50")) == []


def test_icbper_on_exempt_and_free_lines():
    exempt = compute_line(3, "20", unit_value="0.10", icbper_rate="0.50")
    assert (exempt.icbper, exempt.taxes, exempt.total) == (D("1.50"), D("1.50"), D("1.80"))
    free = compute_line(1, "15", unit_value="0.10", icbper_rate="0.50")
    assert (free.icbper, free.taxes, free.total) == (D("0.50"), D("0.50"), D("0.50"))


def test_ivap_line_always_uses_ivap_rate():
    line = compute_line(1, "17", unit_value=100)
    assert (line.igv_percent, line.igv, line.total) == (D("4"), D("4.00"), D("104.00"))
    assert check_line(line, 0) == []


def test_half_up_rounding_of_amounts():
    line = compute_line(1, "10", unit_value="0.125")  # value 0.125 -> 0.13
    assert line.value == D("0.13")
    assert line.igv == D("0.02")  # 0.0234


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        ((0, "10"), {"unit_value": 1}),
        ((-1, "10"), {"unit_value": 1}),
        ((1, "99"), {"unit_value": 1}),
        ((1, "10"), {}),
        ((1, "10"), {"unit_value": 1, "unit_price": 1}),
        ((1, "10"), {"unit_value": -1}),
        ((1, "10"), {"unit_value": "abc"}),
        ((1, "10"), {"unit_value": 1, "icbper_rate": -1}),
    ],
)
def test_compute_line_rejects(args, kwargs):
    with pytest.raises(ValueError):
        compute_line(*args, **kwargs)


# --- compute_totals -------------------------------------------------------------------------------------


def mixed_lines():
    return [
        compute_line(2, "10", unit_value=50),  # 100 + 18
        compute_line(1, "16", unit_value=30),  # free: 30, informative igv 5.40
        compute_line(1, "21", unit_value=20),  # free untaxed: 20
        compute_line(3, "20", unit_value=10),  # exonerated 30
        compute_line(1, "30", unit_value=15),  # unaffected 15
        compute_line(4, "10", unit_price="0.10", icbper_rate="0.50"),  # bags: value 0.34, igv 0.06, icbper 2
    ]


def test_mixed_document_totals():
    totals = compute_totals(mixed_lines())
    assert totals == DocumentTotals(
        export=D("0.00"),
        taxed=D("100.34"),
        unaffected=D("15.00"),
        exonerated=D("30.00"),
        free=D("50.00"),
        igv=D("18.06"),
        igv_free=D("5.40"),
        icbper=D("2.00"),
        taxes=D("20.06"),
        value=D("145.34"),
        subtotal=D("165.40"),
        total=D("165.40"),
    )
    assert check_totals(mixed_lines(), totals) == []
    for index, line in enumerate(mixed_lines()):
        assert check_line(line, index, icbper_rate=D("0.50")) == []


def test_export_and_ivap_buckets():
    lines = [compute_line(2, "40", unit_value=100), compute_line(1, "17", unit_value=50)]
    totals = compute_totals(lines)
    assert (totals.export, totals.ivap_base, totals.ivap, totals.igv) == (
        D("200.00"),
        D("50.00"),
        D("2.00"),
        D("2.00"),
    )
    assert (totals.value, totals.total) == (D("250.00"), D("252.00"))
    assert check_totals(lines, totals) == []
    assert codes(check_totals(lines, replace(totals, ivap=D("5.00"), igv=D("5.00")))) == ["3291", "3295"]
    assert codes(check_totals(lines, replace(totals, ivap_base=D("60.00")))) == ["3293"]


def test_empty_document():
    assert compute_totals([]) == DocumentTotals()
    assert compute_totals([]).total == D("0")


def test_compute_totals_rejects_unknown_affectation():
    with pytest.raises(ValueError):
        compute_totals([replace(compute_line(1, "10", unit_value=1), affectation="99")])


def test_compute_totals_sums_what_lines_say():
    line = replace(compute_line(1, "10", unit_value=100), igv=D("18.40"), taxes=D("18.40"), total=D("118.40"))
    assert compute_totals([line]).igv == D("18.40")


# --- check_line -----------------------------------------------------------------------------------------

TAXED = compute_line(2, "10", unit_value=50)


def test_correct_line_has_no_discrepancy():
    assert check_line(TAXED, 0) == []


def test_wrong_line_igv():
    # a client that computed everything from a wrong IGV: only the IGV is reported
    wrong = replace(TAXED, igv=D("25.00"), taxes=D("25.00"), total=D("125.00"), unit_price=D("62.50"))
    assert check_line(wrong, 0) == [
        Discrepancy(
            "items.0.total_igv",
            "3103",
            D("18.00"),
            D("25.00"),
            "El total de IGV del ítem 1 debe ser 18.00 (se recibió 25.00)",
        )
    ]
    # with the unit price left at 59, SUNAT's price rule (3270) fails too, after the root cause
    assert codes(check_line(replace(wrong, unit_price=D("59")), 0)) == ["3103", "3270"]


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        (
            {
                "value": D("110.00"),
                "igv_base": D("110.00"),
                "igv": D("19.80"),
                "taxes": D("19.80"),
                "total": D("129.80"),
                "unit_price": D("64.90"),
            },
            [("items.1.total_valor_item", "3271")],
        ),
        ({"igv_base": D("101.50")}, [("items.1.total_base_igv", "3272")]),
        (
            {"taxes": D("25.00"), "total": D("125.00"), "unit_price": D("62.50")},
            [("items.1.total_impuestos", "3292")],
        ),
        ({"total": D("130.00")}, [("items.1.total_item", "3270")]),
        ({"unit_price": D("70")}, [("items.1.precio_unitario", "3270")]),
        (
            {"taxes": D("25.00")},
            [
                ("items.1.total_impuestos", "3292"),
                ("items.1.total_item", "3270"),
                ("items.1.precio_unitario", "3270"),
            ],
        ),
    ],
)
def test_each_wrong_line_amount(changes, expected):
    found = check_line(replace(TAXED, **changes), 1)
    assert [(d.field, d.code) for d in found] == expected
    assert all("ítem 2" in d.message for d in found)


def test_zero_igv_on_taxed_line_is_3111():
    line = replace(TAXED, igv=D("0.00"), taxes=D("0.00"), total=D("100.00"), unit_price=D("50"))
    (found,) = check_line(line, 0)
    assert (found.field, found.code, found.expected) == ("items.0.total_igv", "3111", D("18.00"))


def test_zero_igv_allowed_on_tiny_base():
    tiny = compute_line(1, "10", unit_value="0.05")
    assert tiny.igv == D("0.01")
    assert (
        check_line(replace(tiny, igv=D("0.00"), taxes=D("0.00"), total=D("0.05"), unit_price=D("0.05")), 0)
        == []
    )


def test_igv_on_exempt_line_is_3110():
    exempt = compute_line(1, "20", unit_value=100)
    found = check_line(
        replace(exempt, igv=D("18.00"), taxes=D("18.00"), total=D("118.00"), unit_price=D("118")), 0
    )
    assert codes(found) == ["3110"]
    free = compute_line(1, "31", unit_value=100)
    assert codes(check_line(replace(free, igv=D("18.00")), 0)) == ["3110"]


def test_wrong_percent():
    line = compute_line(1, "10", unit_value=100, igv_percent=12)
    (found,) = check_line(line, 0)
    assert (found.field, found.code, found.expected, found.actual) == (
        "items.0.porcentaje_igv",
        "4438",
        D("18"),
        D("12"),
    )
    assert found.message == "El porcentaje de IGV del ítem 1 debe ser 18 (se recibió 12)"
    assert check_line(compute_line(1, "10", unit_value=100, igv_percent="10.5"), 0) != []
    assert (
        check_line(
            compute_line(1, "10", unit_value=100, igv_percent="10.5"), 0, allowed_percents=ALL_PERCENTS_2026
        )
        == []
    )


def test_zero_percent_is_2993():
    line = replace(TAXED, igv_percent=D("0"))
    assert codes(check_line(line, 0)) == ["2993", "3103"]  # with 0 % the IGV would be 0


def test_within_tolerance_rounding_differences_are_accepted():
    sloppy = replace(
        TAXED,
        value=D("100.90"),
        igv_base=D("100.90"),
        igv=D("18.99"),
        taxes=D("18.99"),
        total=D("119.50"),
        unit_price=D("59.49"),
    )
    assert check_line(sloppy, 0) == []
    # exactly 1.00 away is still accepted, 1.01 is not
    assert check_line(replace(TAXED, igv=D("19.00"), taxes=D("19.00"), total=D("119.00")), 0) == []
    assert codes(check_line(replace(TAXED, igv=D("19.01"), taxes=D("19.01"), total=D("119.01")), 0)) == [
        "3103"
    ]


def test_real_sample_unit_value_rounded_to_cents():
    # 3 x 4.24 = 12.72 against a value of 12.71 (price 5.00 with IGV)
    line = LineAmounts(
        D("3"),
        D("4.24"),
        D("5.00"),
        "01",
        "10",
        D("12.71"),
        D("18"),
        D("2.29"),
        D("0"),
        D("2.29"),
        D("12.71"),
        D("15.00"),
    )
    assert check_line(line, 0) == []


def test_free_line_checks():
    free = compute_line(2, "16", unit_value=50)
    assert check_line(free, 0) == []
    # the other convention (valor_unitario = referential, precio_unitario = 0) is accepted as well
    assert check_line(replace(free, unit_value=D("50"), unit_price=D("0")), 0) == []
    assert codes(check_line(replace(free, value=D("120.00"), igv_base=D("120.00"), igv=D("21.60")), 0)) == [
        "3271"
    ]
    assert codes(check_line(replace(free, igv=D("30.00")), 0)) == ["3103"]
    assert codes(check_line(replace(free, total=D("118.00")), 0)) == ["3270"]
    assert codes(check_line(replace(free, taxes=D("18.00")), 0)) == ["3292"]


def test_icbper_line_checks():
    bags = compute_line(4, "10", unit_price="0.10", icbper_rate="0.50")
    assert check_line(bags, 0, icbper_rate=D("0.50")) == []
    assert check_line(bags, 0) == []  # rate unknown: not checked
    found = check_line(bags, 0, icbper_rate=D("0.40"))
    assert [(d.field, d.code, d.expected) for d in found] == [
        ("items.0.total_impuestos_bolsa_plastica", "4318", D("1.60"))
    ]
    wrong = replace(bags, icbper=D("2.10"))  # exact, no tolerance
    assert codes(check_line(wrong, 0, icbper_rate=D("0.50"))) == ["4318"]


# --- check_totals ---------------------------------------------------------------------------------------


def test_correct_totals():
    lines = mixed_lines()
    assert check_totals(lines, compute_totals(lines)) == []


@pytest.mark.parametrize(
    ("name", "key", "code"),
    [
        ("export", "total_exportacion", "3273"),
        ("taxed", "total_operaciones_gravadas", "3277"),
        ("unaffected", "total_operaciones_inafectas", "3274"),
        ("exonerated", "total_operaciones_exoneradas", "3275"),
        ("free", "total_operaciones_gratuitas", "3276"),
        ("igv", "total_igv", "3291"),
        ("igv_free", "total_igv_operaciones_gratuitas", "3302"),
        ("icbper", "total_impuestos_bolsa_plastica", "3306"),
        ("taxes", "total_impuestos", "3294"),
        ("value", "total_valor", "3278"),
        ("subtotal", "subtotal_venta", "3279"),
        ("total", "total_venta", "3280"),
    ],
)
def test_each_wrong_header_amount(name, key, code):
    lines = mixed_lines()
    totals = compute_totals(lines)
    wrong = replace(totals, **{name: getattr(totals, name) + D("5")})
    (found,) = check_totals(lines, wrong)
    assert (found.field, found.code) == (f"totales.{key}", code)
    assert found.expected == getattr(totals, name)
    assert found.actual == getattr(totals, name) + D("5")
    assert "debe ser" in found.message and "se recibió" in found.message


def test_header_tolerance_and_exact_icbper():
    lines = mixed_lines()
    totals = compute_totals(lines)
    assert (
        check_totals(lines, replace(totals, igv=totals.igv + D("0.99"), total=totals.total - D("1.00"))) == []
    )
    assert codes(check_totals(lines, replace(totals, icbper=totals.icbper + D("0.01")))) == ["3306"]
    assert check_totals(lines, replace(totals, icbper=totals.icbper + D("0.004"))) == []


def test_payable_with_global_charges_and_discounts():
    lines = [compute_line(2, "10", unit_value=50)]
    totals = replace(compute_totals(lines), total=D("128.00"))
    assert codes(check_totals(lines, totals)) == ["3280"]
    assert check_totals(lines, totals, charges=D("10")) == []
    assert check_totals(lines, replace(totals, total=D("108.00")), discounts=D("10")) == []
    assert check_totals(lines, replace(totals, total=D("18.00")), prepaid=D("100")) == []


def test_as_published_the_taxes_and_the_payable_amount_follow_the_header():
    """SUNAT's stylesheets sum the header's own taxes (3294) and take its tax-inclusive amount (3280); a
    note's payable amount is its bases + taxes + charges."""
    lines = mixed_lines()
    totals = compute_totals(lines)
    up = D("5")
    moved = replace(totals, igv=totals.igv + up, taxes=totals.taxes + up, subtotal=totals.subtotal + up)
    moved = replace(moved, total=totals.total + up)
    assert codes(check_totals(lines, moved)) == ["3291", "3294", "3279", "3280"]
    assert codes(check_totals(lines, moved, as_published=True)) == ["3291", "3279"]
    assert check_totals(lines, totals, as_published=True, note=True) == []
    assert codes(
        check_totals(lines, replace(totals, total=totals.total + up), as_published=True, note=True)
    ) == ["3280"]


def test_mixed_igv_rates_in_one_document():
    lines = [compute_line(1, "10", unit_value=100), compute_line(1, "10", unit_value=100, igv_percent="10.5")]
    found = check_totals(lines, compute_totals(lines))
    assert [(d.field, d.code) for d in found] == [("items.1.porcentaje_igv", "4438")]


def test_service_like_objects_are_accepted():
    """Any object with the attribute names works (the service has its own dataclasses)."""

    class Line:
        def __init__(self, amounts):
            self.__dict__.update(vars(amounts))
            self.description = "x"

    class Totals:
        pass

    lines = [Line(line) for line in mixed_lines()]
    totals = Totals()
    totals.__dict__.update(vars(compute_totals(lines)))
    del totals.ivap_base, totals.ivap  # the service's totals carry no IVAP fields
    assert check_totals(lines, totals) == []
    assert all(check_line(line, i, icbper_rate=D("0.50")) == [] for i, line in enumerate(lines))


def test_a_line_checked_exact_is_its_own_sunat_figures():
    """check_line_exactly says "exact" only of a line sunat_figures gives back unchanged; lines computed
    by SUNAT's formulas are exact, and one cent off anywhere is not."""
    import itertools
    import random

    from sunat.totals import Allowance, apply_line_allowances, check_line_exactly, compute_line, sunat_figures

    rnd = random.Random(22)
    names = ("value", "igv_base", "igv", "taxes", "total", "unit_price", "icbper")
    seen_exact = seen_inexact = 0
    for affectation, quantity, unit, bags, note in itertools.product(
        ("10", "11", "17", "20", "21", "30", "40"),
        ("1", "3", "2.5"),
        ("10", "0.3333", "59"),
        (0, 1),
        (False, True),
    ):
        computed = compute_line(quantity, affectation, unit_value=unit, icbper_rate="0.5" if bags else "0")
        if rnd.random() < 0.3 and affectation in ("10", "20"):
            computed = apply_line_allowances(computed, [Allowance("00", D("1.00"), computed.value)])
        variants = [computed] + [
            replace(computed, **{name: getattr(computed, name) + D(step)})
            for name in names
            for step in ("0.01", "-0.01", "0.5")
        ]
        for line in variants:
            found, exact = check_line_exactly(line, 0, note=note)
            if exact:
                seen_exact += 1
                assert sunat_figures(line, note=note) is line, line
            else:
                seen_inexact += 1
    assert seen_exact > 50 and seen_inexact > 500


def test_unit_values_keep_ten_places_and_at_least_two() -> None:
    """A unit value or price (``_unit``): rounded half up to ten places, trailing zeros dropped but two
    kept; the shortcut for values already at cents gives what the ten-place rounding gives."""
    from sunat.money import quantize, round2
    from sunat.totals import _unit

    def reference(value: D) -> D:
        exact = quantize(value, 10)
        cents = round2(exact)
        return cents if cents == exact else exact.normalize()

    texts = ("59", "59.0", "59.00", "59.000000", "11.8", "0.01", "0", "100.5", "0.84745762711864")
    texts += ("1.99999999999", "2.000000000049", "2.00000000005", "123456789012.12", "0.005", "7E+2")
    for text in texts:
        value = D(text)
        assert str(_unit(value)) == str(reference(value)), text
    assert str(_unit(D("118") / D("2"))) == "59.00"
    assert str(_unit(D("100") / D("3"))) == "33.3333333333"


def test_document_totals_keep_the_order_compute_totals_passes_them_in() -> None:
    """compute_totals makes its DocumentTotals by position: a field moved or added there must move here."""
    import dataclasses

    from sunat.totals import DocumentTotals

    assert [field.name for field in dataclasses.fields(DocumentTotals)] == [
        *("export", "taxed", "unaffected", "exonerated", "free", "igv", "igv_free", "icbper", "taxes"),
        *("value", "subtotal", "total", "ivap_base", "ivap", "discounts", "charges", "prepaid"),
        *("isc_base", "isc", "other_base", "other"),
    ]
