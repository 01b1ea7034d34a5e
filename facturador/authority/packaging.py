"""Zip packaging of documents as SUNAT's ``billService`` expects them (``docs/sunat_domain.md``, file names).

A document travels as ``<name>.zip`` holding exactly one deflated entry ``<name>.xml``; CDRs come back as
``R-<name>.zip``. Real SUNAT zips may add an empty ``dummy/`` (or ``dummy``) entry, which is ignored.
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib

#: Refuse to inflate documents bigger than this (a zip bomb is reported as a corrupt zip, 0156). The cap
#: holds while inflating, whatever size the zip's headers claim.
MAX_XML_BYTES = 20 * 1024 * 1024
#: Bytes inflated per read: the most memory one step of inflating can take beyond what was kept.
_INFLATE_CHUNK = 64 * 1024
#: The compression methods a document may use: zipfile inflates these in bounded steps (bzip2 and lzma
#: would inflate a whole compressed block at once).
_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)


class PackagingError(Exception):
    """A zip that SUNAT would answer with a file-level exception (01xx); ``code`` is that code."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(f"{code}: {detail}")
        self.code = code
        self.detail = detail


def base_name(filename: str) -> str:
    """The document name without a trailing ``.zip`` / ``.xml`` (``20123456789-01-F001-1``)."""
    lower = filename.lower()
    if lower.endswith(".zip") or lower.endswith(".xml"):
        return filename[:-4]
    return filename


#: Every entry is dated 2000-01-01 00:00 (MS-DOS format): the same XML always gives the same zip.
_DOS_DATE = ((2000 - 1980) << 9) | (1 << 5) | 1
_DOS_TIME = 0
_VERSION = 20  # "version needed to extract" for deflate; made by UNIX (3) so the 0644 mode is kept
_LOCAL_HEADER = struct.Struct("<IHHHHHIIIHH")
_CENTRAL_HEADER = struct.Struct("<IHHHHHHIIIHHHHHII")
_END_OF_DIRECTORY = struct.Struct("<IHHHHIIH")


def zip_document(filename: str, xml: bytes) -> bytes:
    """Zip ``xml`` as the single deflated entry ``<filename>.xml`` (``filename`` may end in .zip/.xml).

    Written directly (one local header, the raw deflate stream, one central directory entry): the
    bytes are identical to what :mod:`zipfile` writes for the same entry, at a third of its cost on
    the issuing path, which zips every document and every CDR.
    """
    name = (base_name(filename) + ".xml").encode("utf-8")
    flags = 0 if name.isascii() else 0x800  # bit 11: the name is UTF-8
    compressor = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -15)
    data = compressor.compress(xml) + compressor.flush()
    crc = zlib.crc32(xml)
    local = _LOCAL_HEADER.pack(
        0x04034B50,
        _VERSION,
        flags,
        zipfile.ZIP_DEFLATED,
        _DOS_TIME,
        _DOS_DATE,
        crc,
        len(data),
        len(xml),
        len(name),
        0,
    )
    central = _CENTRAL_HEADER.pack(
        0x02014B50,
        (3 << 8) | _VERSION,
        _VERSION,
        flags,
        zipfile.ZIP_DEFLATED,
        _DOS_TIME,
        _DOS_DATE,
        crc,
        len(data),
        len(xml),
        len(name),
        0,
        0,
        0,
        0,
        0o644 << 16,
        0,
    )
    directory_offset = len(local) + len(name) + len(data)
    directory_size = len(central) + len(name)
    end = _END_OF_DIRECTORY.pack(0x06054B50, 0, 0, 1, 1, directory_size, directory_offset, 0)
    return b"".join((local, name, data, central, name, end))


def _is_filler(info: zipfile.ZipInfo) -> bool:
    """Directory entries and SUNAT's empty ``dummy`` entry carry no document."""
    return info.is_dir() or (info.file_size == 0 and not info.filename.lower().endswith(".xml"))


def _inflate(archive: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int) -> bytes:
    """The entry's bytes, inflated a chunk at a time and refused (0156) past ``limit`` bytes.

    The header's size is not trusted: zipfile stops at the size the header claims and fails the CRC when
    the data goes on, and a header claiming more than ``limit`` is refused before this; the count here
    bounds memory either way, at ``limit`` plus one chunk.
    """
    chunks, total = [], 0
    with archive.open(info) as stream:
        while chunk := stream.read(_INFLATE_CHUNK):
            total += len(chunk)
            if total > limit:
                raise PackagingError("0156", f"entry {info.filename!r} inflates to more than {limit} bytes")
            chunks.append(chunk)
    return b"".join(chunks)


def read_zip(zip_bytes: bytes) -> tuple[str, bytes]:
    """Return ``(entry name, xml bytes)`` of the one XML document in a zip.

    Raises :class:`PackagingError` with 0155 (empty), 0156 (corrupt or oversized), 0157 (no document),
    0158 (more than one document), 0159 (an entry that is not ``*.xml``) or 0160 (empty XML).
    """
    if not zip_bytes:
        raise PackagingError("0155", "the zip is empty")
    try:
        archive = zipfile.ZipFile(io.BytesIO(zip_bytes))
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise PackagingError("0156", f"not a zip file: {exc}") from exc
    with archive:
        try:
            entries = [info for info in archive.infolist() if not _is_filler(info)]
        except (zipfile.BadZipFile, ValueError, OSError) as exc:  # pragma: no cover - defensive
            raise PackagingError("0156", str(exc)) from exc
        if not entries:
            raise PackagingError("0157" if archive.infolist() else "0155", "the zip holds no document")
        if len(entries) > 1:
            raise PackagingError("0158", f"the zip holds {len(entries)} files, expected one")
        info = entries[0]
        name = info.filename.rsplit("/", 1)[-1]
        if not name.lower().endswith(".xml"):
            raise PackagingError("0159", f"entry {info.filename!r} is not an .xml file")
        if info.file_size > MAX_XML_BYTES:
            raise PackagingError("0156", f"entry {info.filename!r} inflates to {info.file_size} bytes")
        if info.compress_type not in _METHODS:
            method = info.compress_type
            raise PackagingError("0156", f"entry {info.filename!r} uses compression method {method}")
        try:
            xml = _inflate(archive, info, MAX_XML_BYTES)
        except (zipfile.BadZipFile, zlib.error, NotImplementedError, ValueError, OSError, EOFError) as exc:
            raise PackagingError("0156", f"cannot inflate {info.filename!r}: {exc}") from exc
    if not xml.strip():
        raise PackagingError("0160", f"entry {name!r} is empty")
    return name, xml
