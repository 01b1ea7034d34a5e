"""Retentions (20) and perceptions (40): builders, typed results and the two client families.

A retention agent keeps part of what it pays a supplier, a perception agent charges its customer a part
on top of what it collects; both issue a receipt per payment run. The builders
compute every amount with :mod:`sunat.withholding` (the regime's rate, the exchange rate, rounding), so
what the connector sends adds up to the cent as SUNAT checks it::

    from connector import Client
    from connector.withholding import Payment, Retention

    retention = Retention(
        supplier=Customer.ruc("20100070970", "SUPERMERCADOS PERUANOS S.A."),
        payments=[Payment("01", "F001-3", issued="2026-11-20", total="400", paid="400")],
    )
    result = client.retentions.issue(retention)      # a WithholdingResult
    result.accepted, result.total, result.response.code

``client.retentions`` / ``client.perceptions`` run the plugin hooks of their family as documents do
(``facturador_prepare_payload`` → ``facturador_validate_payload`` → ``POST`` → ``facturador_issued``
with the :class:`WithholdingResult`), list them, download their files and revert them
(:meth:`WithholdingResource.reverse` answers a :class:`~connector.models.TicketRef`: ``ref.wait()``).
"""

from __future__ import annotations

import copy
import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, ClassVar

from connector.builders import Customer
from connector.http import Connection
from connector.lists import RecordList
from connector.models import AuthorityAnswer, TicketRef, TicketStatus
from connector.parsing import coerce_date, data_of, links_of, text
from connector.plugins import PluginHost
from connector.resources import FilesResource, offered
from connector.states import WithState, WithVerdict
from connector.tickets import DATE_FIELD, TicketResource, VoidItems, void_documents
from sunat import withholding
from sunat.calendar import peru_today
from sunat.money import fmt2, to_decimal

__all__ = [
    "Payment",
    "Perception",
    "PerceptionsResource",
    "Retention",
    "RetentionsResource",
    "WithholdingRecord",
    "WithholdingResult",
]

#: Tag of the cached lists of retentions and perceptions (dropped by every issue).
WITHHOLDING_LISTS_TAG = "withholding.lists"


@dataclass(frozen=True)
class Payment:
    """One payment of a related document (its ``doc_type`` of catalog 01 and ``SERIE-NUMERO``).

    ``total`` and ``paid`` are in ``currency``; ``exchange_rate`` (soles per unit) is required for a
    currency other than soles. Dates default to today in Lima.
    """

    doc_type: str
    number: str
    issued: dt.date | str | None = None
    total: Decimal | str | int = Decimal(0)
    paid: Decimal | str | int = Decimal(0)
    currency: str = "PEN"
    paid_on: dt.date | str | None = None
    exchange_rate: Decimal | str | None = None


