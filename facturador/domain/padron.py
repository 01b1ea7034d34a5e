"""SUNAT's padrón reducido: imported into the store, looked up by RUC.

SUNAT publishes every RUC in ``padron_reducido_ruc.zip`` (http://www2.sunat.gob.pe/padron_reducido_ruc.zip),
one ``|``-separated Latin-1 text line per taxpayer after a header line::

    RUC|NOMBRE O RAZÓN SOCIAL|ESTADO DEL CONTRIBUYENTE|CONDICIÓN DE DOMICILIO|UBIGEO|TIPO DE VÍA|
    NOMBRE DE VÍA|CÓDIGO DE ZONA|TIPO DE ZONA|NÚMERO|INTERIOR|LOTE|DEPARTAMENTO|MANZANA|KILÓMETRO|

(one line; ``-`` marks an empty field). The import streams the file (never held whole), writes in
batches, keeps a digest of each line so a re-import writes only the lines that changed, and commits a
checkpoint (the byte offset of the text read) with every batch, so an interrupted import resumes there.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.engine import Connection, Engine

from facturador.store.models import PADRON, PADRON_IMPORTS
from sunat.identity import is_valid_ruc

#: The header of SUNAT's file (Latin-1), as published; a line starting with ``RUC|`` is skipped.
HEADER = (
    "RUC|NOMBRE O RAZÓN SOCIAL|ESTADO DEL CONTRIBUYENTE|CONDICIÓN DE DOMICILIO|UBIGEO|TIPO DE VÍA|"
    "NOMBRE DE VÍA|CÓDIGO DE ZONA|TIPO DE ZONA|NÚMERO|INTERIOR|LOTE|DEPARTAMENTO|MANZANA|KILÓMETRO|"
)
FIELDS = 15
#: SUNAT's public address of the register.
SUNAT_URL = "http://www2.sunat.gob.pe/padron_reducido_ruc.zip"
#: Lines per batch (one transaction, one checkpoint).
BATCH = 20_000
#: States and conditions that make a customer one to be warned about before issuing to it.
GOOD_STATE = "ACTIVO"
GOOD_CONDITIONS = ("HABIDO",)

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Taxpayer:
    """A RUC as the padrón gives it."""

    ruc: str
    name: str
    state: str
    condition: str
    ubigeo: str
    address: str

    @property
    def warning(self) -> str | None:
        """Why issuing to this taxpayer deserves a second look (a state other than ACTIVO, a domicile
        NO HABIDO or NO HALLADO), in Spanish; None when nothing is wrong."""
        problems = []
        if self.state and self.state != GOOD_STATE:
            problems.append(f"estado {self.state}")
        if self.condition and self.condition not in GOOD_CONDITIONS:
            problems.append(f"condición {self.condition}")
        if not problems:
            return None
        return f"El contribuyente {self.ruc} figura en el padrón de SUNAT con {' y '.join(problems)}."


@dataclass(frozen=True)
class ImportResult:
    """What an import did: lines read (this run and before, if it resumed), rows written, skipped lines."""

    source: str
    lines: int
    written: int
    skipped: int
    resumed_from: int
    already_imported: bool = False


def _field(value: str) -> str:
    value = value.strip()
    return "" if value == "-" else value


def compose_address(fields: list[str]) -> str:
    """An address as SUNAT's consulta shows it, from the via and zone fields of a line."""
    via, via_name, zone_code, zone_name, number, inside, lot, apartment, block, km = (
        _field(value) for value in fields[5:15]
    )
    parts = [
        via,
        via_name,
        f"NRO. {number}" if number else "",
        f"INT. {inside}" if inside else "",
        f"DPTO. {apartment}" if apartment else "",
        f"MZA. {block}" if block else "",
        f"LOTE {lot}" if lot else "",
        f"KM. {km}" if km else "",
        zone_code,
        zone_name,
    ]
    return " ".join(part for part in parts if part)[:500]


