"""The bulk paths of recording leave the tables the row-by-row path leaves, on both backends.

Memberships of the nodes a batch inserts are written by the database from their node rows
(``write.insert_memberships``, on PostgreSQL too), and PostgreSQL's array parameters are literals
made by ``pg_arrays``; compared with memberships built as Python rows and one row per statement,
every table holds the same rows (ids mapped to names, recording times left out).
"""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import text
from tests.store.conftest import _clear
from tests.store.test_record_bulk import _event, _workload

from headwater.model import TableRef
from headwater.store import open_store, write


def _tables(url: str) -> dict[str, list[str]]:
    """Every graph table's rows, ids replaced by node names and event ids, without clock times."""
    store = open_store(url)
    with store.engine.connect() as c:
        names = {i: (t, n) for i, t, n in c.execute(text("SELECT id, type, name FROM hw_nodes"))}
        evs = dict(c.execute(text("SELECT id, event_id FROM hw_events")).all())
        q = "SELECT type, name, short, parent_id, properties, created_us FROM hw_nodes"
        out = {"nodes": sorted(repr((*r[:3], names.get(r[3]), *r[4:])) for r in c.execute(text(q)))}
        q = "SELECT event_id, kind, job_id, run_key, event_us, status, payload_zlib, fingerprint FROM hw_events"
        out["events"] = sorted(repr((*r[:2], names.get(r[2]), *r[3:6], bytes(r[6]), r[7])) for r in c.execute(text(q)))
        q = (
            "SELECT type, src_id, dst_id, subtype, dependency, expression, labels, masking, job_id, event_pk, "
            "up_cost, down_cost, valid_from, valid_to FROM hw_edges"
        )
        out["edges"] = sorted(
            repr((r[0], names[r[1]], names[r[2]], *r[3:7], bool(r[7]), names.get(r[8]), evs.get(r[9]), *r[10:]))
            for r in c.execute(text(q))
        )
        q = "SELECT job_id, first_seen_us, last_seen_us, runs, file, line, closed_us FROM hw_jobs"
        out["jobs"] = sorted(repr((names[r[0]], *r[1:])) for r in c.execute(text(q)))
    return out


def _record(url: str) -> list[int]:
    store = open_store(url)
    opened = []
    batches = _workload()
    # a node whose name needs quoting in an array literal, and a second writer's view of the store
    odd = TableRef("internal", "db", 'we"ird\\na,me {x}')
    batches.insert(2, [_event(odd, TableRef("internal", "db", "t0"), 3, 30, "2024-01-05T12:00:00Z")])
    for batch in batches:
        if len(batch) == 1:
            opened.append(store.record(batch[0]).edges_opened)
        else:
            opened.append(store.record_batch(batch).edges_opened)
        store = open_store(url) if len(opened) == 3 else store  # an empty node cache from here on
    return opened


