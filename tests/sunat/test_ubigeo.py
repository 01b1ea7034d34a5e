from sunat.ubigeo import describe_ubigeo, is_valid_ubigeo


def test_known_districts():
    assert is_valid_ubigeo("150101")
    assert describe_ubigeo("150101") == ("Lima", "Lima", "Lima")
    assert describe_ubigeo("070101") == ("Callao", "Callao", "Callao")
    assert describe_ubigeo("080101") == ("Cusco", "Cusco", "Cusco")
    assert describe_ubigeo("040101") == ("Arequipa", "Arequipa", "Arequipa")
    assert is_valid_ubigeo("250401")  # Ucayali, Purús, Purús


def test_unknown_codes():
    for code in ("999999", "150100", "000000", "2601", "15010", "1501011", "", "ABCDEF"):
        assert not is_valid_ubigeo(code), code
        assert describe_ubigeo(code) is None
    assert not is_valid_ubigeo(150101)
    assert describe_ubigeo(None) is None


def test_every_department_is_there():
    departments = {describe_ubigeo(code)[0] for code in _all_codes()}
    assert len(departments) == 25


def test_size_of_the_table():
    codes = _all_codes()
    assert 1850 <= len(codes) <= 1950
    assert all(len(code) == 6 and code.isdigit() for code in codes)
    assert all("01" <= code[:2] <= "25" for code in codes)


def _all_codes():
    from sunat import ubigeo

    return list(ubigeo._districts())
