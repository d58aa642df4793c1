"""``run_script`` against the real databases: a rejected statement is recorded and the script goes on
(or stops, with ``stop_on_error``); only the statements that succeeded reach the extractor."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from headwater.dispatch import DispatchSettings, LineageDispatch, start_dispatch
from headwater.dispatch.testing import ListExtract, RecordingPlugin, StaticFactory, discovery_of
from headwater.hooks.script import CONNECTION_LOST, STOP_ON_ERROR, run_script

BACKENDS = ("sqlite", "mariadb", "postgres")


@pytest.fixture
def spy() -> Iterator[tuple[LineageDispatch, ListExtract]]:
    """A dispatch whose extract step only records the statements reported to it."""
    extract = ListExtract()
    d = start_dispatch(
        DispatchSettings(plugin_dir=None),  # type: ignore[arg-type]
        extract=extract,
        discovery=discovery_of(StaticFactory("rec", lambda ctx: RecordingPlugin("rec", []))),
    )
    yield d, extract
    d.close()


def _script(suffix: str) -> tuple[list[str], list[str], str]:
    """(tables, statements, script): statements 3 and 6 are rejected by every database."""
    src, dst, missing = f"hw_rs_src_{suffix}", f"hw_rs_dst_{suffix}", f"hw_rs_missing_{suffix}"
    statements = [
        f"CREATE TABLE {src} (a INT)",
        f"INSERT INTO {src} VALUES (1), (2)",
        f"INSERT INTO {missing} SELECT a FROM {src}",
        f"CREATE TABLE {dst} (a INT)",
        f"INSERT INTO {dst}\nSELECT a FROM {src}",
        f"SELECT no_such_column FROM {src}",
        f"INSERT INTO {dst} SELECT a + 1 FROM {src}",
    ]
    script = ";\n".join(statements[:3]) + ";\n\n" + ";\n".join(statements[3:]) + ";\n"
    return [src, dst, missing], statements, script


def _message_starts(backend: str, suffix: str) -> dict[int, str]:
    """How the database's message for statements 3 and 6 (index 2 and 5) starts."""
    missing = f"hw_rs_missing_{suffix}"
    return {
        "sqlite": {2: f"no such table: {missing}", 5: "no such column: no_such_column"},
        # MariaDB versions differ in the end of 1054's message ('field list' / 'SELECT')
        "mariadb": {
            2: f"(1146, \"Table 'test.{missing}' doesn't exist\")",
            5: "(1054, \"Unknown column 'no_such_column' in",
        },
        "postgres": {
            2: f'relation "{missing}" does not exist\nLINE 1: ',
            5: 'column "no_such_column" does not exist\nLINE 1: ',
        },
    }[backend]


def _count(engine: sa.Engine, table: str) -> int:
    with engine.connect() as conn:
        return conn.exec_driver_sql(f"SELECT COUNT(*) FROM {table}").scalar_one()


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_rejected_statement_does_not_stop_the_others(
    backend: str, tmp_path: Path, spy: tuple, engine_for: Callable, cleanup: Callable, suffix: str
) -> None:
    d, extract = spy
    tables, statements, script = _script(suffix)
    cleanup(backend, tables)
    engine = engine_for(backend, tmp_path)
    try:
        result = run_script(engine, script, d.collector)
        d.close()
        assert [(s.index, s.line, s.error is None) for s in result.statements] == [
            (0, 1, True),
            (1, 2, True),
            (2, 3, False),
            (3, 5, True),
            (4, 6, True),
            (5, 8, False),
            (6, 9, True),
        ]
        starts = _message_starts(backend, suffix)
        assert [s.index for s in result.failures] == list(starts)
        for s in result.failures:
            assert s.error is not None and s.error.startswith(starts[s.index]), s.error
        assert result.failed is result.statements[2]
        assert (result.stopped, result.not_run) == (None, 0)
        assert _count(engine, tables[1]) == 4
    finally:
        engine.dispose()
    # only what succeeded was reported, so only that can make lineage
    assert [sql for sql, _, _ in extract.calls] == [statements[k] for k in (0, 1, 3, 4, 6)]


@pytest.mark.parametrize("backend", ["sqlite", "mariadb"])
def test_stop_on_error_stops_at_the_first_rejected_statement(
    backend: str, tmp_path: Path, spy: tuple, engine_for: Callable, cleanup: Callable, suffix: str
) -> None:
    d, extract = spy
    tables, statements, script = _script(suffix)
    cleanup(backend, tables)
    engine = engine_for(backend, tmp_path)
    try:
        result = run_script(engine, script, d.collector, stop_on_error=True)
        d.close()
        assert [(s.index, s.error is None) for s in result.statements] == [(0, True), (1, True), (2, False)]
        assert (result.stopped, result.not_run) == (STOP_ON_ERROR, 4)
        assert not sa.inspect(engine).has_table(tables[1])
    finally:
        engine.dispose()
    assert [sql for sql, _, _ in extract.calls] == statements[:2]


def test_a_lost_connection_stops_the_script_even_without_stop_on_error(
    tmp_path: Path, spy: tuple, engine_for: Callable, cleanup: Callable, suffix: str
) -> None:
    """Every later statement would fail, and the session they were written for is gone."""
    d, extract = spy
    table = f"hw_rs_lost_{suffix}"
    cleanup("mariadb", [table])
    script = f"CREATE TABLE {table} (a INT);\nKILL CONNECTION CONNECTION_ID();\nINSERT INTO {table} VALUES (1);\n"
    engine = engine_for("mariadb", tmp_path)
    try:
        result = run_script(engine, script, d.collector)
        d.close()
        assert [(s.index, s.error) for s in result.statements] == [(0, None), (1, "(1927, 'Connection was killed')")]
        assert (result.stopped, result.not_run) == (CONNECTION_LOST, 1)
        assert _count(engine, table) == 0
    finally:
        engine.dispose()
    assert [sql for sql, _, _ in extract.calls] == [f"CREATE TABLE {table} (a INT)"]
