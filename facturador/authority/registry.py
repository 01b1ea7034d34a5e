"""SUNAT's memory of the documents it received, as the simulator needs it.

Keys are ``(issuer RUC, document type, series, number)`` with the number as an integer (SUNAT treats
``F001-1`` and ``F001-00000001`` as the same document). The record keeps the status, the document hash
(the signature's ``DigestValue``) to tell a harmless resend from a changed document (1033), the response
code and the CDR to answer resends idempotently.

:class:`Registry` is deliberately small so a SQL-backed implementation (``facturador.store``)
can provide it: two methods, plain values, no transactions across calls.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Literal, NamedTuple, Protocol, runtime_checkable

RegistryStatus = Literal["accepted", "rejected", "voided"]


class RegistryKey(NamedTuple):
    """Identity of a document at SUNAT."""

    ruc: str
    doc_type: str  # catalog 01: "01", "03", "07", "08"
    series: str  # "F001"
    number: int  # correlative without padding

    @classmethod
    def from_id(cls, ruc: str, doc_type: str, document_id: str) -> RegistryKey:
        """Build a key from a ``SERIE-NUMERO`` id (``F001-00000123``); raises ValueError if malformed."""
        series, _, number = document_id.partition("-")
        return cls(ruc, doc_type, series, int(number))


@dataclass(frozen=True)
class RegistryRecord:
    """What SUNAT remembers about one document.

    ``status``: "accepted" (also accepted with observations), "rejected" or "voided"; ``digest``: the
    document's DigestValue when it was received; ``code``: the response code ("0", "3103"...);
    ``cdr_zip``: the CDR sent back (``None`` when none was produced).
    """

    status: RegistryStatus
    digest: str
    code: str
    cdr_zip: bytes | None = None


@runtime_checkable
class Registry(Protocol):
    """Storage of :class:`RegistryRecord` by :class:`RegistryKey`; implementations must be thread-safe."""

    def lookup(self, key: RegistryKey) -> RegistryRecord | None:
        """The record of ``key``, or ``None`` when SUNAT never received that document."""
        ...

    def record(self, key: RegistryKey, record: RegistryRecord) -> None:
        """Store (insert or replace) the record of ``key``, e.g. on acceptance, rejection or voiding."""
        ...


class InMemoryRegistry:
    """A thread-safe, process-local :class:`Registry` (the simulator's default)."""

    def __init__(self) -> None:
        self._records: dict[RegistryKey, RegistryRecord] = {}
        self._lock = threading.Lock()

    def lookup(self, key: RegistryKey) -> RegistryRecord | None:
        """The record of ``key``, or ``None``."""
        with self._lock:
            return self._records.get(key)

    def record(self, key: RegistryKey, record: RegistryRecord) -> None:
        """Insert or replace the record of ``key``."""
        with self._lock:
            self._records[key] = record

    def __len__(self) -> int:
        with self._lock:
            return len(self._records)
