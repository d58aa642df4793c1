"""The read path's hot statements on PostgreSQL, executed on the pooled connection's own psycopg
cursor: the same SQL text SQLAlchemy would send, compiled once, without its per-execution work
(the execution context, parameter processing, the result proxy and its row objects), which cost
more server CPU than the statements' own round trips.

``rows(conn, stmt, params)`` is ``conn.execute(stmt, params).all()`` with rows that have the same
values and the same attribute names (named tuples). It takes the direct path only where the answer
is the same by construction: PostgreSQL, a connection of ``LineageStore``'s reads (``engine.READ``:
autocommit, so no transaction of SQLAlchemy's to keep in step), and a statement whose compiled form
has no result processors and no parameter expanded at run time (lists are one array
parameter, ``= ANY(…)``). Anything else goes through ``conn.execute``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from psycopg import Error as PsycopgError
from psycopg.pq import TransactionStatus
from psycopg.rows import namedtuple_row
from sqlalchemy import Connection, exc
from sqlalchemy.sql.expression import Executable

from headwater.store.engine import READ

_READ_KEY = next(iter(READ))
ENABLED = True
"""False sends every statement through ``conn.execute`` (the tests compare both paths)."""
Compiled = tuple[str, dict[str, Any], dict[str, Any]]
_compiled: dict[tuple[int, str], tuple[Executable, Compiled | None]] = {}
"""Per statement (by identity: the hot statements are built once) and dialect: the statement (which
keeps its id its own) and its SQL text, fixed parameter values and parameters' bind processors (an
array's makes a list), or None when it must go through SQLAlchemy."""
CACHED = 1024
"""Statements kept compiled at most (then the cache starts over)."""


def _compile(conn: Connection, stmt: Executable) -> Compiled | None:
    key = (id(stmt), conn.dialect.name)
    entry = _compiled.get(key)
    if entry is not None and entry[0] is stmt:
        return entry[1]
    compiled = stmt.compile(dialect=conn.dialect)  # type: ignore[attr-defined]
    late = [*compiled.literal_execute_params, *compiled.post_compile_params]
    processors = {k: f for k, f in compiled._bind_processors.items() if f is not None}
    given = {name for name, p in compiled.binds.items() if p.value is None and p.callable is None}
    plain = (  # processors only for the values given at run time (an array's), none for the rest
        all(p.value is not None and p.callable is None for p in late)
        and set(processors) <= given
        and not any(_result_processor(conn, col) for col in compiled._result_columns)
    )
    found = None
    if plain:  # IN lists of the statement's own values (edge types) are rendered in its text
        state = compiled.construct_expanded_state(compiled.construct_params(_check=False))
        found = (state.statement, dict(state.parameters), processors)
    if len(_compiled) >= CACHED:
        _compiled.clear()
    _compiled[key] = (stmt, found)
    return found


def _result_processor(conn: Connection, col: Any) -> Any:
    type_ = col[3]
    return type_.dialect_impl(conn.dialect).result_processor(conn.dialect, None)


def direct(conn: Connection) -> bool:
    """Whether ``conn``'s reads take the direct path: PostgreSQL, a read connection."""
    return ENABLED and conn.dialect.name == "postgresql" and bool(conn.get_execution_options().get(_READ_KEY))


def rows(conn: Connection, stmt: Executable, params: Mapping[str, Any] | None = None) -> Sequence[Any]:
    """``conn.execute(stmt, params).all()``; on a PostgreSQL read connection, on its psycopg cursor."""
    if not direct(conn):
        return conn.execute(stmt, dict(params or {})).all()
    found = _compile(conn, stmt)
    if found is None:
        return conn.execute(stmt, dict(params or {})).all()
    sql, fixed, processors = found
    bound = {**fixed, **params} if params else dict(fixed)
    for key, process in processors.items():
        bound[key] = process(bound[key])
    raw = conn.connection.driver_connection
    assert raw is not None
    if not raw.autocommit and raw.info.transaction_status == TransactionStatus.IDLE:
        raw.autocommit = True  # what engine.READ's "begin" sets: a read runs without a transaction
    try:
        with raw.cursor(row_factory=namedtuple_row) as cur:
            cur.execute(sql, bound)
            return cur.fetchall()
    except PsycopgError as e:
        if conn.dialect.is_disconnect(e, raw, None):
            conn.invalidate(e)
        raise exc.DBAPIError.instance(sql, bound, e, PsycopgError) from e


def scalar(conn: Connection, stmt: Executable, params: Mapping[str, Any] | None = None) -> Any:
    """The first column of the one row (or None without a row): ``scalar_one_or_none``."""
    found = rows(conn, stmt, params)
    if len(found) > 1:
        raise exc.MultipleResultsFound("Multiple rows were found when one or none was required")
    return found[0][0] if found else None
