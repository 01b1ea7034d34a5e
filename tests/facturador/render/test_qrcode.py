"""The own QR encoder (render/qrcode.py) against segno, module for module and pixel for pixel."""

from __future__ import annotations

import io
import random
import string

import pytest
import segno

from facturador.render import qrcode
from facturador.render.qr import MASK, qr_matrix, qr_png
from tests.facturador.render.png_reader import png_pixels

SUNAT_TEXT = (
    "20100066603|01|F001|123|54.00|354.00|2026-11-22|6|20601030013|Bm3Lp0Q1a9x/abcdefghijklmnop12345=|"
)
PRINTABLE = string.ascii_letters + string.digits + string.punctuation + " " + "|" * 10


def random_text(rng: random.Random, length: int, alphabet: str = PRINTABLE) -> str:
    return "".join(rng.choices(alphabet, k=length))


def segno_code(text: str, error: str, mask: int = MASK) -> segno.QRCode:
    return segno.make_qr(text, error=error, mask=mask, mode="byte", boost_error=True)


def assert_same_as_segno(text: str, error: str, mask: int = MASK) -> qrcode.QRCode:
    ours = qrcode.encode(text, error=error, mask=mask)
    theirs = segno_code(text, error, mask)
    assert (ours.version, ours.error, ours.mask) == (theirs.version, theirs.error, theirs.mask), text
    assert ours.matrix == theirs.matrix, (text, error, mask)
    return ours


# -- symbols -------------------------------------------------------------------------------------------------


def test_sunat_text_all_levels_and_masks() -> None:
    for error in qrcode.LEVELS:
        for mask in range(8):
            assert_same_as_segno(SUNAT_TEXT, error, mask)
    code = qrcode.encode(SUNAT_TEXT)
    assert (code.version, code.error, code.size) == (5, "L", 37)


@pytest.mark.parametrize("error", qrcode.LEVELS)
def test_random_printable_texts(error: str) -> None:
    rng = random.Random(f"qr-{error}")
    lengths = [*range(1, 31), *sorted(rng.sample(range(31, 601), 40))]
    for length in lengths:
        assert_same_as_segno(random_text(rng, length), error)


@pytest.mark.parametrize(
    "text",
    [
        "Señor Ñandú|Áéíóú|ü|",  # Latin-1: one byte a character
        "ñ" * 300,
        "¡Hola!|" + "á" * 50,
        "Total: 10 €|",  # not Latin-1 nor Shift_JIS: UTF-8
        "€" * 200,
        "漢字|かな|",  # Shift_JIS, as segno does in byte mode
        "漢" * 100 + "€",  # UTF-8
        "emoji 😀|",
    ],
)
def test_non_ascii_texts(text: str) -> None:
    for error in qrcode.LEVELS:
        assert_same_as_segno(text, error)


def test_latin1_is_one_byte_per_character() -> None:
    # 17 bytes fit 1-L only in ISO-8859-1 (at most 17 bytes); in UTF-8 they would need version 2.
    assert qrcode.encode("ñ" * 17).version == 1
    assert qrcode.encode("ñ" * 18).version == 2
    assert qrcode.encode("€" * 5).version == 1  # 15 bytes of UTF-8
    assert qrcode.encode("€" * 6).version == 2


def test_every_version_at_full_capacity() -> None:
    """Each version once at least (all levels for 1-10 and 40): its alignment and version information."""
    rng = random.Random("capacity")
    for version in range(1, 41):
        levels = qrcode.LEVELS if version <= 10 or version == 40 else qrcode.LEVELS[version % 4]
        for error in levels:
            capacity = qrcode._MAX_BYTES[error][version]
            text = random_text(rng, capacity)
            code = qrcode.encode(text, error=error, boost_error=False)
            assert (code.version, code.error) == (version, error)
            assert_same_as_segno(text, error)
            if version < 40:
                assert qrcode.encode(text + "x", error=error, boost_error=False).version == version + 1


SEGNO_LEVELS = {
    "L": segno.consts.ERROR_LEVEL_L,
    "M": segno.consts.ERROR_LEVEL_M,
    "Q": segno.consts.ERROR_LEVEL_Q,
    "H": segno.consts.ERROR_LEVEL_H,
}


