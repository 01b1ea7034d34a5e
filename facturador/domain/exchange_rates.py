"""SUNAT's published exchange rate (soles per dollar, buy and sell), fetched and cached per day.

SUNAT publishes the day's rate at https://www.sunat.gob.pe/a/txt/tipoCambio.txt, one line per day,
``DD/MM/YYYY|compra|venta|`` (real Facturador PRO reads it in ``ExchangeRate.php``). Every rate read is
kept in ``exchange_rates``; a day without its own rate (a weekend, a holiday) takes the last rate
published before it, as real PRO's ``searchDate`` walks back from the day asked for.

The source is ``FACTURADOR_EXCHANGE_RATE_URL`` (SUNAT's address by default; ``off`` never fetches:
``services/exchange`` answers from the cache only, and a dollar document without
``factor_tipo_de_cambio`` keeps 1, as real PRO's API sets). A fetch, whatever its result, is not repeated for
:data:`REFETCH_SECONDS`, so a service without internet does not wait on every dollar document.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import re
import threading
import time
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from sqlalchemy import insert, select
from sqlalchemy.engine import Engine

from facturador.store.models import EXCHANGE_RATES

log = logging.getLogger("facturador.exchange_rates")

SUNAT_URL = "https://www.sunat.gob.pe/a/txt/tipoCambio.txt"
URL_ENV = "FACTURADOR_EXCHANGE_RATE_URL"
#: Seconds before the same source is asked again.
REFETCH_SECONDS = 600.0
#: Seconds a fetch may take.
TIMEOUT_SECONDS = 5.0
LINE_RE = re.compile(r"^\s*(\d{2})/(\d{2})/(\d{4})\s*\|\s*([\d.]+)\s*\|\s*([\d.]+)\s*\|?")

_fetched: dict[str, float] = {}
_lock = threading.Lock()


@dataclass(frozen=True)
class Rate:
    """The rate that applies to ``date``: SUNAT's of ``published`` (the same day, or the last before)."""

    date: dt.date
    published: dt.date
    purchase: Decimal
    sale: Decimal


def source_url() -> str | None:
    """The configured source, or None when fetching is off."""
    value = os.environ.get(URL_ENV, "").strip()
    if value.lower() in ("off", "none", "0", "false"):
        return None
    return value or SUNAT_URL


def parse_rates(text: str) -> dict[dt.date, tuple[Decimal, Decimal]]:
    """The rates of SUNAT's text (``DD/MM/YYYY|compra|venta|`` lines): {day: (purchase, sale)}; lines
    that do not read are left out."""
    found: dict[dt.date, tuple[Decimal, Decimal]] = {}
    for line in text.splitlines():
        match = LINE_RE.match(line)
        if not match:
            continue
        day, month, year, buy, sell = match.groups()
        try:
            date = dt.date(int(year), int(month), int(day))
            purchase, sale = Decimal(buy), Decimal(sell)
        except (ValueError, InvalidOperation):
            continue
        if purchase > 0 and sale > 0:
            found[date] = (purchase, sale)
    return found


def fetch(engine: Engine, url: str, *, force: bool = False) -> int:
    """Read ``url`` and cache the rates it gives that are not cached yet; how many were new. Not repeated
    within :data:`REFETCH_SECONDS` unless ``force``; a source that fails is logged and gives 0."""
    import httpx

    with _lock:
        last = _fetched.get(url)
        if not force and last is not None and time.monotonic() - last < REFETCH_SECONDS:
            return 0
        _fetched[url] = time.monotonic()
    try:
        response = httpx.get(url, timeout=TIMEOUT_SECONDS, follow_redirects=True)
        response.raise_for_status()
    except httpx.HTTPError as exc:
        log.warning("SUNAT's exchange rate could not be read from %s: %s", url, exc)
        return 0
    return store_rates(engine, parse_rates(response.text))


def store_rates(engine: Engine, rates: dict[dt.date, tuple[Decimal, Decimal]]) -> int:
    """Cache ``rates`` (days cached already keep their rate); how many were new."""
    if not rates:
        return 0
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    with engine.begin() as connection:
        known = set(connection.scalars(select(EXCHANGE_RATES.c.date).where(EXCHANGE_RATES.c.date.in_(rates))))
        fresh = [
            {"date": day, "purchase": buy, "sale": sell, "fetched_at": now}
            for day, (buy, sell) in rates.items()
            if day not in known
        ]
        if fresh:
            connection.execute(insert(EXCHANGE_RATES), fresh)
    return len(fresh)


def cached_rate(engine: Engine, date: dt.date) -> Rate | None:
    """The cached rate of ``date`` or, failing it, the last cached before it."""
    with engine.connect() as connection:
        row = connection.execute(
            select(EXCHANGE_RATES)
            .where(EXCHANGE_RATES.c.date <= date)
            .order_by(EXCHANGE_RATES.c.date.desc())
            .limit(1)
        ).one_or_none()
    if row is None:
        return None
    return Rate(date, row.date, Decimal(row.purchase), Decimal(row.sale))


def rate_for(engine: Engine, date: dt.date, today: dt.date) -> Rate | None:
    """SUNAT's rate for ``date``: cached, else fetched (when a source is configured and the day is not in
    the future), else the last published before it; None when none is known."""
    found = cached_rate(engine, date)
    if (found is None or found.published != date) and date <= today:
        url = source_url()
        if url is not None and fetch(engine, url):
            found = cached_rate(engine, date)
    return found
