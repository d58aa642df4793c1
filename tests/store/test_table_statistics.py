"""PostgreSQL's table statistics are refreshed off the writer's path: the look at them and its
ANALYZEs run on a thread of their own with their own connection, and a store's ``close`` waits for it."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import event, text
from tests.store.conftest import _clear, guide

from headwater.store import LineageStore, open_store, table_statistics
from headwater.store.engine import READ, database_key, make_engine
from headwater.store.migrate import upgrade


@pytest.fixture
def pg_store(pg_url: str) -> Iterator[LineageStore]:
    engine = make_engine(pg_url)
    upgrade(engine)
    engine.dispose()
    _clear(pg_url)
    store = open_store(pg_url)
    yield store
    store.close()


def test_the_writer_never_waits_for_the_statistics(pg_store: LineageStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(table_statistics, "_written", {})  # this process's first write: a look is due
    seen: list[tuple[str, str]] = []

    def spy(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        seen.append((threading.current_thread().name, statement))

    event.listen(pg_store.engine, "before_cursor_execute", spy)
    assert pg_store.record(guide()).recorded == 1
    look = table_statistics._looks[database_key(pg_store.engine)]
    pg_store.close()  # waits for the look
    assert not look.is_alive()
    looked = [name for name, sql in seen if "pg_stat_user_tables" in sql]
    assert looked == ["headwater-statistics"]
    assert not [sql for name, sql in seen if name != "headwater-statistics" and "ANALYZE" in sql.upper()]


def test_a_look_analyzes_the_tables_that_changed_by_half(pg_store: LineageStore) -> None:
    engine = pg_store.engine
    count = text("SELECT analyze_count FROM pg_stat_user_tables WHERE relid = to_regclass('hw_nodes')")
    with engine.connect().execution_options(**READ) as conn:  # autocommit (``make_engine``)
        conn.execute(text("ALTER TABLE hw_nodes SET (autovacuum_enabled = off)"))  # no analysis but ours
        try:
            conn.execute(text("ANALYZE hw_nodes"))  # empty now: 1,500 new rows are more than half
            before = conn.execute(count).scalar_one()
            conn.execute(
                text(
                    "INSERT INTO hw_nodes (type, name, short, created_us) "
                    "SELECT 'DATASET', 'statistics_' || g, 'statistics_' || g, 0 FROM generate_series(1, 1500) g"
                )
            )
            conn.execute(text("SELECT pg_stat_force_next_flush()"))  # this connection's counts, once idle
            conn.execute(text("SELECT 1"))
            assert "hw_nodes" in table_statistics.analyze_grown(engine)
            assert conn.execute(count).scalar_one() == before + 1
            # the analysis was committed: the planner's statistics describe the new rows (all created at 0)
            common = "SELECT most_common_vals::text FROM pg_stats WHERE schemaname = current_schema() AND "
            assert conn.execute(text(common + "tablename = 'hw_nodes' AND attname = 'created_us'")).scalar() == "{0}"
        finally:
            conn.execute(text("DELETE FROM hw_nodes WHERE name LIKE 'statistics\\_%'"))
            conn.execute(text("ALTER TABLE hw_nodes RESET (autovacuum_enabled)"))