def test_tables_match_segno() -> None:
    """Capacities, blocks, alignment patterns, format and version information of all 160 symbols."""
    consts = segno.consts
    for version in range(1, 41):
        for error, constant in SEGNO_LEVELS.items():
            assert 8 * qrcode._data_codewords(version, error) == consts.SYMBOL_CAPACITY[version][constant]
            blocks = consts.ECC[version][constant]
            assert {ec.num_total - ec.num_data for ec in blocks} == {qrcode._ECC_PER_BLOCK[error][version]}
            lengths = [ec.num_data for ec in blocks for _ in range(ec.num_blocks)]
            assert qrcode._block_lengths(version, error) == lengths
        assert qrcode._ALIGNMENT[version] == (consts.ALIGNMENT_POS[version - 2] if version > 1 else ())
        if version >= 7:
            assert qrcode._version_bits(version) == consts.VERSION_INFO[version - 7]
    for error, constant in SEGNO_LEVELS.items():
        for mask in range(8):
            assert qrcode._format_bits(error, mask) == consts.FORMAT_INFO[constant * 8 + mask]


def test_boost_error() -> None:
    # 10 bytes fit 1-Q (at most 11 bytes) but not 1-H (at most 7).
    assert qrcode.encode("0123456789").error == "Q"
    assert qrcode.encode("0123456789", boost_error=False).error == "L"
    assert qrcode.encode("0123456789", error="h").error == "H"  # case-insensitive, as segno


def test_too_long_or_bad_arguments() -> None:
    assert qrcode.encode("x" * 2953).version == 40
    with pytest.raises(ValueError, match="too long for a QR code: 2954 bytes, at most 2953 at level L"):
        qrcode.encode("x" * 2954)
    with pytest.raises(ValueError, match="at most 1273 at level H"):
        qr_png("x" * 1274, error="H")
    with pytest.raises(ValueError, match="too long"):
        qr_matrix("€" * 1000)  # 3000 bytes of UTF-8
    with pytest.raises(ValueError, match="error correction level"):
        qrcode.encode("x", error="X")
    with pytest.raises(ValueError, match="mask"):
        qrcode.encode("x", mask=8)
    with pytest.raises(ValueError, match="border"):
        qrcode.encode("x", border=-1)


def test_border_and_packed_rows() -> None:
    plain = qrcode.encode(SUNAT_TEXT)
    framed = qrcode.encode(SUNAT_TEXT, border=4)
    assert (framed.width, framed.stride) == (45, 48) and (plain.width, plain.stride) == (37, 40)
    matrix = framed.matrix
    assert len(matrix) == 45 and all(len(row) == 45 for row in matrix)
    assert all(not any(row) for row in matrix[:4] + matrix[-4:])
    assert [row[4:41] for row in matrix[4:41]] == list(plain.matrix)
    assert all(not any(row[:4]) and not any(row[41:]) for row in matrix)
    packed = framed.packed()
    assert len(packed) == 45 * 6
    for y, row in enumerate(matrix):
        bits = "".join(f"{byte:08b}" for byte in packed[y * 6 : (y + 1) * 6])
        assert bits == "".join(map(str, row)) + "000"  # padding modules are light


def test_qr_matrix_is_the_byte_mode_symbol() -> None:
    assert qr_matrix(SUNAT_TEXT, error="M") == segno_code(SUNAT_TEXT, "M").matrix


# -- PNG -----------------------------------------------------------------------------------------------------


def segno_png(text: str, error: str, scale: int, border: int) -> bytes:
    out = io.BytesIO()
    segno_code(text, error).save(out, kind="png", scale=scale, border=border)
    return out.getvalue()


@pytest.mark.parametrize(
    ("scale", "border"), [(4, 4), (8, 0), (1, 0), (1, 4), (2, 1), (3, 1), (3, 2), (5, 3), (7, 2), (10, 4)]
)
def test_png_pixels_identical_to_segno(scale: int, border: int) -> None:
    rng = random.Random(f"png-{scale}-{border}")
    texts = [SUNAT_TEXT, "a", random_text(rng, 150), random_text(rng, 400), "Ñandú|漢字|€"]
    for text in texts:
        for error in ("L", "H"):
            ours = png_pixels(qr_png(text, scale=scale, border=border, error=error))
            theirs = png_pixels(segno_png(text, error, scale, border))
            assert ours == theirs, (text, error)


def test_png_default_size() -> None:
    width, height, rows = png_pixels(qr_png(SUNAT_TEXT))
    assert width == height == (37 + 8) * 4 == 180
    assert rows[0] == b"\xff" * 22 + b"\xf0"  # quiet zone: 180 white pixels and 4 pad bits
    assert rows[16][:2] == b"\xff\xff" and rows[16][2] == 0  # 16 px of quiet zone, then the finder
