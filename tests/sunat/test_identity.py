import pytest

from sunat.identity import identity_problem, is_valid_dni, is_valid_ruc, ruc_check_digit

# Real RUCs (SUNAT's own, public companies, and the test set of python-stdnum).
REAL_RUCS = [
    "20131312955",  # SUNAT
    "20100066603",
    "20601030013",
    "20512333797",
    "10054148289",
    "10000655959",
    "15484032987",
    "15501941597",
    "17155542071",
    "17322796196",
    "20100255325",
    "20552756453",
    "20505310072",  # issuer of SUNAT's real signed factura (tests/reference.py)
]
# sum mod 11 == 0 -> r = 11 -> check digit 1
MOD_0 = ["10053358671", "10103206851", "10166518861", "10266906451"]
# sum mod 11 == 1 -> r = 10 -> check digit 0
MOD_1 = ["10167323290", "10266040640", "10427556960", "10433604640"]


@pytest.mark.parametrize("ruc", REAL_RUCS + MOD_0 + MOD_1)
def test_real_rucs_are_valid(ruc):
    assert is_valid_ruc(ruc)
    assert ruc_check_digit(ruc[:10]) == int(ruc[10])
    assert identity_problem("6", ruc) is None


@pytest.mark.parametrize("ruc", MOD_0)
def test_check_digit_when_sum_mod_11_is_0(ruc):
    assert ruc_check_digit(ruc[:10]) == 1


@pytest.mark.parametrize("ruc", MOD_1)
def test_check_digit_when_sum_mod_11_is_1(ruc):
    assert ruc_check_digit(ruc[:10]) == 0


def test_check_digit_examples():
    assert ruc_check_digit("2010006660") == 3
    assert ruc_check_digit("2013131295") == 5
    with pytest.raises(ValueError):
        ruc_check_digit("201")
    with pytest.raises(ValueError):
        ruc_check_digit("20A0006660")


@pytest.mark.parametrize(
    "ruc",
    [
        "20100066604",  # wrong check digit
        "20131312950",
        "2010006660",  # 10 digits
        "201000666033",  # 12 digits
        "30100066603",  # bad prefix
        "99512333792",
        "11100066603",
        "2010006660A",
        " 20100066603",
        "",
        None,
        20100066603,
    ],
)
def test_invalid_rucs(ruc):
    assert not is_valid_ruc(ruc)


def test_dni():
    assert is_valid_dni("41471122")
    assert is_valid_dni("00000001")
    assert not is_valid_dni("4147112")
    assert not is_valid_dni("414711225")
    assert not is_valid_dni("4147112A")
    assert not is_valid_dni(41471122)


def test_identity_problem_ruc():
    assert "11 dígitos" in identity_problem("6", "2010006660")
    assert "10, 15, 16, 17 o 20" in identity_problem("6", "30100066603")
    assert "dígito verificador" in identity_problem("6", "20100066604")
    assert identity_problem("6", "20100066604", check_ruc_digit=False) is None


def test_identity_problem_dni():
    assert identity_problem("1", "41471122") is None
    assert "8 dígitos" in identity_problem("1", "10414711225")


@pytest.mark.parametrize("identity_type", ["4", "7", "A", "B", "C", "D", "E", "F", "G"])
def test_identity_problem_other_types(identity_type):
    assert identity_problem(identity_type, "X1234567") is None
    assert identity_problem(identity_type, "A" * 15) is None
    assert identity_problem(identity_type, "A" * 16) is not None
    assert identity_problem(identity_type, "AB 123") is not None
    assert identity_problem(identity_type, "AB-123") is not None


def test_identity_problem_anything_goes_for_0_and_dash():
    assert identity_problem("0", "whatever 123-x") is None
    assert identity_problem("-", "-") is None
    assert identity_problem("-", "") is not None


def test_identity_problem_empty_and_unknown_type():
    assert "obligatorio" in identity_problem("1", "")
    assert "obligatorio" in identity_problem("6", "   ")
    assert "catálogo 06" in identity_problem("9", "123")
