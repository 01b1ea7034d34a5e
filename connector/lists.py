"""What a list call answers, and how long lists are walked.

Every family's list comes back as a :class:`RecordList` of its typed records (documents as a
:class:`~connector.models.DocumentList`, built for 20,000 rows): a ``list`` that also says whether it is
``complete`` and gives itself as a DataFrame (:meth:`RecordList.to_dataframe`). :func:`pages` follows a
paginated list to its last page; :func:`in_range` applies dates to a real tenant's list that ignores
them and asks for the older records one number at a time.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar
from urllib.parse import urlencode

from connector.http import Connection
from connector.parsing import rows_of, split_number

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["MAX_PAGES", "PAGE_BACK_LIMIT", "RecordList", "in_range", "pages", "range_query"]

T = TypeVar("T")
R = TypeVar("R", bound="Numbered")
#: The most pages a list follows (a safety stop against a service whose ``next`` never ends).
MAX_PAGES = 10_000
#: Requests a range may spend asking a real tenant for older records one number at a time.
PAGE_BACK_LIMIT = 120


class RecordList(list[T]):
    """Records as a list call found them. ``complete`` is False when the tenant may hold more of those
    asked than it returned, and ``note`` then says, in one sentence, what it returned;
    :meth:`to_dataframe` gives them as a DataFrame of ``columns`` (default: every field but ``raw``)."""

    def __init__(
        self,
        records: Iterable[T] = (),
        *,
        complete: bool = True,
        note: str = "",
        columns: Sequence[str] | None = None,
    ) -> None:
        super().__init__(records)
        self.complete = complete
        self.note = note
        self.columns = tuple(columns) if columns is not None else None

    def to_dataframe(self) -> pd.DataFrame:
        """One row per record (amounts stay :class:`~decimal.Decimal`). Needs pandas."""
        import pandas as pd

        columns = self.columns
        if columns is None:
            first = self[0] if self else None
            names = [f.name for f in dataclasses.fields(first)] if dataclasses.is_dataclass(first) else []
            columns = tuple(name for name in names if name != "raw")
        rows = [{name: getattr(record, name) for name in columns} for record in self]
        return pd.DataFrame(rows, columns=list(columns))


def pages(
    http: Connection, path: str, *, tag: str, fresh: bool, what: str = "la lista"
) -> Iterator[dict[str, Any]]:
    """The rows of a paginated list, page after page. The page URLs are built here (``page=N`` added to
    the query of ``path``): real tenants' ``links.next`` drops the query (their controllers never
    ``appends`` it to Laravel's paginator), so following it would walk another list. Stops after
    ``meta.last_page`` (or when ``links.next`` is empty), telling ``progress`` of long walks."""
    joiner = "&" if "?" in path else "?"
    last: int | None = None
    for page in range(1, MAX_PAGES + 1):
        relative = f"{path}{joiner}page={page}"
        if last is not None and last > 2:
            http.say(f"Leyendo {what}: página {page} de {last}.")
        response = http.get(relative, fresh=fresh, tag=tag)
        body = Connection.json(response)
        yield from rows_of(body, response.url, response.status_code)
        meta, links = body.get("meta"), body.get("links")
        if isinstance(meta, Mapping) and meta.get("last_page") is not None:
            last = int(meta["last_page"])
            if page >= last:
                return
        elif not (isinstance(links, Mapping) and links.get("next")):
            return


def range_query(search: str, start: dt.date | None, end: dt.date | None, **more: Any) -> str:
    """The query of a list asked by text and dates (this service's ``start_date``/``end_date``)."""
    if (start is None) != (end is None):
        raise ValueError("give both start and end, or neither")
    params: dict[str, Any] = {"input": search} if search else {}
    if start is not None and end is not None:
        params |= {"start_date": start.isoformat(), "end_date": end.isoformat()}
    params |= {key: value for key, value in more.items() if value}
    return f"?{urlencode(params)}" if params else ""


class Numbered(Protocol):
    """A listed record numbered ``PREFIX-N`` (sale notes ``NV01-25``, quotations ``COT-8``)."""

    @property
    def id(self) -> int: ...
    @property
    def number(self) -> str: ...
    @property
    def date_of_issue(self) -> dt.date | None: ...


def in_range(
    http: Connection,
    latest: Sequence[R],
    answer: Callable[[str], list[R]],
    start: dt.date,
    end: dt.date,
    *,
    searched: bool,
    what: str,
    columns: Sequence[str] | None = None,
) -> RecordList[R]:
    """The records of ``start``..``end`` from a real tenant's list, which ignores dates and answers only
    its latest: the dates are applied here and, while the oldest answered is not older than ``start``,
    older ones are asked for one number at a time (their lists filter ``input`` by number) within
    :data:`PAGE_BACK_LIMIT` requests. ``answer(text)`` asks the list with ``input=text``."""
    found = {r.id: r for r in latest}
    complete = True
    if latest and not any(r.date_of_issue is not None and r.date_of_issue < start for r in latest):
        complete = not searched and _page_back(http, found, answer, start, what)
    chosen = sorted(
        (r for r in found.values() if r.date_of_issue is not None and start <= r.date_of_issue <= end),
        key=lambda r: (r.date_of_issue, split_number(r.number)[1] or 0),
        reverse=True,
    )
    note = "" if complete else _partial(what, len(latest), len(found) - len(latest), len(chosen), start, end)
    return RecordList(chosen, complete=complete, note=note, columns=columns)


def _partial(what: str, latest: int, older: int, shown: int, start: dt.date, end: dt.date) -> str:
    """The one sentence of a range that may lack records: what the tenant answered (its ``latest``), the
    ``older`` ones asked for one at a time, and the ``shown`` ones of the range among them."""
    read = f"de sus últimas {latest} {what}" + (f" y {older} anteriores pedidas una a una" if older else "")
    dates = f"entre el {start:%d/%m/%Y} y el {end:%d/%m/%Y}"
    if shown == 0:
        shows = f"ninguna se emitió {dates}"
    elif shown == 1:
        shows = f"se muestra 1 emitida {dates}"
    else:
        shows = f"se muestran las {shown} emitidas {dates}"
    return f"La empresa no filtra por fecha: {read}, {shows}, y puede haber más de esas fechas."


def _page_back(
    http: Connection, found: dict[int, R], answer: Callable[[str], list[R]], start: dt.date, what: str
) -> bool:
    """Ask for the records numbered below the lowest listed of each prefix, one number a request, until
    one was issued before ``start``; False when the tenant does not filter by number, a number cannot
    be had (a gap, or more newer records share its digits) or the budget ran out."""
    budget = PAGE_BACK_LIMIT
    for prefix in sorted({split_number(r.number)[0] for r in found.values()}):
        numbers = [n for r in found.values() if (n := _number_in(prefix, r)) is not None]
        number = min(numbers, default=0) - 1
        while number > 0:
            if budget == 0:
                return False
            budget -= 1
            http.say(f"Buscando {what} anteriores: {prefix}-{number}.")
            answered = answer(str(number))
            if answered and not any(str(number) in r.number.rpartition("-")[2] for r in answered):
                return False  # the tenant ignores the number (pro5)
            found.update((r.id, r) for r in answered)
            record = next((r for r in answered if r.number == f"{prefix}-{number}"), None)
            if record is None:
                return False
            if record.date_of_issue is not None and record.date_of_issue < start:
                break
            number -= 1
    return True


def _number_in(prefix: str, record: Numbered) -> int | None:
    head, number = split_number(record.number)
    return number if head == prefix else None