def test_bulk_paths_leave_the_rows_of_the_row_by_row_path(
    store_url: str, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    bulk = _record(store_url)
    a = _tables(store_url)
    if store_url.startswith("sqlite"):
        other = f"sqlite:///{tmp_path_factory.mktemp('plain') / 'lineage.db'}"
    else:
        _clear(store_url)
        other = store_url
    plain_contains = write._contains

    def no_bulk_contains(*args: Any, **kw: Any) -> Any:
        return plain_contains(*args, **{**kw, "by_database": False})

    monkeypatch.setattr(write, "MULTI_ROWS", 1)
    monkeypatch.setattr(write, "_contains", no_bulk_contains)
    monkeypatch.setattr(write, "MEMBERSHIPS_BY_DATABASE", False)
    plain = _record(other)
    b = _tables(other)
    assert bulk == plain
    assert a == b
    fields = sum(1 for r in a["nodes"] if r.startswith("('FIELD'"))
    contains = [r for r in a["edges"] if r.startswith("('CONTAINS'")]
    assert len(contains) >= fields > 300
    assert any('we""ird' in r for r in a["nodes"])  # written quoted: the name holds a double quote


def test_nodes_copied_by_another_writer_first_fall_back_to_the_conflict_insert(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PostgreSQL: when the COPY of new nodes meets a node another writer inserted (here a cache
    claiming to hold every stored node while it holds none), its savepoint is rolled back and the
    nodes go in with ``ON CONFLICT DO NOTHING``: the stored ones keep their ids, the others are new."""
    from sqlalchemy import func, select

    from headwater.store.from_event import event_facts
    from headwater.store.schema import nodes

    _clear(pg_url)
    store = open_store(pg_url)
    first = _event(TableRef("internal", "db", "a"), TableRef("internal", "db", "s"), 4, 1, "2024-01-01T00:00:00Z")
    store.record(first)
    second = _event(TableRef("internal", "db", "b"), TableRef("internal", "db", "s"), 4, 2, "2024-01-02T00:00:00Z")
    facts = event_facts(second)
    specs, born = write._mentions([facts])
    copies: list[object] = []
    copy_nodes = write._copy_nodes
    monkeypatch.setattr(write, "_copy_nodes", lambda *a: copies.append(copy_nodes(*a)) or copies[-1])
    with store.engine.connect() as conn, conn.begin():
        stored = {(t, n): i for i, t, n in conn.execute(select(nodes.c.id, nodes.c.type, nodes.c.name))}
        top = max(stored.values())
        lying = write.NodeCache(upto=top)  # "every node up to the largest id is known": none is
        staged = write.NodeCache(base=None)
        ids, inserted = write.ensure_nodes(conn, specs, born, lying, staged)
        old = [k for k in specs if k in stored]
        assert old and all(ids[k] == stored[k] for k in old)
        assert inserted == {k for k in specs if k not in stored}
        assert all(ids[k] > top for k in inserted)
        total = conn.execute(select(func.count()).select_from(nodes)).scalar_one()
        assert total == len(stored) + len(inserted)
    assert copies == [None]  # the COPY met a stored node: nothing of it stayed
    assert store.record(second).recorded == 1
    assert {o.field.name for o in store.get_field_origin("internal.db.b.c1").origins} == {"internal.db.s.c1"}


@pytest.mark.parametrize("count", [7, 8, 26, 43, 127, 300])
def test_insert_many_writes_the_rows_of_a_small_batch_in_few_statements(tmp_path: Any, count: int) -> None:
    """SQLite: the rows one ``record()`` writes (26 nodes, 43 edges of a new table's event) go in
    multi-row statements of halving sizes down to ``MULTI_MIN`` rows, the rest row by row, in order."""
    store = open_store(f"sqlite:///{tmp_path / 'a.db'}")
    rows = [(f"k{i:04d}", (i * 7919) % 1000) for i in reversed(range(count))]
    seen: list[str] = []
    with store.engine.begin() as conn:
        conn.connection.dbapi_connection.set_trace_callback(seen.append)  # type: ignore[union-attr]
        write.insert_many(conn, "INSERT INTO hw_meta (key, value) VALUES (?, ?)", rows)
        conn.connection.dbapi_connection.set_trace_callback(None)  # type: ignore[union-attr]
    with store.engine.connect() as conn:
        got = conn.exec_driver_sql("SELECT key, value FROM hw_meta WHERE key LIKE 'k%' ORDER BY rowid").all()
    store.close()
    assert [tuple(r) for r in got] == rows
    inserts = [s for s in seen if s.startswith("INSERT INTO hw_meta")]
    multi, rest = count - count % write.MULTI_MIN, count % write.MULTI_MIN
    assert len(inserts) == bin(multi // write.MULTI_MIN).count("1") + rest if count < 128 else len(inserts) < count


def test_a_long_transaction_copies_nodes_in_few_savepoints(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """PostgreSQL: past ``NODE_COPIES`` batches in one transaction the nodes take the ``ON CONFLICT``
    path (no more subtransactions); the recording is the same."""
    from headwater.store import store as store_module

    _clear(pg_url)
    monkeypatch.setattr(store_module, "BATCH", 2)
    monkeypatch.setattr(write, "NODE_COPIES", 2)
    copies: list[object] = []
    copy_nodes = write._copy_nodes
    monkeypatch.setattr(write, "_copy_nodes", lambda *a: copies.append(copy_nodes(*a)) or copies[-1])
    src = TableRef("internal", "db", "s")
    events = [_event(TableRef("internal", "db", f"t{k}"), src, 3, k, "2024-01-01T00:00:00Z") for k in range(8)]
    result = open_store(pg_url).record_batch(events)
    assert result.recorded == 8
    assert len(copies) == 4 and None not in copies[:2] and copies[2:] == [None, None]
    origins = open_store(pg_url).get_field_origin("internal.db.t7.c2").origins
    assert {o.field.name for o in origins} == {"internal.db.s.c2"}
