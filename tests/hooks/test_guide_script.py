"""The guide's example script run end to end through each hook against each real database."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from headwater.dispatch.sample import guide_event, guide_result_query, guide_script, guide_tables
from headwater.hooks.dbapi import wrap
from headwater.hooks.sqlalchemy import instrument
from headwater.model import LineageInfo, SourceCommand

CONTEXT = {  # user, client address, session database
    "sqlite": (None, None, "main"),
    "mariadb": ("root", "127.0.0.1", "test"),
    "postgres": ("postgres", "127.0.0.1", "public"),
}
GUIDE_ROWS = [(1, "EAST", 150, 1, "CORE"), (2, "WEST", 80, 2, "OTHER")]


def _facts(e: LineageInfo, suffix: str) -> tuple:
    """The event's lineage with the tables' unique suffix removed (comparable with the guide's)."""

    def x(text: str) -> str:
        # expressions are rendered in each backend's dialect: compare them without identifier quotes
        text = text.replace("`", "").replace('"', "")
        return text.replace(f"_{suffix}", "") if suffix else text

    return (
        x(e.target.table.name),
        [x(t.name) for t in e.sources],
        [(d.target_column, d.type.value, x(d.expression), [x(str(c.column)) for c in d.sources]) for d in e.direct],
        [(i.type.value, x(i.expression)) for i in e.dataset_indirect],
        [(i.target_column, i.type.value, x(i.expression)) for i in e.output_indirect],
    )


def _check(recorder: Any, backend: str, s: str, rows: list) -> None:
    recorder.dispatch.close()
    assert [tuple(v if isinstance(v, str) else int(v) for v in r) for r in rows] == GUIDE_ROWS
    [event] = recorder.plugin.events  # the DDL, the two VALUES inserts and the SELECT make none
    assert _facts(event, s) == _facts(guide_event(), "")
    assert event.status.value == "COMPLETE" and event.source_command == SourceCommand.INSERT_INTO
    user, ip, database = CONTEXT[backend]
    ctx = event.context
    assert (ctx.user, ctx.client_ip, ctx.database, ctx.catalog, ctx.state) == (user, ip, database, "internal", "OK")
    assert event.target.table.database == database
    assert re.fullmatch(r"[0-9a-f]{32}", ctx.query_id) and ctx.duration_ms >= 0
    assert datetime.fromisoformat(ctx.timestamp or "").tzinfo is not None
    assert ctx.sql == guide_script(s)[-1]
    snap = recorder.dispatch.snapshot()
    assert (snap.submitted, snap.excluded, snap.extracted, snap.dropped) == (7, 6, 1, 0)
    assert snap.plugins["rec"].dispatched == 1


@pytest.mark.parametrize("backend", ["sqlite", "mariadb", "postgres"])
def test_dbapi_hook_runs_the_guide_script(
    backend: str, tmp_path: Path, recorder: Any, suffix: str, cleanup: Callable, dbapi_connect: Callable
) -> None:
    cleanup(backend, guide_tables(suffix))
    conn = wrap(dbapi_connect(backend, tmp_path), recorder.dispatch.collector)
    try:
        cur = conn.cursor()
        for statement in guide_script(suffix):
            cur.execute(statement)
        cur.execute(guide_result_query(suffix))
        rows = list(cur.fetchall())
    finally:
        conn.close()
    _check(recorder, backend, suffix, rows)


@pytest.mark.parametrize("backend", ["sqlite", "mariadb", "postgres"])
def test_sqlalchemy_hook_runs_the_guide_script(
    backend: str, tmp_path: Path, recorder: Any, suffix: str, cleanup: Callable, engine_for: Callable
) -> None:
    cleanup(backend, guide_tables(suffix))
    engine = engine_for(backend, tmp_path)
    engine.connect().close()  # the dialect's own first-connect queries happen before instrumenting
    hook = instrument(engine, recorder.dispatch.collector)
    try:
        with engine.begin() as conn:
            for statement in guide_script(suffix):
                conn.exec_driver_sql(statement)
            rows = list(conn.exec_driver_sql(guide_result_query(suffix)).fetchall())
    finally:
        hook.remove()
        engine.dispose()
    _check(recorder, backend, suffix, rows)
