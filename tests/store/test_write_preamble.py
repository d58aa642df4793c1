"""The reads a recording starts with: which of its events are stored, and the largest node and event
ids (where new rows' ids start on SQLite; whether the node cache is complete), in one statement
(``write._stored``) instead of three; and a single row of ``_executemany`` in one ``execute``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, func, select
from tests.store.conftest import copy_event

from headwater.store import open_store, write
from headwater.store.schema import events, nodes


def test_a_record_reads_stored_events_and_largest_ids_in_one_statement(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'a.db'}")
    store.record(copy_event("t1", {"a": [("s", "a")]}))
    seen: list[str] = []
    store.engine.dispose()

    @event.listens_for(store.engine, "connect")
    def _trace(dbapi_conn: Any, _record: object) -> None:
        dbapi_conn.set_trace_callback(seen.append)

    store.record(copy_event("t2", {"a": [("t1", "a")], "b": [("s", "b")]}))
    reads = [s for s in seen if s.lstrip().upper().startswith("SELECT")]
    assert not [s for s in reads if s.startswith("SELECT coalesce(max(id), 0)")]  # no read of its own
    assert len([s for s in reads if "max(id)" in s]) == 1
    # the ids went on from the largest ones: no gap, no clash
    with store.engine.connect() as conn:
        ids = sorted(conn.execute(select(nodes.c.id)).scalars())
        assert ids == list(range(1, len(ids) + 1))
        assert sorted(conn.execute(select(events.c.id)).scalars()) == [1, 2]
    assert {o.field.name for o in store.get_field_origin("internal.lineage_demo.t2.b").origins} == {
        "internal.lineage_demo.s.b"
    }


def test_stored_answers_alike_in_one_statement_or_in_chunks(store_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    store = open_store(store_url)
    first = copy_event("t1", {"a": [("s", "a")]})
    store.record(first)
    with store.engine.connect() as conn:
        top_node = conn.execute(select(func.max(nodes.c.id))).scalar_one()
        top_event = conn.execute(select(func.max(events.c.id))).scalar_one()
        asked = ["not-stored-1", first.event_id, "not-stored-2"]
        assert write._stored(conn, asked) == ({first.event_id}, top_node, top_event)
        assert write._stored(conn, []) == (set(), None, None)
        monkeypatch.setattr(write, "CHUNK", 2)  # more ids than one statement takes: the set alone
        assert write._stored(conn, asked) == ({first.event_id}, None, None)
    # a replay is still a duplicate, in a record() and in a batch
    assert store.record(first).duplicates == 1
    assert store.record_batch([first, copy_event("t3", {"a": [("s", "a")]})]).duplicates == 1


def test_one_row_of_executemany_is_one_execute(store_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """psycopg's ``executemany`` runs a pipeline (more waits on the server than one ``execute``)."""
    store = open_store(store_url)
    calls: list[str] = []
    real = write._cursor

    class Spy:
        def __init__(self, cursor: Any) -> None:
            self._cursor = cursor

        def executemany(self, sql: str, rows: Any) -> Any:
            calls.append("executemany")
            return self._cursor.executemany(sql, rows)

        def execute(self, sql: str, params: Any = None) -> Any:
            calls.append("execute")
            return self._cursor.execute(sql, params)

        def close(self) -> None:
            self._cursor.close()

    monkeypatch.setattr(write, "_cursor", lambda conn: Spy(real(conn)))
    mark = "%s" if store.dialect == "postgresql" else "?"
    with store.engine.begin() as conn:
        write._executemany(conn, f"INSERT INTO hw_meta (key, value) VALUES ({mark}, {mark})", [["one", 1]])
        write._executemany(conn, f"INSERT INTO hw_meta (key, value) VALUES ({mark}, {mark})", [("a", 2), ("b", 3)])
    assert calls == ["execute", "executemany"]
    with store.engine.connect() as conn:
        got = conn.exec_driver_sql("SELECT key, value FROM hw_meta WHERE key IN ('one', 'a', 'b') ORDER BY key")
        assert [tuple(r) for r in got] == [("a", 2), ("b", 3), ("one", 1)]


