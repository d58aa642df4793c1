"""DB-API hook: ``wrap(connection, collector)`` returns a connection whose statements are reported
to the collector after they succeed (sqlite3, pymysql, psycopg).

The application sees its own results and exceptions unchanged: a statement that raises is never
reported as a success; a sink with ``statement_failed(sql, context, error, dialect)`` is told of it
(the ``openlineage`` plugin emits a FAIL event for it). Everything else (attributes, context
managers, iteration) is the wrapped object's.

>>> import sqlite3
>>> from headwater.dispatch.testing import ListExtract
>>> class Sink:
...     def __init__(self): self.seen = []
...     def statement_succeeded(self, sql, context, dialect=None): self.seen.append((sql, dialect))
>>> sink = Sink(); conn = wrap(sqlite3.connect(":memory:"), sink)
>>> conn.execute("CREATE TABLE t (a INT)").fetchall()
[]
>>> sink.seen
[('CREATE TABLE t (a INT)', 'sqlite')]
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol

from headwater.extract import RunInfo
from headwater.hooks._session import (
    Session,
    error_message,
    normalise_placeholders,
    now,
    session_of,
    statement_text,
)

_FORMAT_STYLES = ("format", "pyformat")


class StatementSink(Protocol):
    def statement_succeeded(self, sql: str, context: Any, dialect: str | None = None) -> None: ...


class _Reporter:
    """Turns a successful ``execute`` into one ``statement_succeeded`` call; never raises."""

    def __init__(self, conn: Any, sink: StatementSink, session: Session, paramstyle: str) -> None:
        self.conn = conn
        self.sink = sink
        self.session = session
        self.format_style = paramstyle in _FORMAT_STYLES

    def report(self, statement: Any, params: Any, started: float) -> None:
        ended = now()
        try:
            sql = statement_text(statement, self.conn)
            if self.format_style and params is not None:
                sql = normalise_placeholders(sql)
            session = self.session

            def context() -> RunInfo:
                return session.run_info(started, ended)

            self.sink.statement_succeeded(sql, context, session.dialect)
            session.after(sql)
        except Exception:  # pragma: no cover - the collector never raises; belt and braces
            pass

    def fail(self, statement: Any, params: Any, started: float, exc: BaseException) -> None:
        """Report a statement the database rejected (to a sink with ``statement_failed``); never raises."""
        ended = now()
        try:
            failed = getattr(self.sink, "statement_failed", None)
            if failed is None:
                return
            sql = statement_text(statement, self.conn)
            if self.format_style and params is not None:
                sql = normalise_placeholders(sql)
            session = self.session

            def context() -> RunInfo:
                return session.run_info(started, ended)

            failed(sql, context, error_message(exc), session.dialect)
        except Exception:  # pragma: no cover - the collector never raises; belt and braces
            pass

    def report_script(self, script: str, started: float) -> None:
        from headwater.extract.split import iter_script

        for piece in iter_script(script, self.session.dialect):
            self.report(piece.sql, None, started)


class CursorProxy:
    """A cursor whose ``execute`` / ``executemany`` report success."""

    def __init__(self, cursor: Any, reporter: _Reporter) -> None:
        self._cursor = cursor
        self._reporter = reporter

    @property
    def wrapped(self) -> Any:
        return self._cursor

    def _same(self, result: Any) -> Any:
        return self if result is self._cursor else result

    def execute(self, statement: Any, params: Any = None, *args: Any, **kwargs: Any) -> Any:
        return self._same(_reported(self._reporter, self._cursor.execute, statement, params, args, kwargs))

    def executemany(self, statement: Any, seq: Any, *args: Any, **kwargs: Any) -> Any:
        started = now()
        try:
            result = self._cursor.executemany(statement, seq, *args, **kwargs)
        except Exception as exc:
            self._reporter.fail(statement, (), started, exc)
            raise
        self._reporter.report(statement, (), started)
        return self._same(result)

    def executescript(self, script: str) -> Any:
        """sqlite3 only: every statement of the script is reported after the whole script succeeded."""
        started = now()
        result = self._cursor.executescript(script)
        self._reporter.report_script(script, started)
        return self._same(result)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cursor, name)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._cursor)

    def __enter__(self) -> CursorProxy:
        self._cursor.__enter__()
        return self

    def __exit__(self, *exc: Any) -> Any:
        return self._cursor.__exit__(*exc)


class ConnectionProxy:
    """A connection whose cursors (and ``execute`` shortcuts) report successful statements."""

    def __init__(self, conn: Any, reporter: _Reporter) -> None:
        self._conn = conn
        self._reporter = reporter

    @property
    def wrapped(self) -> Any:
        return self._conn

    @property
    def lineage_session(self) -> Session:
        return self._reporter.session

    def cursor(self, *args: Any, **kwargs: Any) -> CursorProxy:
        return CursorProxy(self._conn.cursor(*args, **kwargs), self._reporter)

    def _wrap_cursor(self, result: Any) -> Any:
        return CursorProxy(result, self._reporter) if hasattr(result, "fetchall") else result

    def execute(self, statement: Any, params: Any = None, *args: Any, **kwargs: Any) -> Any:
        """sqlite3 and psycopg connections have ``execute``; it returns a cursor."""
        return self._wrap_cursor(_reported(self._reporter, self._conn.execute, statement, params, args, kwargs))

    def executemany(self, statement: Any, seq: Any, *args: Any, **kwargs: Any) -> Any:
        started = now()
        try:
            result = self._conn.executemany(statement, seq, *args, **kwargs)
        except Exception as exc:
            self._reporter.fail(statement, (), started, exc)
            raise
        self._reporter.report(statement, (), started)
        return self._wrap_cursor(result)

    def executescript(self, script: str) -> Any:
        started = now()
        result = self._conn.executescript(script)
        self._reporter.report_script(script, started)
        return self._wrap_cursor(result)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in ("_conn", "_reporter"):
            object.__setattr__(self, name, value)
        else:
            setattr(self._conn, name, value)

    def __enter__(self) -> ConnectionProxy:
        self._conn.__enter__()
        return self

    def __exit__(self, *exc: Any) -> Any:
        return self._conn.__exit__(*exc)


def _paramstyle(conn: Any) -> str:
    module = type(conn).__module__.split(".")[0]
    return {"sqlite3": "qmark", "pymysql": "pyformat", "psycopg": "pyformat"}.get(module, "qmark")


def wrap(connection: Any, collector: StatementSink, database: str | None = None) -> ConnectionProxy:
    """Report every successful statement of ``connection`` to ``collector``.

    ``database`` overrides the session database taken from the connection (for PostgreSQL, the
    schema that unqualified names resolve to; ``public`` unless given).
    """
    session = session_of(connection, database).with_database(database)
    return ConnectionProxy(connection, _Reporter(connection, collector, session, _paramstyle(connection)))


def _reported(
    reporter: _Reporter, execute: Any, statement: Any, params: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    """``execute(statement[, params, ...])`` as the caller wrote it (no parameters passed when none
    were given: drivers differ on ``execute(sql, None)``), telling ``reporter`` how it went."""
    started = now()
    try:
        if params is None and not args and not kwargs:
            result = execute(statement)
        else:
            result = execute(statement, params, *args, **kwargs)
    except Exception as exc:
        reporter.fail(statement, params, started, exc)
        raise
    reporter.report(statement, params, started)
    return result
