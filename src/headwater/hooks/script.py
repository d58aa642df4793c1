"""Running a SQL script against a real database through the SQLAlchemy hook (``headwater run-script``).

Statements run one by one in autocommit mode, in order. A statement the database rejects is recorded
with its error and the script goes on with the next one (``stop_on_error=True``: it stops there);
each successful statement is reported to the collector by the hook, exactly as an application's
would be, so only statements that succeeded make lineage. A lost connection always stops the script:
the session it ran in is gone.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sqlalchemy as sa

from headwater.extract.split import iter_script
from headwater.hooks._session import SQLALCHEMY_DIALECTS
from headwater.hooks.dbapi import StatementSink
from headwater.hooks.sqlalchemy import instrument

CONNECTION_LOST = "the connection to the database was lost"
STOP_ON_ERROR = "stop on error"


@dataclass(frozen=True, slots=True)
class StatementRun:
    """One executed statement: ``index`` counts from 0 in the script, ``line`` from 1."""

    index: int
    line: int
    sql: str
    error: str | None = None
    rows: int = -1


@dataclass(slots=True)
class ScriptRun:
    """The executed statements in order; ``not_run`` statements after a stop, and why it stopped."""

    statements: list[StatementRun] = field(default_factory=list)
    not_run: int = 0
    stopped: str | None = None

    @property
    def failures(self) -> list[StatementRun]:
        return [s for s in self.statements if s.error is not None]

    @property
    def failed(self) -> StatementRun | None:
        """The first failed statement, if any."""
        return next((s for s in self.statements if s.error is not None), None)


def dialect_of(engine: sa.Engine) -> str:
    """The extraction dialect of an engine's backend (``mysql`` for MariaDB)."""
    return SQLALCHEMY_DIALECTS.get(engine.dialect.name, engine.dialect.name)


def run_script(engine: sa.Engine, script: str, collector: StatementSink, *, stop_on_error: bool = False) -> ScriptRun:
    """Execute every statement of ``script`` on one autocommit connection, reporting each success.

    A failed statement is recorded with the database's message; the next statements still run unless
    ``stop_on_error``. Connecting may raise (``sqlalchemy.exc.OperationalError``); statements do not.
    """
    result = ScriptRun()
    pieces = iter_script(script, dialect_of(engine))  # one statement's tree at a time
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT", no_parameters=True) as conn:
        hook = instrument(engine, collector)
        try:
            for piece in pieces:
                try:
                    cursor = conn.exec_driver_sql(piece.sql)
                except sa.exc.DBAPIError as exc:
                    message = str(exc.orig).strip()
                    result.statements.append(StatementRun(piece.index, piece.line, piece.sql, message))
                    stop = CONNECTION_LOST if exc.connection_invalidated else STOP_ON_ERROR if stop_on_error else None
                    if stop is not None:
                        result.stopped, result.not_run = stop, sum(1 for _ in pieces)
                        break
                    continue
                result.statements.append(StatementRun(piece.index, piece.line, piece.sql, rows=cursor.rowcount))
                cursor.close()
        finally:
            hook.remove()
    return result
