"""Identity documents of catalog 06: RUC and DNI formats and the RUC check digit (``docs/sunat_domain.md``,
identity documents)."""

from __future__ import annotations

import re

from sunat.catalogs import IDENTITY_TYPES

__all__ = ["RUC_PREFIXES", "identity_problem", "is_valid_dni", "is_valid_ruc", "ruc_check_digit"]

#: First two digits of a RUC: 10 persons, 15/16/17 special cases, 20 companies.
RUC_PREFIXES = frozenset({"10", "15", "16", "17", "20"})

_RUC_WEIGHTS = (5, 4, 3, 2, 7, 6, 5, 4, 3, 2)
_DIGITS_11 = re.compile(r"\d{11}")
_DIGITS_10 = re.compile(r"\d{10}")
_DNI = re.compile(r"\d{8}")
_OTHER = re.compile(r"[A-Za-z0-9]{1,15}")


def ruc_check_digit(first10: str) -> int:
    """The check digit of a RUC from its first 10 digits.

    Weights 5,4,3,2,7,6,5,4,3,2; ``r = 11 - (sum mod 11)``; 10 -> 0 and 11 -> 1.
    """
    if not _DIGITS_10.fullmatch(first10):
        raise ValueError(f"a RUC starts with 10 digits: {first10!r}")
    total = sum(int(d) * w for d, w in zip(first10, _RUC_WEIGHTS, strict=True))
    return (11 - total % 11) % 10


def is_valid_ruc(number: str) -> bool:
    """11 digits, a known prefix (10, 15, 16, 17, 20) and the right check digit."""
    return (
        isinstance(number, str)
        and _DIGITS_11.fullmatch(number) is not None
        and number[:2] in RUC_PREFIXES
        and ruc_check_digit(number[:10]) == int(number[10])
    )


def is_valid_dni(number: str) -> bool:
    """A DNI is exactly 8 digits."""
    return isinstance(number, str) and _DNI.fullmatch(number) is not None


def identity_problem(identity_type: str, number: str, *, check_ruc_digit: bool = True) -> str | None:
    """Why ``number`` does not fit its identity type (a Spanish message), or ``None`` when it fits.

    RUC (6): 11 digits, prefix and check digit (SUNAT 2017/2800). DNI (1): 8 digits (2801; 4207 on
    boletas). Other types: 1 to 15 letters or digits (2802/4208). Types 0 and ``-``: anything non-blank.
    """
    if identity_type not in IDENTITY_TYPES:
        return f"El tipo de documento de identidad {identity_type!r} no existe (catálogo 06)."
    if not isinstance(number, str) or not number.strip():
        return "El número de documento de identidad es obligatorio."
    if identity_type in ("0", "-"):
        return None
    if identity_type == "6":
        if not _DIGITS_11.fullmatch(number):
            return f"El RUC {number} debe tener 11 dígitos."
        if number[:2] not in RUC_PREFIXES:
            return f"El RUC {number} debe empezar con 10, 15, 16, 17 o 20."
        if check_ruc_digit and ruc_check_digit(number[:10]) != int(number[10]):
            return f"El RUC {number} no es válido: su dígito verificador no corresponde."
        return None
    if identity_type == "1":
        return None if is_valid_dni(number) else f"El DNI {number} debe tener 8 dígitos."
    if not _OTHER.fullmatch(number):
        return (
            f"El número de documento {number} ({IDENTITY_TYPES[identity_type]}) debe tener de 1 a 15 "
            "letras o dígitos."
        )
    return None