@dataclass(frozen=True)
class _Withholding:
    """What retentions and perceptions share; see :class:`Retention` and :class:`Perception`."""

    doc_type: ClassVar[str] = ""
    party_key: ClassVar[str] = ""
    regime_key: ClassVar[str] = ""
    amount_key: ClassVar[str] = ""
    date_key: ClassVar[str] = ""
    series_default: ClassVar[str] = ""

    payments: Sequence[Payment] = ()
    regime: str = "01"
    issued: dt.date | str | None = None
    series: str = ""
    number: int | None = None
    note: str = ""
    establishment: str = "0000"

    def amounts(self) -> list[withholding.WithholdingAmounts]:
        """Each payment's amounts in soles (:func:`sunat.withholding.payment_amounts`)."""
        return [
            withholding.payment_amounts(
                self.doc_type,
                self.regime,
                to_decimal(payment.paid),
                to_decimal(payment.exchange_rate) if payment.exchange_rate is not None else Decimal(1),
            )
            for payment in self.payments
        ]

    @property
    def rate(self) -> Decimal:
        """The regime's rate in percent."""
        return withholding.rate(self.doc_type, self.regime)

    def _party(self) -> Customer:  # pragma: no cover - overridden
        raise NotImplementedError

    def to_payload(self) -> dict[str, Any]:
        """The Spanish wire body, with every amount computed."""
        if not self.payments:
            raise ValueError("a retention or perception needs at least one payment")
        if self.regime not in withholding.regimes(self.doc_type):
            raise ValueError(
                f"regime {self.regime!r} is not one of {sorted(withholding.regimes(self.doc_type))}"
            )
        today = peru_today()
        day = coerce_date(self.issued, "issued") if self.issued is not None else today
        documents = []
        amounts = self.amounts()
        for payment, computed in zip(self.payments, amounts, strict=True):
            series, _, number = payment.number.partition("-")
            issued = coerce_date(payment.issued, "issued") if payment.issued is not None else day
            paid_on = coerce_date(payment.paid_on, "paid_on") if payment.paid_on is not None else day
            entry: dict[str, Any] = {
                "codigo_tipo_documento": payment.doc_type,
                "serie_documento": series,
                "numero_documento": number,
                "fecha_de_emision": issued.isoformat(),
                "codigo_tipo_moneda": payment.currency,
                "total_documento": fmt2(to_decimal(payment.total)),
                "pagos": [
                    {
                        "fecha_de_pago": paid_on.isoformat(),
                        "total_pago": fmt2(to_decimal(payment.paid)),
                        "codigo_tipo_moneda": payment.currency,
                    }
                ],
                self.date_key: day.isoformat(),
                self.amount_key: fmt2(computed.amount),
                "total_a_pagar": fmt2(computed.net),
                "total_pagado": fmt2(computed.net),
            }
            if payment.exchange_rate is not None:
                entry["tipo_de_cambio"] = {
                    "codigo_tipo_moneda_referencia": payment.currency,
                    "codigo_tipo_moneda_objetivo": "PEN",
                    "factor": str(to_decimal(payment.exchange_rate)),
                    "fecha_tipo_de_cambio": paid_on.isoformat(),
                }
            documents.append(entry)
        counted = [
            a for p, a in zip(self.payments, amounts, strict=True) if p.doc_type not in ("07", self.doc_type)
        ]
        body: dict[str, Any] = {
            "serie_documento": self.series or self.series_default,
            "numero_documento": "#" if self.number is None else str(self.number),
            "fecha_de_emision": day.isoformat(),
            "codigo_tipo_documento": self.doc_type,
            "datos_del_emisor": {"codigo_del_domicilio_fiscal": self.establishment},
            self.party_key: self._party().to_payload(),
            self.regime_key: self.regime,
            "totales": {
                self.amount_key: fmt2(sum((a.amount for a in counted), Decimal(0))),
                "total_pagado": fmt2(sum((a.net for a in counted), Decimal(0))),
            },
            "documentos": documents,
        }
        if self.note:
            body["observaciones"] = self.note
        return body


@dataclass(frozen=True)
class Retention(_Withholding):
    """A retention receipt (20): ``supplier`` (with RUC), regime 01 (3 %) or 02 (6 %), the payments."""

    doc_type: ClassVar[str] = withholding.RETENTION
    party_key: ClassVar[str] = "datos_del_proveedor"
    regime_key: ClassVar[str] = "codigo_tipo_retencion"
    amount_key: ClassVar[str] = "total_retenido"
    date_key: ClassVar[str] = "fecha_de_retencion"
    series_default: ClassVar[str] = "R001"

    supplier: Customer | None = None

    def _party(self) -> Customer:
        if self.supplier is None:
            raise ValueError("a retention needs its supplier")
        return self.supplier


@dataclass(frozen=True)
class Perception(_Withholding):
    """A perception receipt (40): ``customer``, regime 01 (2 %), 02 (1 %) or 03 (0.5 %), the payments."""

    doc_type: ClassVar[str] = withholding.PERCEPTION
    party_key: ClassVar[str] = "datos_del_cliente_o_receptor"
    regime_key: ClassVar[str] = "codigo_tipo_percepcion"
    amount_key: ClassVar[str] = "total_percibido"
    date_key: ClassVar[str] = "fecha_de_percepcion"
    series_default: ClassVar[str] = "P001"

    customer: Customer | None = None

    def _party(self) -> Customer:
        if self.customer is None:
            raise ValueError("a perception needs its customer")
        return self.customer


