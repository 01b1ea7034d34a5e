"""What the back office's routes share: response schemas registered in the contract's components, and the
Laravel-style pagination (``links`` and ``meta``) of the paginated lists (``docs/facturador_pro_api.md``,
document lists)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from facturador.api.contract import COMPONENTS
from facturador.errors import field_error


def component(name: str, schema: dict[str, Any]) -> dict[str, str]:
    """Register a named response schema (``#/components/schemas/NAME``) and return its reference."""
    COMPONENTS[name] = schema
    return {"$ref": f"#/components/schemas/{name}"}


def string(nullable: bool = False, **extra: Any) -> dict[str, Any]:
    return {"type": ["string", "null"] if nullable else "string", **extra}


def obj(properties: dict[str, Any], *, required: tuple[str, ...] | None = None) -> dict[str, Any]:
    """A response object; every listed key is always present unless ``required`` names fewer."""
    return {
        "type": "object",
        "properties": properties,
        "required": list(required if required is not None else properties),
    }


INTEGER = {"type": "integer"}
NUMBER = {"type": "number"}
BOOLEAN = {"type": "boolean"}
_URL = string(nullable=True)
PAGE_LINKS = obj({"first": _URL, "last": _URL, "prev": _URL, "next": _URL})
PAGE_META = obj(
    {
        "current_page": INTEGER,
        "from": {"type": ["integer", "null"]},
        "last_page": INTEGER,
        "links": {
            "type": "array",
            "items": obj({"url": _URL, "label": string(), "active": BOOLEAN}),
        },
        "path": string(),
        "per_page": INTEGER,
        "to": {"type": ["integer", "null"]},
        "total": INTEGER,
    }
)


def paginated(
    rows: list[Any], *, path: str, query: dict[str, str], page: int, last_page: int, total: int, per_page: int
) -> dict[str, Any]:
    """``{"data", "links", "meta"}`` as a Laravel paginated resource answers (``query`` is kept in the
    links, ``page`` replaced)."""

    def url(number: int) -> str:
        return f"{path}?{urlencode({**{k: v for k, v in query.items() if v}, 'page': number})}"

    first = (page - 1) * per_page + 1 if rows else None
    window: list[int | None]
    if last_page <= 12:
        window = list(range(1, last_page + 1))
    else:
        middle = range(max(3, page - 3), min(last_page - 2, page + 3) + 1)
        window = [1, 2, *([None] if middle.start > 3 else []), *middle]
        window += [*([None] if middle.stop - 1 < last_page - 2 else []), last_page - 1, last_page]
    links = [{"url": url(page - 1) if page > 1 else None, "label": "&laquo; Anterior", "active": False}]
    links += [
        {"url": None, "label": "...", "active": False}
        if number is None
        else {"url": url(number), "label": str(number), "active": number == page}
        for number in window
    ]
    links.append(
        {"url": url(page + 1) if page < last_page else None, "label": "Siguiente &raquo;", "active": False}
    )
    return {
        "data": rows,
        "links": {
            "first": url(1),
            "last": url(last_page),
            "prev": url(page - 1) if page > 1 else None,
            "next": url(page + 1) if page < last_page else None,
        },
        "meta": {
            "current_page": page,
            "from": first,
            "last_page": last_page,
            "links": links,
            "path": path,
            "per_page": per_page,
            "to": first + len(rows) - 1 if first is not None else None,
            "total": total,
        },
    }


# -- the document lists' extension: pages and "changed since" ---------------------------------------

#: The most rows one page of the extension answers.
MAX_PAGE_ROWS = 20_000


@dataclass(frozen=True)
class ChangesQuery:
    """What a list request asked of the extension: rows changed at or after ``since`` (naive UTC, or all
    when ``None``), with an id above ``after``, at most ``limit`` of them, by id."""

    since: dt.datetime | None
    limit: int
    after: int


def changes_query(changed_since: str | None, limit: str | None, after: str | None) -> ChangesQuery | None:
    """The extension's parameters read, or ``None`` when none was given (a plain list); 422 naming the
    parameter when one is malformed."""
    if changed_since is None and limit is None and after is None:
        return None
    since = None
    if changed_since is not None:
        try:
            since = dt.datetime.fromisoformat(changed_since.strip().replace("Z", "+00:00"))
        except ValueError:
            raise field_error(
                "changed_since",
                "El campo changed_since debe ser una fecha y hora ISO 8601 "
                f"(AAAA-MM-DDTHH:MM:SS+00:00; se recibió {changed_since!r}).",
            ) from None
        if since.tzinfo is not None:
            since = since.astimezone(dt.UTC).replace(tzinfo=None)
    rows = _whole("limit", limit, MAX_PAGE_ROWS, minimum=1) if limit is not None else MAX_PAGE_ROWS
    last = _whole("after", after, 2**62, minimum=0) if after is not None else 0
    return ChangesQuery(since, rows, last)


def _whole(name: str, text: str, maximum: int, *, minimum: int) -> int:
    try:
        value = int(text.strip())
    except ValueError:
        value = minimum - 1
    if not minimum <= value <= maximum:
        raise field_error(name, f"El campo {name} debe ser un entero entre {minimum} y {maximum}.")
    return value


def changes_meta(rows: list[dict[str, Any]], query: ChangesQuery, as_of: dt.datetime) -> dict[str, Any]:
    """The ``changes`` key of an extension answer: the service's time when it read (``as_of``, UTC: ask
    the next refresh for changes since then) and the ``after`` of the next page (``None`` when this was
    the last)."""
    full = len(rows) >= query.limit
    return {
        "as_of": as_of.replace(tzinfo=dt.UTC).isoformat(),
        "next": str(rows[-1]["id"]) if full and rows else None,
        "limit": query.limit,
    }