def parse_line(raw: bytes, digest: str | None = None) -> tuple[dict[str, str] | None, bool]:
    """A line of the file as a row (with its digest, computed unless given), or None; the flag says
    whether it was a taxpayer's line that could not be read (the header and blank lines are not)."""
    line = raw.rstrip(b"\r\n")
    if not line.strip() or line.startswith(b"RUC|"):
        return None, False
    fields = line.decode("latin-1").split("|")
    if len(fields) < FIELDS or not is_valid_ruc(fields[0].strip()):
        return None, True
    row = {
        "ruc": fields[0].strip(),
        "name": _field(fields[1])[:500],
        "state": _field(fields[2])[:40],
        "condition": _field(fields[3])[:40],
        "ubigeo": _field(fields[4])[:6],
        "address": compose_address(fields),
        "row_hash": digest or hashlib.blake2b(line, digest_size=8).hexdigest(),
    }
    return row, False


def line_key(raw: bytes) -> tuple[str, str, bytes] | None:
    """The RUC, digest and text of a taxpayer's line, read without parsing the rest (a re-import parses
    only the lines whose digest changed); None for the header and blank lines."""
    line = raw.rstrip(b"\r\n")
    if not line.strip() or line.startswith(b"RUC|"):
        return None
    ruc = line.split(b"|", 1)[0].strip()[:20].decode("latin-1")
    return ruc, hashlib.blake2b(line, digest_size=8).hexdigest(), line


def signature(path: Path) -> str:
    """What identifies a published file: its size and the digest of its first and last MiB."""
    size = path.stat().st_size
    digest = hashlib.sha256(str(size).encode())
    with path.open("rb") as handle:
        digest.update(handle.read(1 << 20))
        if size > 2 << 20:
            handle.seek(size - (1 << 20))
            digest.update(handle.read())
    return digest.hexdigest()


@contextmanager
def open_text(path: Path) -> Iterator[tuple[IO[bytes], int]]:
    """The register's text (the ``.txt`` inside SUNAT's zip, or a plain text file) and its size in bytes."""
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            members = [info for info in archive.infolist() if not info.is_dir()]
            texts = [info for info in members if info.filename.lower().endswith(".txt")] or members
            if not texts:
                raise ValueError(f"{path} is a zip without files")
            with archive.open(texts[0]) as stream:
                yield stream, texts[0].file_size
    else:
        with path.open("rb") as handle:
            yield handle, path.stat().st_size


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def _checkpoint(
    connection: Connection, source: str, mark: str, force: bool
) -> tuple[int | None, int, int, int]:
    """The import to continue (its id, offset, lines, written), or ``None`` as id when this file was
    imported in full already (and ``force`` is not set); a new import otherwise."""
    rows = connection.execute(
        select(PADRON_IMPORTS).where(PADRON_IMPORTS.c.signature == mark).order_by(PADRON_IMPORTS.c.id.desc())
    ).all()
    for row in rows:
        if row.finished_at is None:
            return row.id, row.offset, row.lines, row.written
        if not force:
            return None, row.offset, row.lines, row.written
        break
    new_id = connection.scalar(
        insert(PADRON_IMPORTS)
        .values(source=source[:1000], signature=mark, offset=0, lines=0, written=0, started_at=_now())
        .returning(PADRON_IMPORTS.c.id)
    )
    return int(new_id or 0), 0, 0, 0


def _write_batch(connection: Connection, batch: dict[str, tuple[str, bytes]]) -> tuple[int, int]:
    """Insert the batch's new RUCs and update those whose line changed (only those lines are parsed);
    the rows written and the lines that could not be read."""
    known = dict(
        connection.execute(select(PADRON.c.ruc, PADRON.c.row_hash).where(PADRON.c.ruc.in_(list(batch)))).all()
    )
    fresh, changed, skipped = [], [], 0
    for ruc, (digest, line) in batch.items():
        if known.get(ruc) == digest:
            continue
        row, _bad = parse_line(line, digest)
        if row is None:
            skipped += 1
        elif ruc in known:
            changed.append({**row, "key": ruc})
        else:
            fresh.append(row)
    if fresh:
        connection.execute(insert(PADRON), fresh)
    if changed:
        columns = ("name", "state", "condition", "ubigeo", "address", "row_hash")
        connection.execute(
            update(PADRON)
            .where(PADRON.c.ruc == bindparam("key"))
            .values({column: bindparam(column) for column in columns}),
            changed,
        )
    return len(fresh) + len(changed), skipped


