"""A small, fast QR Code encoder (ISO/IEC 18004), byte mode only, for the QR of every issued document.

Scope: versions 1-40, error-correction levels L/M/Q/H, a single byte-mode segment without ECI, a mask
chosen by the caller (no penalty evaluation: every mask gives a valid symbol, see
:mod:`facturador.render.qr`). The output is module-for-module the one of
``segno.make_qr(text, error=..., mask=..., mode="byte", boost_error=True)``:

* text is encoded as ISO-8859-1 when possible, else Shift_JIS, else UTF-8 (segno's byte-mode order);
* the smallest version that fits the requested level is used, then the level is raised while the data
  still fits that version ("boost error");
* after the terminator comes one 0x00 codeword before the 0xEC/0x11 pad codewords (a segno quirk, see
  :data:`_PAD`).

Speed comes from doing per symbol only what depends on the data. Everything else is computed once per
(version, level, mask, border) and cached in a :class:`_Layout`:

* the data codewords (mode + count + bytes + terminator + pad) are built as one Python ``int``;
* Reed-Solomon uses, per error-correction length, a table of the 256 multiples of the generator
  polynomial packed as ``int`` s, so each data codeword costs one shift, one mask and two XORs;
* the data and ECC codewords (block after block, not interleaved) are written as one string of
  '0'/'1' bits, XORed beforehand with the mask pattern mapped back to those bit positions;
* a single precomputed permutation (:func:`operator.itemgetter`) then yields the whole symbol,
  row-major: it takes care of block interleaving, the zig-zag placement, the remainder bits, the
  function patterns (finders, separators, timing, alignment, format and version information), the
  quiet zone and the padding of rows to whole bytes, the last three pointing to two constant trailing
  characters '0' and '1'.

For the typical SUNAT text (≈ 100 bytes, version 5-L) :func:`encode` takes some 50 µs.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, lru_cache
from operator import itemgetter

__all__ = ["LEVELS", "QRCode", "encode"]

#: Error-correction levels, from the lowest to the highest.
LEVELS = ("L", "M", "Q", "H")

# -- tables from ISO/IEC 18004 (index 0 unused) ---------------------------------------------------------

# Table 9: error-correction codewords per block, by level and version.
_ECC_PER_BLOCK = {
    "L": (0, 7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28,
          28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30),
    "M": (0, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26,
          26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28),
    "Q": (0, 13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30,
          28, 30, 30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30),
    "H": (0, 17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28,
          30, 24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30),
}  # fmt: skip

# Table 9: number of error-correction blocks, by level and version.
_BLOCKS = {
    "L": (0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8,
          8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25),
    "M": (0, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16,
          17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49),
    "Q": (0, 1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20,
          23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68),
    "H": (0, 1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25,
          25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81),
}  # fmt: skip

# Annex E, Table E.1: row/column coordinates of the alignment pattern centres.
_ALIGNMENT = (
    (), (), (6, 18), (6, 22), (6, 26), (6, 30), (6, 34),
    (6, 22, 38), (6, 24, 42), (6, 26, 46), (6, 28, 50), (6, 30, 54), (6, 32, 58), (6, 34, 62),
    (6, 26, 46, 66), (6, 26, 48, 70), (6, 26, 50, 74), (6, 30, 54, 78), (6, 30, 56, 82), (6, 30, 58, 86),
    (6, 34, 62, 90),
    (6, 28, 50, 72, 94), (6, 26, 50, 74, 98), (6, 30, 54, 78, 102), (6, 28, 54, 80, 106),
    (6, 32, 58, 84, 110), (6, 30, 58, 86, 114), (6, 34, 62, 90, 118),
    (6, 26, 50, 74, 98, 122), (6, 30, 54, 78, 102, 126), (6, 26, 52, 78, 104, 130),
    (6, 30, 56, 82, 108, 134), (6, 34, 60, 86, 112, 138), (6, 30, 58, 86, 114, 142),
    (6, 34, 62, 90, 118, 146),
    (6, 30, 54, 78, 102, 126, 150), (6, 24, 50, 76, 102, 128, 154), (6, 28, 54, 80, 106, 132, 158),
    (6, 32, 58, 84, 110, 136, 162), (6, 26, 54, 82, 110, 138, 166), (6, 30, 58, 86, 114, 142, 170),
)  # fmt: skip

# 7.9.1: the two error-correction level bits of the format information.
_LEVEL_BITS = {"L": 0b01, "M": 0b00, "Q": 0b11, "H": 0b10}

# 7.8.2, Table 10: data mask conditions (i = row, j = column); the module is inverted when true.
_MASKS: tuple[Callable[[int, int], bool], ...] = (
    lambda i, j: (i + j) % 2 == 0,
    lambda i, j: i % 2 == 0,
    lambda i, j: j % 3 == 0,
    lambda i, j: (i + j) % 3 == 0,
    lambda i, j: (i // 2 + j // 3) % 2 == 0,
    lambda i, j: (i * j) % 2 + (i * j) % 3 == 0,
    lambda i, j: ((i * j) % 2 + (i * j) % 3) % 2 == 0,
    lambda i, j: ((i + j) % 2 + (i * j) % 3) % 2 == 0,
)

# What follows the terminator up to the data capacity. 7.4.10 asks for the pad codewords 11101100 and
# 00010001 alternately; segno (whose output we reproduce) first writes 8 "padding bits" where none are
# needed (the stream is byte-aligned after the terminator in byte mode), i.e. one extra 0x00 codeword.
# Decoders stop at the terminator, so it makes no difference to them.
_PAD = b"\x00" + b"\xec\x11" * 1500  # more than the 2956 data codewords of 40-L

# -- GF(256) with the prime polynomial x^8 + x^4 + x^3 + x^2 + 1 (7.5.2) -----------------------------------

_EXP = [0] * 512
_LOG = [0] * 256
_x = 1
for _i in range(255):
    _EXP[_i] = _x
    _LOG[_x] = _i
    _x <<= 1
    if _x & 0x100:
        _x ^= 0x11D
for _i in range(255, 512):
    _EXP[_i] = _EXP[_i - 255]
del _x, _i


def _gf_mul(a: int, b: int) -> int:
    return 0 if a == 0 or b == 0 else _EXP[_LOG[a] + _LOG[b]]


@cache
def _rs_table(ecc: int) -> tuple[int, ...]:
    """For each byte ``f``, ``f`` times the generator polynomial of degree ``ecc`` without its leading 1.

    The coefficients are packed big-endian in an ``int`` of ``ecc`` bytes, the layout of the remainder
    register in :func:`encode`.
    """
    gen = [1]  # coefficients, highest degree first: prod (x - a^i), i = 0..ecc-1
    for i in range(ecc):
        nxt = [*gen, 0]
        for k, coef in enumerate(gen):
            nxt[k + 1] ^= _gf_mul(coef, _EXP[i])
        gen = nxt
    tail = gen[1:]
    return tuple(int.from_bytes(bytes(_gf_mul(c, f) for c in tail), "big") for f in range(256))


# -- capacities ----------------------------------------------------------------------------------------------


def _count_bits(version: int) -> int:
    """Length of the byte-mode character count indicator (Table 3)."""
    return 8 if version < 10 else 16


def _data_modules(version: int) -> int:
    """Modules left for codewords and remainder bits once the function patterns are in place (Table 1)."""
    size = 17 + 4 * version
    n = size * size - 3 * 64 - 2 * (size - 16) - 31  # finders + separators + format, timing, dark module
    k = len(_ALIGNMENT[version])
    if k:
        n -= 25 * (k * k - 3) - 10 * (k - 2)  # alignment patterns, less their overlap with the timing
    if version >= 7:
        n -= 36  # two version information blocks
    return n


def _data_codewords(version: int, level: str) -> int:
    return _data_modules(version) // 8 - _ECC_PER_BLOCK[level][version] * _BLOCKS[level][version]


def _block_lengths(version: int, level: str) -> list[int]:
    """Data codewords of each error-correction block (7.5.2, Table 9): the codewords are shared as evenly
    as possible, the shorter blocks first."""
    nblocks = _BLOCKS[level][version]
    ndata = _data_codewords(version, level)
    nlong = ndata % nblocks
    return [ndata // nblocks + (b >= nblocks - nlong) for b in range(nblocks)]


# Maximum number of bytes per (level, version): 4 bits of mode, the count, 8 bits per byte.
_MAX_BYTES = {
    level: tuple((8 * _data_codewords(v, level) - 4 - _count_bits(v)) // 8 if v else 0 for v in range(41))
    for level in LEVELS
}

# -- per (version, level, mask, border) layout ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Layout:
    size: int
    data_codewords: int
    blocks: tuple[tuple[int, int], ...]  # (start, end) of each block's data codewords
    ecc: int  # error-correction codewords per block
    rs: tuple[int, ...]  # :func:`_rs_table` of ``ecc``
    nbits: int  # data + ECC codeword bits (remainder bits excluded)
    bits_format: str  # format spec writing ``nbits`` bits with leading zeros
    mask: int  # mask pattern in bit-stream order, XORed into the codeword bits
    width: int  # size + 2 × border
    stride: int  # width rounded up to a multiple of 8
    place: Callable[[str], tuple[str, ...]]  # bit stream + "01" -> the symbol's rows in QRCode.modules
    quiet: str  # the rows of the quiet zone above (and below) the symbol


def _format_bits(level: str, mask: int) -> int:
    """15 bits of format information (7.9): level and mask, BCH(15,5) code, XOR 101010000010010."""
    data = _LEVEL_BITS[level] << 3 | mask
    rem = data
    for _ in range(10):
        rem = (rem << 1) ^ ((rem >> 9) * 0x537)
    return (data << 10 | rem) ^ 0x5412


def _version_bits(version: int) -> int:
    """18 bits of version information (7.10): the version and its BCH(18,6) code."""
    rem = version
    for _ in range(12):
        rem = (rem << 1) ^ ((rem >> 11) * 0x1F25)
    return version << 12 | rem


@lru_cache(maxsize=32)
def _layout(version: int, level: str, mask: int, border: int) -> _Layout:
    size = 17 + 4 * version
    function = bytearray(size * size)  # 1 where a function pattern (or reserved area) lies
    dark = bytearray(size * size)  # colour of the function modules

    def put(row: int, col: int, is_dark: bool | int) -> None:
        function[row * size + col] = 1
        dark[row * size + col] = 1 if is_dark else 0

    # Finder patterns with their separators (6.3.3).
    for top, left in ((0, 0), (0, size - 7), (size - 7, 0)):
        for dr in range(-1, 8):
            for dc in range(-1, 8):
                r, c = top + dr, left + dc
                if 0 <= r < size and 0 <= c < size:
                    ring = max(abs(dr - 3), abs(dc - 3))
                    put(r, c, ring != 2 and ring != 4)
    # Timing patterns (6.3.5).
    for i in range(8, size - 8):
        put(6, i, i % 2 == 0)
        put(i, 6, i % 2 == 0)
    # Alignment patterns (6.3.6), except where they would overlap a finder pattern.
    centres = _ALIGNMENT[version]
    last = len(centres) - 1
    for a, row in enumerate(centres):
        for b, col in enumerate(centres):
            if (a, b) in ((0, 0), (0, last), (last, 0)):
                continue
            for dr in range(-2, 3):
                for dc in range(-2, 3):
                    put(row + dr, col + dc, max(abs(dr), abs(dc)) != 1)
    # Format information (7.9), bit 0 being the least significant, and the dark module.
    fmt = _format_bits(level, mask)
    for i in range(15):
        bit = (fmt >> i) & 1
        if i < 6:
            put(i, 8, bit)
        elif i < 8:
            put(i + 1, 8, bit)
        elif i == 8:
            put(8, 7, bit)
        else:
            put(8, 14 - i, bit)
        if i < 8:
            put(8, size - 1 - i, bit)
        else:
            put(size - 15 + i, 8, bit)
    put(size - 8, 8, True)
    # Version information (7.10).
    if version >= 7:
        ver = _version_bits(version)
        for i in range(18):
            bit = (ver >> i) & 1
            put(i // 3, size - 11 + i % 3, bit)
            put(size - 11 + i % 3, i // 3, bit)

    # Placement order of the data modules (7.7.3): two-module columns from the right, alternately
    # upwards and downwards, skipping the vertical timing pattern.
    order: list[int] = []
    right = size - 1
    while right >= 1:
        if right == 6:
            right = 5
        upward = (right + 1) & 2 == 0
        for vert in range(size):
            row = size - 1 - vert if upward else vert
            for col in (right, right - 1):
                if not function[row * size + col]:
                    order.append(row * size + col)
        right -= 2
    assert len(order) == _data_modules(version)

    # Block structure.
    nblocks = _BLOCKS[level][version]
    ecc = _ECC_PER_BLOCK[level][version]
    total = len(order) // 8
    ndata = _data_codewords(version, level)
    blocks: list[tuple[int, int]] = []
    start = 0
    for length in _block_lengths(version, level):
        blocks.append((start, start + length))
        start += length
    # Interleaving (7.6): codeword k of the final sequence is codeword source[k] of the stream made of the
    # data codewords followed by each block's ECC codewords, block after block.
    source: list[int] = []
    for i in range(max(e - s for s, e in blocks)):
        source.extend(s + i for s, e in blocks if s + i < e)
    for i in range(ecc):
        source.extend(ndata + b * ecc + i for b in range(nblocks))
    assert len(source) == total

    nbits = total * 8
    zero, one = nbits, nbits + 1  # the constant "0" and "1" appended to the bit stream
    cond = _MASKS[mask]
    target = [0] * (size * size)  # for each module, the index in the bit stream + "01"
    stream_mask = 0
    for index in range(size * size):
        if function[index]:
            target[index] = one if dark[index] else zero
    for k, index in enumerate(order):
        flip = cond(*divmod(index, size))
        if k < nbits:
            bit = source[k >> 3] * 8 + (k & 7)
            target[index] = bit
            if flip:
                stream_mask |= 1 << (nbits - 1 - bit)
        else:  # remainder bit: 0, masked
            target[index] = one if flip else zero
    # Rows of the symbol with its quiet zone, each padded with light modules to a whole number of bytes.
    width = size + 2 * border
    stride = -(-width // 8) * 8
    # The light rows above and below are constant (:attr:`_Layout.quiet`), not worth permuting.
    light = [zero] * stride
    placement: list[int] = []
    for index in range(0, size * size, size):
        placement += light[:border]
        placement += target[index : index + size]
        placement += light[: stride - size - border]
    return _Layout(
        size=size,
        data_codewords=ndata,
        blocks=tuple(blocks),
        ecc=ecc,
        rs=_rs_table(ecc),
        nbits=nbits,
        bits_format=f"0{nbits}b",
        mask=stream_mask,
        width=width,
        stride=stride,
        place=itemgetter(*placement),
        quiet="0" * (stride * border),
    )


# -- encoding ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class QRCode:
    """A QR symbol of ``size`` × ``size`` modules, with a quiet zone of ``border`` modules around it.

    ``modules`` holds the ``width`` = ``size + 2 * border`` rows with the quiet zone, top to bottom, as
    "1" (dark) and "0" (light); each row is padded with light modules to ``stride`` modules, the next
    multiple of 8, so that :meth:`packed` gives whole bytes per row.
    """

    version: int
    error: str
    mask: int
    size: int
    border: int
    width: int
    stride: int
    modules: str

    @property
    def matrix(self) -> tuple[bytearray, ...]:
        """The rows (quiet zone included) as ``bytearray`` s of 0 (light) / 1 (dark), as segno's
        ``QRCode.matrix`` when ``border`` is 0."""
        width, stride = self.width, self.stride
        flat = self.modules.encode("ascii").translate(_TO_01)
        return tuple(bytearray(flat[i : i + width]) for i in range(0, width * stride, stride))

    def packed(self) -> bytes:
        """The rows as a 1-bit bitmap, 1 = dark, most significant bit first, ``stride // 8`` bytes a row."""
        return int(self.modules, 2).to_bytes(len(self.modules) // 8, "big")


_TO_01 = bytes.maketrans(b"01", b"\x00\x01")


def _to_bytes(text: str | bytes) -> bytes:
    if isinstance(text, bytes):
        return text
    for encoding in ("iso-8859-1", "shift_jis"):
        try:
            return text.encode(encoding)
        except UnicodeError:
            pass
    return text.encode("utf-8")


def encode(
    text: str | bytes, *, error: str = "L", mask: int = 0, border: int = 0, boost_error: bool = True
) -> QRCode:
    """The QR code of ``text`` in byte mode, at least at level ``error`` and with data mask ``mask``.

    ``border`` is the width of the quiet zone included in :attr:`QRCode.modules`. With ``boost_error``
    the level is raised as long as the data still fits the same version. Raises :class:`ValueError`
    for an unknown level, a bad mask or border, or when the text does not fit version 40.
    """
    level = error.upper() if isinstance(error, str) else ""
    if level not in _MAX_BYTES:
        raise ValueError(f"unknown error correction level {error!r}; expected one of L, M, Q, H")
    if not 0 <= mask <= 7:
        raise ValueError(f"mask must be 0-7, not {mask!r}")
    if border < 0:
        raise ValueError(f"border must be >= 0, not {border!r}")
    data = _to_bytes(text)
    n = len(data)
    version = bisect.bisect_left(_MAX_BYTES[level], n, lo=1)
    if version > 40:
        raise ValueError(
            f"text too long for a QR code: {n} bytes, at most {_MAX_BYTES[level][40]} at level {level}"
        )
    if boost_error:
        for higher in LEVELS[LEVELS.index(level) + 1 :]:
            if _MAX_BYTES[higher][version] < n:
                break
            level = higher
    lay = _layout(version, level, mask, border)

    # Data codewords (7.4): mode 0100, character count, the bytes, terminator 0000 (always room for it:
    # the stream is 4 bits short of a byte boundary and the capacity is whole codewords), then
    # :data:`_PAD` up to the capacity.
    count_bits = _count_bits(version)
    value = ((4 << count_bits | n) << 8 * n | int.from_bytes(data, "big")) << 4
    npad = lay.data_codewords - (count_bits // 8 + n + 1)
    if npad:
        value = value << 8 * npad | int.from_bytes(_PAD[:npad], "big")
    codewords = value.to_bytes(lay.data_codewords, "big")

    # Error correction (7.5): remainder of the division by the generator polynomial, one register
    # (an int of ``ecc`` bytes) per block.
    ecc, rs = lay.ecc, lay.rs
    shift, keep = 8 * (ecc - 1), (1 << 8 * (ecc - 1)) - 1
    for start, end in lay.blocks:
        reg = 0
        for byte in codewords[start:end]:
            reg = (reg & keep) << 8 ^ rs[reg >> shift ^ byte]
        value = value << 8 * ecc | reg

    stream = format(value ^ lay.mask, lay.bits_format) + "01"
    modules = "".join([lay.quiet, *lay.place(stream), lay.quiet])
    return QRCode(version, level, mask, lay.size, border, lay.width, lay.stride, modules)