@dataclass(frozen=True)
class WithholdingResult(WithVerdict):
    """The answer to ``POST /api/retentions`` or ``/api/perceptions``: the number (``R001-7``), the
    file name, the ``external_id``, the state (``05`` accepted, ``09`` rejected by SUNAT: the number is
    used), the hash, the ``links`` (xml, pdf, cdr) and SUNAT's ``response``; ``raw`` the whole answer."""

    number: str
    series: str
    correlative: int
    filename: str
    external_id: str
    state_type_id: str
    hash: str
    links: dict[str, str]
    response: AuthorityAnswer | None
    raw: dict[str, Any] = field(repr=False)

    @classmethod
    def from_body(cls, body: Mapping[str, Any], url: str | None = None) -> WithholdingResult:
        """Build from the JSON answer; :class:`~connector.errors.ServerError` without ``data.external_id``."""
        data = data_of(body, url, required="external_id")
        number = str(data.get("number") or "")
        series, _, correlative = number.partition("-")
        return cls(
            number=number,
            series=series,
            correlative=int(correlative) if correlative.isdigit() else 0,
            filename=str(data.get("filename") or ""),
            external_id=str(data["external_id"]),
            state_type_id=str(data.get("state_type_id") or ""),
            hash=str(data.get("hash") or ""),
            links=links_of(body),
            response=AuthorityAnswer.from_wire(body.get("response")),
            raw=dict(body),
        )


@dataclass(frozen=True)
class WithholdingRecord(WithState):
    """A row of ``GET /api/{retentions|perceptions}/lists``: amounts as Decimal, dates as dates."""

    external_id: str
    number: str
    filename: str
    date_of_issue: dt.date
    party_number: str
    party_name: str
    regime: str
    percent: Decimal
    total: Decimal
    total_net: Decimal
    state_type_id: str
    links: dict[str, str]
    raw: dict[str, Any] = field(repr=False)

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> WithholdingRecord:
        """Build from a list row."""
        return cls(
            external_id=str(row.get("external_id") or ""),
            number=str(row.get("number") or ""),
            filename=str(row.get("filename") or ""),
            date_of_issue=dt.date.fromisoformat(str(row.get("date_of_issue"))[:10]),
            party_number=str(row.get("party_number") or ""),
            party_name=str(row.get("party_name") or ""),
            regime=str(row.get("regime") or ""),
            percent=to_decimal(row.get("percent") or "0"),
            total=to_decimal(row.get("total") or "0"),
            total_net=to_decimal(row.get("total_net") or "0"),
            state_type_id=text(row.get("state_type_id")),
            links=links_of(row),
            raw=dict(row),
        )


class ReversionsResource(TicketResource):
    """The reversions (RR) of one family: created by :meth:`WithholdingResource.reverse` (the family's
    hooks run, as for voided communications); ``status``, ``wait``, lists and files."""

    downloads: ClassVar[str] = "reversion"
    changes: ClassVar[tuple[str, ...]] = (*TicketResource.changes, WITHHOLDING_LISTS_TAG)

    def reverse(
        self, day: dt.date | str, documents: VoidItems, *, form_values: Mapping[str, Any] | None = None
    ) -> TicketRef:
        """Revert accepted ones issued on ``day``: ``(external_id, reason)`` pairs."""
        payload = {
            DATE_FIELD: coerce_date(day, "day").isoformat(),
            "documentos": void_documents(documents, reason_required=True),
        }
        return self._create(payload, form_values)


class RetentionReversions(ReversionsResource):
    family: ClassVar[str] = "retentions"
    path: ClassVar[str] = "/api/retentions/voided"
    listed: ClassVar[str] = "la lista de reversiones de sus retenciones"


class PerceptionReversions(ReversionsResource):
    family: ClassVar[str] = "perceptions"
    path: ClassVar[str] = "/api/perceptions/voided"
    listed: ClassVar[str] = "la lista de reversiones de sus percepciones"