def import_padron(
    engine: Engine,
    path: Path,
    *,
    source: str | None = None,
    progress: Progress | None = None,
    force: bool = False,
    batch_lines: int = BATCH,
    stop_after_batches: int | None = None,
) -> ImportResult:
    """Import SUNAT's padrón from ``path`` (the zip or its text): streamed, in batches of ``batch_lines``,
    each committed with its checkpoint; a file imported in full before is not read again unless ``force``;
    an import of the same file interrupted before resumes at its checkpoint. ``progress(done, total)``
    gets the bytes read. ``stop_after_batches`` ends the run early (as an interruption would)."""
    mark = signature(path)
    with engine.begin() as connection:
        import_id, offset, lines, written = _checkpoint(connection, source or str(path), mark, force)
    if import_id is None:
        return ImportResult(source or str(path), lines, 0, 0, offset, already_imported=True)
    resumed_from, skipped, batches = offset, 0, 0
    with open_text(path) as (stream, total):
        reader = stream
        if offset:
            reader.seek(offset)
        if progress is not None:
            progress(offset, total)
        batch: dict[str, tuple[str, bytes]] = {}
        read_lines = 0
        position = offset
        for raw in reader:
            position += len(raw)
            key = line_key(raw)
            read_lines += 1
            if key is not None:
                batch[key[0]] = (key[1], key[2])
            if read_lines >= batch_lines:
                count, bad = _commit(engine, import_id, batch, position, lines + read_lines, written)
                written, skipped = written + count, skipped + bad
                lines += read_lines
                batch, read_lines = {}, 0
                batches += 1
                if progress is not None:
                    progress(position, total)
                if stop_after_batches is not None and batches >= stop_after_batches:
                    return ImportResult(source or str(path), lines, written, skipped, resumed_from)
        count, bad = _commit(engine, import_id, batch, position, lines + read_lines, written, finished=True)
        written, skipped = written + count, skipped + bad
        lines += read_lines
        if progress is not None:
            progress(position, total)
    return ImportResult(source or str(path), lines, written, skipped, resumed_from)


def _commit(
    engine: Engine,
    import_id: int,
    batch: dict[str, tuple[str, bytes]],
    position: int,
    lines: int,
    written: int,
    *,
    finished: bool = False,
) -> tuple[int, int]:
    """Write a batch and its checkpoint in one transaction; the rows written and the lines unread."""
    with engine.begin() as connection:
        count, skipped = _write_batch(connection, batch) if batch else (0, 0)
        values: dict[str, Any] = {"offset": position, "lines": lines, "written": written + count}
        if finished:
            values["finished_at"] = _now()
        connection.execute(update(PADRON_IMPORTS).where(PADRON_IMPORTS.c.id == import_id).values(**values))
    return count, skipped


def download(url: str, folder: Path, progress: Progress | None = None, timeout: float = 60.0) -> Path:
    """Download the register from ``url`` into ``folder`` (streamed; a partial download continues with an
    HTTP Range request); the file's path."""
    import httpx

    folder.mkdir(parents=True, exist_ok=True)
    name = url.rstrip("/").rsplit("/", 1)[-1].split("?")[0] or "padron_reducido_ruc.zip"
    target = folder / name
    partial = target.with_suffix(target.suffix + ".part")
    have = partial.stat().st_size if partial.exists() else 0
    headers = {"Range": f"bytes={have}-"} if have else {}
    with httpx.stream("GET", url, headers=headers, timeout=timeout, follow_redirects=True) as response:
        if response.status_code == 416:  # the partial file is whole already
            partial.replace(target)
            return target
        response.raise_for_status()
        if response.status_code != 206:
            have = 0
        total = have + int(response.headers.get("content-length") or 0)
        with partial.open("ab" if have else "wb") as out:
            done = have
            for chunk in response.iter_bytes(1 << 20):
                out.write(chunk)
                done += len(chunk)
                if progress is not None:
                    progress(done, total)
    partial.replace(target)
    return target


def find_taxpayer(connection: Connection, ruc: str) -> Taxpayer | None:
    """The padrón's line of ``ruc``, or None (not in the register, or the register not imported)."""
    row = connection.execute(select(PADRON).where(PADRON.c.ruc == ruc)).one_or_none()
    if row is None:
        return None
    return Taxpayer(row.ruc, row.name, row.state, row.condition, row.ubigeo, row.address)


def padron_size(connection: Connection) -> int:
    """How many RUCs the imported register holds (0 when none was imported)."""
    from sqlalchemy import func

    return int(connection.scalar(select(func.count()).select_from(PADRON)) or 0)
