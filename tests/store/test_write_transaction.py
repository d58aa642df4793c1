"""A write's transaction on SQLite is begun and committed on the DBAPI connection
(``store._write_transaction``), and SQLAlchemy's own transaction on top when a statement of the write
goes through it (``reopen.returning``'s look-up of a project statement's replay): both commit together, a failure rolls both back,
and the connection goes back to the pool outside any transaction."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from sqlalchemy import event, func, select
from tests.store.conftest import copy_event

from headwater.model import LineageInfo
from headwater.model.job import JOB_FILE_PROPERTY
from headwater.store import open_store, write
from headwater.store.schema import edges, events, nodes


def _in_file(event: LineageInfo) -> LineageInfo:
    """``event`` as a project file's statement: its replay is looked up through SQLAlchemy."""
    props = {**event.context.external_catalog_properties, JOB_FILE_PROPERTY: "etl/load.sql"}
    return replace(event, context=replace(event.context, external_catalog_properties=props))


def _counts(store: Any) -> tuple[int, int, int]:
    with store.engine.connect() as conn:
        return tuple(conn.execute(select(func.count()).select_from(t)).scalar_one() for t in (nodes, edges, events))


def test_a_write_through_sqlalchemy_and_the_dbapi_commits_both(store_url: str) -> None:
    store = open_store(store_url)
    first = _in_file(copy_event("t1", {"a": [("s", "a")]}))
    store.record(first)
    # a replay (looked up through SQLAlchemy) beside a new event: one transaction
    result = store.record_batch([first, copy_event("t2", {"a": [("t1", "a")]}, query_id="q2")])
    assert (result.recorded, result.duplicates) == (1, 1)
    assert store.record(first).duplicates == 1  # SQLAlchemy's transaction alone, nothing written
    third = store.record(copy_event("t3", {"b": [("t2", "a")]}, query_id="q3"))  # the next write begins anew
    assert third.recorded == 1
    other = open_store(store_url)  # another engine: what it sees is committed
    try:
        origins = other.get_field_origin("internal.lineage_demo.t3.b", max_depth=None).origins
        assert {o.field.name for o in origins} == {"internal.lineage_demo.s.a"}  # through t2 and t1
        assert _counts(other)[2] == 3
    finally:
        other.close()
    with store.engine.connect() as conn:
        raw = conn.connection.dbapi_connection
        assert raw is not None
        if store.dialect == "sqlite":
            assert not raw.in_transaction
    store.close()


@pytest.mark.parametrize("replay", [False, True])
def test_a_failed_write_leaves_nothing_and_the_next_one_goes_in(
    store_url: str, monkeypatch: pytest.MonkeyPatch, replay: bool
) -> None:
    """The failure comes after the write's nodes and event rows; with ``replay`` SQLAlchemy's
    transaction was begun on top of the DBAPI one before it."""
    store = open_store(store_url)
    first = _in_file(copy_event("t1", {"a": [("s", "a")]}))
    store.record(first)
    before = _counts(store)
    insert_edges = write.insert_edges

    def broken(*args: Any) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(write, "insert_edges", broken)
    batch = [first] if replay else []
    batch.append(copy_event("t2", {"a": [("t1", "a")], "b": [("s", "b")]}, query_id="q2"))
    with pytest.raises(RuntimeError, match="disk on fire"):
        store.record_batch(batch)
    with pytest.raises(RuntimeError, match="disk on fire"):
        store.record(batch[-1])
    assert _counts(store) == before
    monkeypatch.setattr(write, "insert_edges", insert_edges)
    result = store.record_batch(batch)
    assert (result.recorded, result.duplicates) == (1, len(batch) - 1)
    assert {o.field.name for o in store.get_field_origin("internal.lineage_demo.t2.b").origins} == {
        "internal.lineage_demo.s.b"
    }
    store.close()


def test_sqlite_records_without_sqlalchemy_begin(tmp_path: Any) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'w.db'}")
    begun: list[object] = []
    event.listen(store.engine, "begin", begun.append)
    first = _in_file(copy_event("t1", {"a": [("s", "a")]}))
    store.record(first)
    store.record_batch([copy_event("t2", {"a": [("t1", "a")]}, query_id="q2")])
    assert begun == []
    store.record(first)  # a replay, looked up through SQLAlchemy: its transaction on top
    assert len(begun) == 1
    assert _counts(store)[2] == 2
    store.close()
