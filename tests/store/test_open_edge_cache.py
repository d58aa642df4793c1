"""A writer's cache of its jobs' open edges (``write.OpenEdges``, SQLite): a re-run of a job it
recorded reads no open edges (those it opened are read back by event), and every table is what a writer without the cache leaves,
across late events, other writers and deletions."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from tests.store.conftest import copy_event, spy_on_reads

from headwater.model import LineageInfo
from headwater.store import LineageStore, open_store, write
from headwater.store.schema import edges, events, nodes

MAPPING = {"a": [("s", "a")], "b": [("s", "b"), ("u", "b")]}
CHANGED = {"a": [("s", "a")], "b": [("u", "b")]}


def _run(n: int, mapping: dict[str, list[tuple[str, str]]] = MAPPING, at: str | None = None) -> LineageInfo:
    """A run of one job (same statement text, same target), its own query id and time."""
    return copy_event(
        "t", mapping, query_id=f"q{n}", timestamp=at or f"2024-05-01T10:{n:02d}:00Z", filters=(("s", "c"),)
    )


def _tables(store: LineageStore) -> list[list[tuple[Any, ...]]]:
    with store.engine.connect() as conn:
        out = []
        for table in (nodes, events, edges):
            cols = [c for c in table.c if c.name not in ("recorded_us", "created_us", "deleted_us", "id")]
            if table is events:
                cols.append(table.c.deleted_us.is_(None))
            out.append(sorted(conn.execute(select(*cols)).all(), key=repr))
    return out


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[list[int]]]:
    """The scopes each ``_load_open`` read."""
    yield spy_on_reads(monkeypatch, write, "_load_open")


def test_a_rerun_reads_no_open_edges(tmp_path: Path, loads: list[list[int]]) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'a.db'}")
    store.record(_run(1))  # a new job: nothing to read
    store.record(_run(2))  # read once, kept
    assert [s for s in loads if s]
    loads.clear()
    store.record(_run(3))
    store.record_batch([_run(4), _run(5)])
    assert not [s for s in loads if s]
    store.record(_run(6, CHANGED))  # asserts less: edges close and open, read from the cache too
    assert not [s for s in loads if s]
    store.record(_run(7, CHANGED))  # the ids of the edges run 6 opened were read back
    store.record_batch([_run(8), _run(9, CHANGED), _run(10)])
    assert not [s for s in loads if s]
    store.close()


def _job_name(store: LineageStore) -> str:
    with store.engine.connect() as conn:
        return conn.execute(select(nodes.c.name).where(nodes.c.type == "JOB")).scalar_one()


def _scenario(store: LineageStore, other: LineageStore) -> None:
    """Re-runs, changes, late events, another writer's runs and deletions, in turn."""
    for n in (1, 2, 3):
        store.record(_run(n))
    store.record(_run(4, at="2024-05-01T09:00:00Z"))  # late: the open edges start earlier
    store.record(_run(5))
    other.record(_run(6, CHANGED))  # another writer changes the job
    store.record(_run(7))
    store.record(_run(8))
    other.record(_run(9))  # another writer re-runs it: nothing new, but a newer event row
    for n in (10, 11, 12):
        store.record(_run(n, CHANGED))
    other.delete_lineage(event_id=_run(12, CHANGED).event_id, at="2024-05-01T10:12:30Z")
    store.record(_run(13, CHANGED))
    store.record(_run(14, CHANGED))
    other.delete_lineage(job=_job_name(store), at="2024-05-01T10:14:30Z")  # the job's edges close
    store.record(_run(15))
    store.record(_run(16))
    store.record_batch([_run(17), _run(18, CHANGED), _run(19, CHANGED)])
    store.record(_run(20, CHANGED))
    store.record(_run(21, CHANGED, at="2024-05-01T08:00:00Z"))  # late again
    store.record(_run(22, CHANGED))
    store.record(_run(23))


def test_the_tables_are_what_a_writer_without_the_cache_leaves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, loads: list[list[int]]
) -> None:
    results = []
    for with_cache in (True, False):
        if not with_cache:
            monkeypatch.setattr(write, "_keep_open", lambda *a: None)
        url = f"sqlite:///{tmp_path / f'{with_cache}.db'}"
        store, other = open_store(url), open_store(url)
        loads.clear()
        _scenario(store, other)
        results.append((_tables(store), len([s for s in loads if s])))
        store.close()
        other.close()
    (cached, cached_loads), (plain, plain_loads) = results
    assert cached == plain
    assert cached[2] and cached_loads < plain_loads  # edges written; the cache was used


def test_postgresql_keeps_no_cache(store: LineageStore, loads: list[list[int]]) -> None:
    """The cache is SQLite's (one writer at a time); PostgreSQL reads its open edges each time."""
    for n in range(1, 5):
        store.record(_run(n))
    assert len([s for s in loads if s]) == (1 if store.dialect == "sqlite" else 3)
