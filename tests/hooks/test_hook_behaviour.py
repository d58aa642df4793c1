"""Hook details against the real databases: failures give no event, results and exceptions unchanged,
placeholders, USE, executescript, psycopg's composed SQL, and exactly what reaches the extractor."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pymysql
import pytest
import sqlalchemy as sa
from psycopg import sql as pgsql

from headwater.dispatch import DispatchSettings, LineageDispatch, start_dispatch
from headwater.dispatch.testing import ListExtract, RecordingPlugin, StaticFactory, discovery_of
from headwater.hooks.dbapi import ConnectionProxy, CursorProxy, wrap
from headwater.hooks.sqlalchemy import instrument

ERRORS = {
    "sqlite": sqlite3.OperationalError,
    "mariadb": pymysql.err.ProgrammingError,
    "postgres": psycopg.errors.UndefinedTable,
}


@pytest.fixture
def spy() -> Iterator[tuple[LineageDispatch, ListExtract, RecordingPlugin]]:
    """A dispatch whose extract step only records what it is given."""
    extract = ListExtract()
    plugin = RecordingPlugin("rec", [])
    d = start_dispatch(
        DispatchSettings(plugin_dir=None),  # type: ignore[arg-type]
        extract=extract,
        discovery=discovery_of(StaticFactory("rec", lambda ctx: plugin)),
    )
    yield d, extract, plugin
    d.close()


def _setup(backend: str, tmp_path: Path, dbapi_connect: Callable, cleanup: Callable, suffix: str) -> tuple[str, str]:
    src, dst = f"hw_src_{suffix}", f"hw_dst_{suffix}"
    cleanup(backend, [src, dst])
    conn = dbapi_connect(backend, tmp_path)
    try:
        cur = conn.cursor()
        cur.execute(f"CREATE TABLE {src} (a INT, b INT)")
        cur.execute(f"CREATE TABLE {dst} (a INT)")
        cur.execute(f"INSERT INTO {src} VALUES (1, 10), (2, 20)")
    finally:
        conn.close()
    return src, dst


@pytest.mark.parametrize("backend", ["sqlite", "mariadb", "postgres"])
def test_failing_statement_gives_no_event_and_the_same_exception(
    backend: str, tmp_path: Path, spy: Any, dbapi_connect: Callable, cleanup: Callable, suffix: str
) -> None:
    d, extract, _ = spy
    src, dst = _setup(backend, tmp_path, dbapi_connect, cleanup, suffix)
    conn = wrap(dbapi_connect(backend, tmp_path), d.collector)
    try:
        cur = conn.cursor()
        with pytest.raises(ERRORS[backend]) as info:
            cur.execute(f"INSERT INTO {dst} SELECT a FROM hw_missing_{suffix}")
        assert type(info.value) is ERRORS[backend]
        cur.execute(f"INSERT INTO {dst} SELECT a FROM {src}")
    finally:
        conn.close()
    assert [sql for sql, _, _ in extract.calls] == [f"INSERT INTO {dst} SELECT a FROM {src}"]
    assert d.snapshot().submitted == 1


@pytest.mark.parametrize("backend", ["sqlite", "mariadb", "postgres"])
def test_application_sees_its_own_results(
    backend: str, tmp_path: Path, spy: Any, dbapi_connect: Callable, cleanup: Callable, suffix: str
) -> None:
    d, _, _ = spy
    src, _ = _setup(backend, tmp_path, dbapi_connect, cleanup, suffix)
    raw = dbapi_connect(backend, tmp_path)
    conn = wrap(raw, d.collector)
    try:
        assert isinstance(conn, ConnectionProxy) and conn.wrapped is raw
        cur = conn.cursor()
        returned = cur.execute(f"SELECT a, b FROM {src} ORDER BY a")
        if backend == "mariadb":
            assert returned == 2  # pymysql returns the row count
        else:
            assert returned is cur  # sqlite3 and psycopg return the cursor
        assert [tuple(r) for r in cur.fetchall()] == [(1, 10), (2, 20)]
        assert isinstance(cur, CursorProxy)
        cur.execute(f"SELECT a FROM {src} ORDER BY a")
        assert [r[0] for r in cur] == [1, 2]
    finally:
        conn.close()


def test_pymysql_placeholders_use_and_context(
    tmp_path: Path, spy: Any, dbapi_connect: Callable, cleanup: Callable, suffix: str
) -> None:
    d, extract, _ = spy
    src, dst = _setup("mariadb", tmp_path, dbapi_connect, cleanup, suffix)
    conn = wrap(pymysql.connect(host="127.0.0.1", port=3306, user="root", password="", autocommit=True), d.collector)
    try:
        cur = conn.cursor()
        cur.execute("USE test")
        assert cur.execute(f"INSERT INTO {dst} SELECT a FROM {src} WHERE b = %s AND 'x' LIKE 'x%%'", (10,)) == 1
        assert cur.execute(f"INSERT INTO {dst} SELECT a FROM {src} WHERE b = %(b)s", {"b": 20}) == 1
    finally:
        conn.close()
    assert [(sql, dialect) for sql, _, dialect in extract.calls] == [
        ("USE test", "mysql"),
        (f"INSERT INTO {dst} SELECT a FROM {src} WHERE b = ? AND 'x' LIKE 'x%'", "mysql"),
        (f"INSERT INTO {dst} SELECT a FROM {src} WHERE b = ?", "mysql"),
    ]
    runs = [run for _, run, _ in extract.calls]
    assert runs[0].database is None  # connected without a database
    assert [(r.user, r.database, r.client_ip) for r in runs[1:]] == [("root", "test", "127.0.0.1")] * 2
    assert len({r.query_id for r in runs}) == 3


def test_sqlite_executescript_reports_each_statement(tmp_path: Path, spy: Any) -> None:
    d, extract, _ = spy
    conn = wrap(sqlite3.connect(tmp_path / "s.sqlite"), d.collector)
    conn.executescript("CREATE TABLE s (a INT); CREATE TABLE t (a INT);\nINSERT INTO t SELECT a FROM s;")
    with pytest.raises(sqlite3.OperationalError):
        conn.executescript("INSERT INTO t SELECT a FROM nowhere;")
    conn.close()
    assert [sql for sql, _, _ in extract.calls] == [
        "CREATE TABLE s (a INT)",
        "CREATE TABLE t (a INT)",
        "INSERT INTO t SELECT a FROM s",
    ]


def test_psycopg_composed_sql_connection_execute_and_context_managers(
    tmp_path: Path, spy: Any, dbapi_connect: Callable, cleanup: Callable, suffix: str
) -> None:
    d, extract, _ = spy
    src, dst = _setup("postgres", tmp_path, dbapi_connect, cleanup, suffix)
    with wrap(psycopg.connect("host=127.0.0.1 user=postgres dbname=test"), d.collector, database="public") as conn:
        query = pgsql.SQL("INSERT INTO {} SELECT a FROM {} WHERE b = %s").format(
            pgsql.Identifier(dst), pgsql.Identifier(src)
        )
        cur = conn.execute(query, (10,))
        assert isinstance(cur, CursorProxy) and cur.rowcount == 1
        with conn.cursor() as c2:
            c2.execute(f"SELECT count(*) FROM {dst}")
            assert c2.fetchone() == (1,)
    assert [sql for sql, _, _ in extract.calls] == [  # the SELECT never reaches the extractor
        f'INSERT INTO "{dst}" SELECT a FROM "{src}" WHERE b = ?'
    ]
    assert extract.calls[0][1].database == "public" and extract.calls[0][2] == "postgres"


def test_sqlalchemy_text_with_bound_parameters_and_failures(
    tmp_path: Path, spy: Any, dbapi_connect: Callable, cleanup: Callable, suffix: str, engine_for: Callable
) -> None:
    d, extract, _ = spy
    src, dst = _setup("mariadb", tmp_path, dbapi_connect, cleanup, suffix)
    engine = engine_for("mariadb", tmp_path)
    engine.connect().close()
    hook = instrument(engine, d.collector)
    try:
        with engine.begin() as conn:
            conn.execute(sa.text(f"INSERT INTO {dst} SELECT a FROM {src} WHERE b = :b"), {"b": 10})
            with pytest.raises(sa.exc.ProgrammingError):
                conn.execute(sa.text(f"INSERT INTO {dst} SELECT a FROM hw_missing_{suffix}"))
    finally:
        hook.remove()
        engine.dispose()
    assert [(sql, dialect) for sql, _, dialect in extract.calls] == [
        (f"INSERT INTO {dst} SELECT a FROM {src} WHERE b = ?", "mysql")
    ]
    run = extract.calls[0][1]
    assert (run.user, run.database, run.client_ip) == ("root", "test", "127.0.0.1")


def test_nothing_is_extracted_when_no_plugin_wants_events(tmp_path: Path) -> None:
    extract = ListExtract()
    d = start_dispatch(
        DispatchSettings(plugin_dir=None),  # type: ignore[arg-type]
        extract=extract,
        discovery=discovery_of(StaticFactory("no", lambda ctx: RecordingPlugin("no", [], wants=False))),
    )
    conn = wrap(sqlite3.connect(tmp_path / "n.sqlite"), d.collector)
    conn.execute("CREATE TABLE s (a INT)")
    conn.execute("CREATE TABLE t AS SELECT a FROM s")
    conn.close()
    d.close()
    assert extract.calls == [] and (d.snapshot().submitted, d.snapshot().skipped) == (2, 2)
