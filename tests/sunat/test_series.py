import pytest

from sunat.series import (
    SERIES_PATTERNS,
    document_group,
    is_contingency_series,
    is_valid_number,
    is_valid_series,
    note_group,
)


@pytest.mark.parametrize(
    ("doc_type", "series"),
    [
        ("01", "F001"),
        ("01", "FA12"),
        ("01", "FZZZ"),
        ("01", "0001"),
        ("03", "B001"),
        ("03", "BZ99"),
        ("03", "0004"),
        ("07", "FC01"),
        ("07", "BC01"),
        ("07", "S001"),
        ("07", "0001"),
        ("08", "FD01"),
        ("08", "BD01"),
        ("08", "0002"),
        ("09", "T001"),
        ("31", "V001"),
        ("20", "R001"),
        ("40", "P001"),
    ],
)
def test_valid_series(doc_type, series):
    assert is_valid_series(doc_type, series)


@pytest.mark.parametrize(
    ("doc_type", "series"),
    [
        ("01", "B001"),
        ("01", "F01"),
        ("01", "F0001"),
        ("01", "f001"),
        ("01", "001"),
        ("01", "00001"),
        ("01", "F00-"),
        ("01", ""),
        ("01", "E001"),
        ("03", "F001"),
        ("03", "T001"),
        ("07", "T001"),
        ("08", "R001"),
        ("09", "F001"),
        ("31", "T001"),
        ("20", "P001"),
        ("40", "R001"),
        ("99", "F001"),
        ("01", None),
    ],
)
def test_invalid_series(doc_type, series):
    assert not is_valid_series(doc_type, series)


def test_patterns_cover_the_document_types():
    assert set(SERIES_PATTERNS) == {"01", "03", "07", "08", "09", "20", "31", "40"}


def test_contingency_series():
    assert is_contingency_series("0001")
    assert is_contingency_series("9999")
    assert not is_contingency_series("F001")
    assert not is_contingency_series("001")
    assert not is_contingency_series("00001")
    assert not is_contingency_series(None)


def test_note_group():
    assert note_group("FC01", "01") == "01"
    assert note_group("BC01", "03") == "02"
    assert note_group("FC01", None) == "01"
    assert note_group("BC01", None) == "02"
    assert note_group("0001", "03") == "02"
    assert note_group("0001", "01") == "01"
    assert note_group("0001", None) == "01"


def test_document_group():
    assert document_group("01", "F001") == "01"
    assert document_group("01", "0001") == "01"
    assert document_group("03", "B001") == "02"
    assert document_group("07", "FC01") == "01"
    assert document_group("07", "BC01") == "02"
    assert document_group("08", "0001", "03") == "02"
    with pytest.raises(ValueError):
        document_group("09", "T001")


def test_numbers():
    assert is_valid_number(1)
    assert is_valid_number(99_999_999)
    assert not is_valid_number(0)
    assert not is_valid_number(-1)
    assert not is_valid_number(100_000_000)
    assert not is_valid_number(True)
    assert not is_valid_number("1")
