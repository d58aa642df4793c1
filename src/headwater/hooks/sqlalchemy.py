"""SQLAlchemy hook: ``instrument(engine, collector)`` reports each statement after it succeeded.

It listens to the engine's ``before_cursor_execute`` / ``after_cursor_execute`` events;
``after_cursor_execute`` only fires when the DBAPI call returned, so a statement that raises is never
reported as a success (``handle_error`` tells a collector's ``statement_failed`` of it). Facts
about each DBAPI connection (user, database, client address) are read once and kept in
``connection.info``. Events are reported when the statement succeeds, not when the transaction
commits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine

from headwater.extract import RunInfo
from headwater.hooks._session import (
    SQLALCHEMY_DIALECTS,
    Session,
    error_message,
    normalise_placeholders,
    now,
    openlineage_properties,
    session_of,
    statement_text,
)
from headwater.hooks.dbapi import StatementSink
from headwater.model.ol_naming import NAMESPACE_PROPERTY, place_of_url

_START = "headwater.started"
_SESSION = "headwater.session"


@dataclass
class Instrumentation:
    """Handle returned by ``instrument``; ``remove()`` detaches the listeners."""

    engine: Engine
    before: Any
    after: Any
    failed: Any = None

    def remove(self) -> None:
        event.remove(self.engine, "before_cursor_execute", self.before)
        event.remove(self.engine, "after_cursor_execute", self.after)
        if self.failed is not None:
            event.remove(self.engine, "handle_error", self.failed)


def _session(conn: Connection, engine: Engine) -> Session:
    info = conn.connection.info
    session: Session | None = info.get(_SESSION)
    if session is None:
        dbapi = conn.connection.dbapi_connection
        schema = engine.dialect.default_schema_name if engine.dialect.name == "postgresql" else None
        try:
            session = session_of(dbapi, schema)
        except TypeError:
            session = Session(SQLALCHEMY_DIALECTS.get(engine.dialect.name, engine.dialect.name))
        if session.user is None and engine.url.username and engine.dialect.name != "sqlite":
            session.user = engine.url.username
        if NAMESPACE_PROPERTY not in session.properties:
            place = place_of_url(engine.url.render_as_string(), None)
            session.properties = {**session.properties, **openlineage_properties(place)}
        info[_SESSION] = session
    return session


def _no_parameters(context: Any) -> bool:
    """``no_parameters=True``: the driver did no %-formatting, so the text is plain SQL."""
    options = getattr(context, "execution_options", None)
    return bool(options and options.get("no_parameters"))


def instrument(engine: Engine, collector: StatementSink, database: str | None = None) -> Instrumentation:
    """Report every successful statement run through ``engine`` to ``collector``.

    ``database`` overrides the session database read from each connection.
    """
    format_style = engine.dialect.paramstyle in ("format", "pyformat")

    def before(conn: Connection, cursor: Any, statement: Any, parameters: Any, context: Any, many: bool) -> None:
        conn.info[_START] = now()

    def after(conn: Connection, cursor: Any, statement: Any, parameters: Any, context: Any, many: bool) -> None:
        ended = now()
        started = conn.info.pop(_START, ended)
        try:
            session = _session(conn, engine)
            if database is not None:
                session.database = database
            sql = statement_text(statement)
            if format_style and parameters is not None and not _no_parameters(context):
                sql = normalise_placeholders(sql)

            def run_info() -> RunInfo:
                return session.run_info(started, ended)

            collector.statement_succeeded(sql, run_info, session.dialect)
            session.after(sql)
        except Exception:  # pragma: no cover - the collector never raises; belt and braces
            pass

    def failed(context: Any) -> None:
        """A statement the database rejected: told to a collector with ``statement_failed``."""
        ended = now()
        conn = context.connection
        report = getattr(collector, "statement_failed", None)
        if conn is None or context.statement is None or report is None or context.is_disconnect:
            return
        started = conn.info.pop(_START, ended)
        try:
            session = _session(conn, engine)
            if database is not None:
                session.database = database
            sql = statement_text(context.statement)
            if format_style and context.parameters is not None:
                sql = normalise_placeholders(sql)

            def run_info() -> RunInfo:
                return session.run_info(started, ended)

            report(sql, run_info, error_message(context.original_exception), session.dialect)
        except Exception:  # pragma: no cover - the collector never raises; belt and braces
            pass

    event.listen(engine, "before_cursor_execute", before)
    event.listen(engine, "after_cursor_execute", after)
    event.listen(engine, "handle_error", failed)
    return Instrumentation(engine, before, after, failed)
