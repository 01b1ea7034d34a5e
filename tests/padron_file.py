"""Files in the exact format of SUNAT's padrón reducido, made by the tests (Latin-1, ``|``-separated,
SUNAT's header line first, a trailing ``|`` on every line), plain or zipped as SUNAT publishes it."""

from __future__ import annotations

import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from facturador.domain.padron import HEADER
from sunat.identity import ruc_check_digit

STATES = ("ACTIVO", "ACTIVO", "ACTIVO", "BAJA DE OFICIO", "BAJA DEFINITIVA", "SUSPENSION TEMPORAL")
CONDITIONS = ("HABIDO", "HABIDO", "HABIDO", "NO HABIDO", "NO HALLADO", "PENDIENTE")


def ruc(first10: str) -> str:
    """A valid RUC from its first 10 digits."""
    return first10 + str(ruc_check_digit(first10))


def line(
    number: str,
    name: str,
    state: str = "ACTIVO",
    condition: str = "HABIDO",
    ubigeo: str = "150101",
    via: tuple[str, ...] = ("AV.", "LOS INCAS", "URB.", "SANTA ROSA", "123", "-", "-", "-", "-", "-"),
) -> str:
    """One line of the register (without its line end)."""
    return "|".join((number, name, state, condition, ubigeo, *via)) + "|"


def generated_lines(count: int, start: int = 0, variant: int = 0) -> Iterator[str]:
    """``count`` taxpayers' lines (RUCs 20 + an 8-digit counter from ``start``); ``variant`` changes the
    name of every 1,000th line, as a day's update would."""
    for index in range(start, start + count):
        number = ruc("20" + str(index).zfill(8))
        changed = " (ACTUALIZADO)" if variant and index % 1000 == 0 else ""
        yield line(
            number,
            f"EMPRESA NÚMERO {index} S.A.C.{changed}",
            STATES[index % len(STATES)],
            CONDITIONS[index % len(CONDITIONS)],
            "150131",
            ("JR.", f"CALLE {index % 997}", "-", "-", str(index % 400), "-", "-", "-", "-", "-"),
        )


def write_padron(path: Path, lines: Iterable[str], *, zipped: bool = False) -> Path:
    """Write ``lines`` under SUNAT's header, in Latin-1 with ``\\n`` line ends; zipped as
    ``padron_reducido_ruc.txt`` inside ``path`` when ``zipped``."""
    text_path = path if not zipped else path.with_suffix(".txt")
    with text_path.open("w", encoding="latin-1", newline="\n") as out:
        out.write(HEADER + "\n")
        for text in lines:
            out.write(text + "\n")
    if zipped:
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.write(text_path, "padron_reducido_ruc.txt")
        text_path.unlink()
    return path
