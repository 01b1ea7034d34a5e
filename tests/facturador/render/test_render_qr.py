"""The QR text (sunat.md §7) and its PNG (facturador-api.md §6.4)."""

from __future__ import annotations

import base64
import io
import shutil
import subprocess
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import pytest
import segno

from facturador.issued import Party, SalesDocument
from facturador.render.qr import MASK, qr_matrix, qr_png, qr_png_base64, qr_text
from tests.facturador.render.pdf_probes import DIGEST
from tests.facturador.render.png_reader import png_pixels


def png_bits(png: bytes) -> tuple[int, int, list[list[int]]]:
    """Width, height and rows of 0 (black) / 1 (white) of a 1-bit greyscale PNG."""
    width, height, rows = png_pixels(png)
    bits = ("".join(f"{byte:08b}" for byte in row)[:width] for row in rows)
    return width, height, [[int(bit) for bit in row] for row in bits]


# -- text ----------------------------------------------------------------------------------------------------


def test_qr_text_factura(factura: SalesDocument) -> None:
    assert qr_text(factura, DIGEST) == (
        "20100066603|01|F001|123|18.00|118.00|2024-05-14|6|20601030013|5zVcyL443M1vVGhdFNi+H9jcslo=|"
    )


def test_qr_text_boleta(boleta: SalesDocument) -> None:
    assert qr_text(boleta, DIGEST) == (
        "20100066603|03|B001|45|18.00|118.00|2024-05-14|1|45678912|5zVcyL443M1vVGhdFNi+H9jcslo=|"
    )


def test_qr_text_full_factura_amounts(factura_full: SalesDocument) -> None:
    fields = qr_text(factura_full, DIGEST).split("|")
    assert fields[4:6] == ["18.02", "118.62"]  # IGV and total include the bag, not the free line


def test_qr_text_formats_amounts_and_number(factura: SalesDocument) -> None:
    totals = replace(factura.totals, igv=Decimal("18"), total=Decimal("1180.005"))
    doc = replace(factura, number=7, totals=totals)
    fields = qr_text(doc, "abc=").split("|")
    assert fields[3] == "7"  # not padded
    assert fields[4:6] == ["18.00", "1180.01"]  # two decimals, half up
    assert len(fields) == 11 and fields[-1] == ""  # ten fields and the trailing pipe


def test_qr_text_unidentified_buyer(boleta: SalesDocument) -> None:
    doc = replace(boleta, customer=Party(identity_type="-", number="", name="CLIENTES VARIOS"))
    assert qr_text(doc, DIGEST).endswith("|2024-05-14|-||5zVcyL443M1vVGhdFNi+H9jcslo=|")


# -- PNG -----------------------------------------------------------------------------------------------------


def test_qr_png_is_a_sensible_png(factura: SalesDocument) -> None:
    png = qr_png(qr_text(factura, DIGEST))
    width, height, rows = png_bits(png)
    modules = len(qr_matrix(qr_text(factura, DIGEST)))
    assert modules == 37  # version 5 at level L
    assert width == height == (modules + 8) * 4 == 180
    assert 300 < len(png) < 2000
    assert all(pixel == 1 for pixel in rows[0]) and all(row[0] == 1 for row in rows)  # quiet zone


def test_qr_png_pixels_match_the_symbol(factura: SalesDocument) -> None:
    text = qr_text(factura, DIGEST)
    matrix = qr_matrix(text)
    _, _, rows = png_bits(qr_png(text, scale=3, border=2))
    for y, row in enumerate(matrix):
        for x, module in enumerate(row):
            for dy in range(3):
                for dx in range(3):
                    assert rows[(y + 2) * 3 + dy][(x + 2) * 3 + dx] == (0 if module else 1)


@pytest.mark.parametrize(("scale", "border"), [(1, 0), (4, 4), (3, 1), (7, 2)])
def test_qr_png_matches_segnos_writer(scale: int, border: int) -> None:
    pil = pytest.importorskip("PIL.Image")  # fpdf2 depends on Pillow
    text = "20100066603|01|F001|123|18.00|118.00|2024-05-14|6|20601030013|" + DIGEST + "|"
    ours = pil.open(io.BytesIO(qr_png(text, scale=scale, border=border))).convert("L")
    out = io.BytesIO()
    segno.make_qr(text, error="L", mask=MASK).save(out, kind="png", scale=scale, border=border)
    theirs = pil.open(io.BytesIO(out.getvalue())).convert("L")
    assert ours.size == theirs.size
    assert ours.tobytes() == theirs.tobytes()


def test_qr_png_error_level_and_bad_arguments() -> None:
    text = "20100066603|01|F001|123|18.00|118.00|2024-05-14|6|20601030013|" + DIGEST + "|"
    assert len(qr_matrix(text, error="Q")) > len(qr_matrix(text))
    with pytest.raises(ValueError):
        qr_png(text, scale=0)
    with pytest.raises(ValueError):
        qr_png(text, border=-1)


def test_qr_png_base64(factura: SalesDocument) -> None:
    text = qr_text(factura, DIGEST)
    encoded = qr_png_base64(text)
    assert not encoded.startswith("data:")
    assert base64.b64decode(encoded, validate=True) == qr_png(text)


@pytest.mark.skipif(shutil.which("zbarimg") is None, reason="zbarimg (zbar-tools) not installed")
def test_qr_png_scans(factura_full: SalesDocument, tmp_path: Path) -> None:
    text = qr_text(factura_full, DIGEST)
    path = tmp_path / "qr.png"
    path.write_bytes(qr_png(text))
    result = subprocess.run(["zbarimg", "--raw", "-q", str(path)], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == text
