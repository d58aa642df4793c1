"""Running a SQL script against a real database through the SQLAlchemy hook (``headwater run-script``).

Statements run one by one in autocommit mode, in order, and stop at the first that fails; each
successful one is reported to the collector by the hook, exactly as an application's would be.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sqlalchemy as sa

from headwater.extract.split import split_script
from headwater.hooks._session import SQLALCHEMY_DIALECTS
from headwater.hooks.dbapi import StatementSink
from headwater.hooks.sqlalchemy import instrument


@dataclass(frozen=True, slots=True)
class StatementRun:
    line: int
    sql: str
    error: str | None = None
    rows: int = -1


@dataclass(slots=True)
class ScriptRun:
    statements: list[StatementRun] = field(default_factory=list)

    @property
    def failed(self) -> StatementRun | None:
        return next((s for s in self.statements if s.error is not None), None)


def dialect_of(engine: sa.Engine) -> str:
    """The extraction dialect of an engine's backend (``mysql`` for MariaDB)."""
    return SQLALCHEMY_DIALECTS.get(engine.dialect.name, engine.dialect.name)


def run_script(engine: sa.Engine, script: str, collector: StatementSink) -> ScriptRun:
    """Execute every statement of ``script`` on one autocommit connection, reporting each success."""
    result = ScriptRun()
    pieces = split_script(script, dialect_of(engine))
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT", no_parameters=True) as conn:
        hook = instrument(engine, collector)
        try:
            for piece in pieces:
                try:
                    cursor = conn.exec_driver_sql(piece.sql)
                except sa.exc.DBAPIError as exc:
                    result.statements.append(StatementRun(piece.line, piece.sql, str(exc.orig).strip()))
                    break
                result.statements.append(StatementRun(piece.line, piece.sql, rows=cursor.rowcount))
                cursor.close()
        finally:
            hook.remove()
    return result