class WithholdingResource(FilesResource):
    """Base of ``client.retentions`` and ``client.perceptions``: issue, list, files, reversions."""

    plural: ClassVar[str] = ""
    #: The family's Spanish plural, for sentences.
    named: ClassVar[str] = ""
    builder: ClassVar[type[_Withholding]]

    reversions_class: ClassVar[type[ReversionsResource]]

    def __init__(self, http: Connection, plugins: PluginHost) -> None:
        super().__init__(http, plugins)
        #: The family's reversions (RR): their ``status``, ``wait``, lists and files.
        self.reversions = self.reversions_class(http, plugins)

    @property
    def lists_tag(self) -> str:
        """Retentions and perceptions share one tag (their reversions drop it)."""
        return WITHHOLDING_LISTS_TAG

    def issue(
        self, request: _Withholding | Mapping[str, Any], *, form_values: Mapping[str, Any] | None = None
    ) -> WithholdingResult:
        """Issue one: a builder of this family or a wire payload. Runs the family's hooks; never retried.

        :raises ValidationError: a plugin found problems (nothing sent) or the service refused the body.
        """
        if isinstance(request, _Withholding):
            if not isinstance(request, self.builder):
                raise TypeError(f"client.{self.plural}.issue takes a {self.builder.__name__}")
            payload = request.to_payload()
        else:
            payload = copy.deepcopy(dict(request))
        return self._submit(
            f"/api/{self.plural}",
            payload,
            lambda reply: WithholdingResult.from_body(reply.body, reply.url),
            form_values=form_values,
            check=f"Revise las {self.named} de la empresa antes de emitirla otra vez.",
            changes=(self.lists_tag,),
        )

    def latest(self, *, fresh: bool = False) -> RecordList[WithholdingRecord]:
        """The latest 100, newest first (this service only: real tenants only issue them)."""
        return self._records(f"/api/{self.plural}/lists", fresh)

    def list(
        self, start: dt.date | str, end: dt.date | str, *, fresh: bool = False
    ) -> RecordList[WithholdingRecord]:
        """Those issued from ``start`` to ``end`` inclusive, newest first (this service only)."""
        first, last = coerce_date(start, "start"), coerce_date(end, "end")
        return self._records(f"/api/{self.plural}/lists/{first.isoformat()}/{last.isoformat()}", fresh)

    def _records(self, path: str, fresh: bool) -> RecordList[WithholdingRecord]:
        return self._list(
            path,
            WithholdingRecord.from_row,
            fresh=fresh,
            offered_as=f"la lista de sus {self.named}",
        )

    def reverse(
        self, day: dt.date | str, documents: VoidItems, *, form_values: Mapping[str, Any] | None = None
    ) -> TicketRef:
        """Revert accepted ones issued on ``day`` (RR): ``(external_id, reason)`` pairs. Answers a
        :class:`TicketRef`: ``ref.wait(timeout=30)`` follows it until SUNAT answers."""
        with offered(f"la reversión de {self.named}"):
            return self.reversions.reverse(day, documents, form_values=form_values)

    def reversion_status(self, *, external_id: str | None = None, ticket: str | None = None) -> TicketStatus:
        """How a reversion's ticket stands (``reversions.status``)."""
        with offered(f"la reversión de {self.named}"):
            return self.reversions.status(external_id=external_id, ticket=ticket)


class RetentionsResource(WithholdingResource):
    """Retention receipts (20): ``POST /api/retentions``, lists, files, reversions."""

    family: ClassVar[str] = "retentions"
    plural: ClassVar[str] = "retentions"
    files: ClassVar[str] = "retention"
    named: ClassVar[str] = "retenciones"
    builder = Retention
    reversions_class = RetentionReversions


class PerceptionsResource(WithholdingResource):
    """Perception receipts (40): ``POST /api/perceptions``, lists, files, reversions."""

    family: ClassVar[str] = "perceptions"
    plural: ClassVar[str] = "perceptions"
    files: ClassVar[str] = "perception"
    named: ClassVar[str] = "percepciones"
    builder = Perception
    reversions_class = PerceptionReversions