def test_jobs_rows_go_in_the_pipeline_of_the_memberships(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """PostgreSQL: the upsert of ``hw_jobs`` is sent in pipeline mode with the memberships (no wait
    on the server of its own), and its rows are those of a recording without the pipeline."""
    from tests.store.conftest import _clear

    _clear(pg_url)
    store = open_store(pg_url)
    modes: list[bool] = []
    seen_jobs = write._seen_jobs

    def spy(conn: Any, *args: Any) -> None:
        modes.append(conn.connection.dbapi_connection._pipeline is not None)
        seen_jobs(conn, *args)

    monkeypatch.setattr(write, "_seen_jobs", spy)
    store.record(copy_event("t1", {"a": [("s", "a")]}, "r1", timestamp="2024-05-01T10:00:00Z"))
    store.record(copy_event("t1", {"a": [("s", "b")]}, "r2", timestamp="2024-05-02T10:00:00Z"))
    store.record_batch([copy_event("t2", {"a": [("s", "a")]}, "r3"), copy_event("t3", {"a": [("s", "a")]}, "r4")])
    assert modes == [True, True, True]
    with store.engine.connect() as conn:
        runs = conn.exec_driver_sql("SELECT runs FROM hw_jobs ORDER BY runs DESC").scalars().all()
    assert runs[0] == 2 and len(runs) == 3


def test_sqlite_binds_no_null_labels_nor_bools(tmp_path: Path) -> None:
    """SQLite: edge rows without labels go in a statement that leaves the column NULL, and masking is
    bound as an integer (pysqlite binds None and bool through its adapter protocol, a failed
    attribute look-up each); the stored rows are the same."""
    from headwater.model import (
        ColumnRef,
        DirectInput,
        DirectLineage,
        DirectType,
        Field,
        LineageInfo,
        Origin,
        QueryContext,
        SourceCommand,
        TableRef,
        Target,
    )

    src, dst = TableRef("internal", "db", "s"), TableRef("internal", "db", "t")
    a, b = ColumnRef(src, "a"), ColumnRef(src, "b")
    direct = (
        DirectLineage("x", "upper(a)", DirectType.TRANSFORMATION, Origin.COLUMN, (a,), (DirectInput(a, ("UPPER",)),)),
        DirectLineage("y", "b", DirectType.IDENTITY, Origin.COLUMN, (b,), (DirectInput(b, (), masking=True),)),
    )
    ctx = QueryContext(SourceCommand.INSERT_INTO, "q1", "INSERT INTO db.t SELECT upper(a), b FROM db.s")
    lineage = LineageInfo(
        "e1", SourceCommand.INSERT_INTO, Target(dst, (Field("x"), Field("y"))), (src,), direct, (), (), ctx
    )
    store = open_store(f"sqlite:///{tmp_path / 'a.db'}")
    seen: list[str] = []
    store.engine.dispose()

    @event.listens_for(store.engine, "connect")
    def _trace(dbapi_conn: Any, _record: object) -> None:
        dbapi_conn.set_trace_callback(seen.append)

    store.record(lineage)
    nodes_sql = [s for s in seen if s.startswith("INSERT INTO hw_nodes")]
    edges_sql = [s for s in seen if s.startswith("INSERT INTO hw_edges") and "'CONTAINS'" not in s]
    assert nodes_sql and all("properties" in s.partition("VALUES")[0] for s in nodes_sql)  # one shape: id order
    assert any("labels" not in s.partition("VALUES")[0] for s in edges_sql)
    with store.engine.connect() as conn:
        q = (
            "SELECT s.name, d.name, e.labels, e.masking, typeof(e.masking) FROM hw_edges e "
            "JOIN hw_nodes s ON s.id = e.src_id JOIN hw_nodes d ON d.id = e.dst_id WHERE e.type = 'MAPS_TO'"
        )
        rows = sorted(tuple(r) for r in conn.exec_driver_sql(q))
        props = dict(conn.exec_driver_sql("SELECT name, properties FROM hw_nodes").all())
    assert rows == [
        ("internal.db.s.a", "internal.db.t.x", "UPPER", 0, "integer"),
        ("internal.db.s.b", "internal.db.t.y", None, 1, "integer"),
    ]
    assert props["internal.db.t.x"] is None and props["internal.db.s.a"] is None
    assert any(p is not None for p in props.values())  # the job's properties
