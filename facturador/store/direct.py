"""The issuing path's statements, executed on the DB-API cursor of the current transaction.

Issuing a factura runs these statements: the customer and the warehouse read, the correlative, the
document, its XML; the authority's registry, the answer, the CDR; one registry read (on PostgreSQL the
products and their stocks too, and the document with its XML is one statement,
:data:`~facturador.store.models.INSERT_DOCUMENT_WITH_XML`, as the answer with the registry and the CDR
is, :mod:`facturador.store.answers`). Through SQLAlchemy's
``Connection.execute`` each costs 0.1-0.2 ms of Python on this project's 2-core machine (execution
context, result object, parameter processing), more than SQLite's own work for most of them and ~10%
of a whole factura.

A :class:`DirectStatement` is a Core statement compiled once for the engine's dialect: SQLAlchemy
still writes the SQL (with the dialect's paramstyle, ``RETURNING``, ``ON CONFLICT``, the ``onupdate``
timestamps) and its own bind processors still convert the values (dates and JSON on SQLite, JSON
adaptation on psycopg), so rows are stored exactly as through ``execute``; only the per-call
machinery is skipped. Statements run on ``connection.connection.dbapi_connection`` inside the caller's
``engine.begin()`` transaction, so commit and rollback stay SQLAlchemy's.

On psycopg they are written with PostgreSQL's own ``$n`` placeholders and run on a ``RawCursor``, which
sends the SQL as it is: psycopg's cursor rewrites ``%(name)s`` placeholders at each call, from a cache
that skips statements of more than 50 parameters, so the document's insert (51 columns) was parsed
again for 0.26 ms at every issue, while the series' row was locked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.expression import ClauseElement

__all__ = ["DirectStatement", "direct"]


class DirectStatement:
    """A Core statement compiled for one dialect, run on the DB-API cursor with SQLAlchemy's conversions.

    ``columns`` names the columns an INSERT or UPDATE sets (all of them, always: a column left out takes
    its server default, and Python-side defaults are not applied here). ``None`` is written as SQL NULL
    (for JSON columns too, as when the key is left out of a Core insert).
    """

    def __init__(self, statement: ClauseElement, dialect: Dialect, columns: Iterable[str] | None = None):
        keys = list(columns) if columns is not None else None
        #: psycopg's cursor without its placeholder rewriting (``None``: the connection's own cursor).
        self._cursor_class = _raw_cursor_class() if dialect.driver == "psycopg" else None
        writer = _dollar_dialect(dialect) if self._cursor_class is not None else dialect
        compiled = statement.compile(dialect=writer, column_keys=keys)
        assert isinstance(compiled, SQLCompiler)
        self._compiled = compiled
        self.sql = self._compiled.string
        #: The bind names in the order of a positional paramstyle (``None`` for a named one).
        self.positions: tuple[str, ...] | None = (
            tuple(self._compiled.positiontup or ()) if self._compiled.positional else None
        )
        processors: dict[str, Callable[[Any], Any]] = {}
        for name, bind in self._compiled.binds.items():
            processor = bind.type.dialect_impl(dialect).bind_processor(dialect)
            if processor is not None:
                processors[name] = processor
        self._processors = processors

    def parameters(self, values: Mapping[str, Any]) -> tuple[Any, ...] | dict[str, Any]:
        """The DB-API parameters for ``values`` (keyed by column or bind name)."""
        params = dict(self._compiled.construct_params(dict(values)))
        for name, processor in self._processors.items():
            value = params.get(name)
            if value is not None:
                params[name] = processor(value)
        if self.positions is not None:
            return tuple(params[name] for name in self.positions)
        return params

    def execute(self, connection: Connection, values: Mapping[str, Any]) -> Any:
        """Run on ``connection``'s DB-API connection (in its transaction); returns the DB-API cursor."""
        dbapi_connection = connection.connection.dbapi_connection
        assert dbapi_connection is not None
        cursor = (
            dbapi_connection.cursor() if self._cursor_class is None else self._cursor_class(dbapi_connection)
        )
        try:
            cursor.execute(self.sql, self.parameters(values))
        except Exception as exc:
            # SQLAlchemy never sees this error: a connection the server ended is invalidated here, or the
            # pool would try to roll it back and log the failure with a traceback
            if connection.dialect.is_disconnect(exc, dbapi_connection, cursor):  # type: ignore[arg-type]
                connection.invalidate(exc)
            raise
        return cursor

    def first(self, connection: Connection, values: Mapping[str, Any]) -> tuple[Any, ...] | None:
        """The first row, its columns in the statement's order (``None`` when there is none)."""
        cursor = self.execute(connection, values)
        try:
            row = cursor.fetchone()
        finally:
            cursor.close()
        return None if row is None else tuple(row)

    def all(self, connection: Connection, values: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        """Every row, their columns in the statement's order."""
        cursor = self.execute(connection, values)
        try:
            return [tuple(row) for row in cursor.fetchall()]
        finally:
            cursor.close()

    def scalar(self, connection: Connection, values: Mapping[str, Any]) -> Any:
        """The first column of the first row (``RETURNING`` or a one-row ``SELECT``)."""
        row = self.first(connection, values)
        if row is None:
            raise LookupError(f"no row returned by {self.sql!r}")
        return row[0]

    def run(self, connection: Connection, values: Mapping[str, Any]) -> int:
        """Run a statement that returns no rows; how many rows it changed."""
        cursor = self.execute(connection, values)
        try:
            return int(cursor.rowcount)
        finally:
            cursor.close()


def _dollar_dialect(dialect: Dialect) -> Dialect:
    """A dialect like ``dialect`` that writes ``$1, $2...`` placeholders (for the SQL only: the values
    are still converted by the engine's own dialect)."""
    writer: Dialect = type(dialect)(paramstyle="numeric_dollar")  # type: ignore[call-arg]
    return writer


def _raw_cursor_class() -> type:
    from psycopg import RawCursor

    return RawCursor


_compiled: dict[tuple[ClauseElement, str, str, tuple[str, ...] | None], DirectStatement] = {}


def direct(
    statement: ClauseElement, dialect: Dialect, columns: Iterable[str] | None = None
) -> DirectStatement:
    """``statement`` compiled for ``dialect`` (once per process; statements are module constants)."""
    key = (statement, dialect.name, dialect.driver, tuple(columns) if columns is not None else None)
    found = _compiled.get(key)
    if found is None:
        found = _compiled[key] = DirectStatement(statement, dialect, columns)
    return found
