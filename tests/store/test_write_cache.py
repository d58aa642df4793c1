"""The writer's node cache on SQLite: a cache that holds every stored node (a writer that started
from an empty store) spares the lookup by name of new nodes, and a node another writer inserted is
still found by name (no second node of one name)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import event, func, select
from tests.store.conftest import copy_event

from headwater.store import LineageStore, open_store
from headwater.store.schema import nodes


def _statements(store: LineageStore) -> list[str]:
    """The statements the store's SQLite connections run from now on (every pooled connection)."""
    seen: list[str] = []
    engine = store.engine
    engine.dispose()

    @event.listens_for(engine, "connect")
    def _trace(dbapi_conn: object, _record: object) -> None:
        dbapi_conn.set_trace_callback(seen.append)  # type: ignore[attr-defined]

    return seen


def test_complete_cache_reads_no_node_by_name(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'a.db'}")
    store.record(copy_event("t1", {"a": [("s", "a")]}))
    seen = _statements(store)
    store.record(copy_event("t2", {"a": [("t1", "a")], "b": [("s", "b")]}))
    assert any("INSERT INTO hw_edges" in s for s in seen)
    by_name = [s for s in seen if "FROM hw_nodes WHERE name IN" in s]
    props = [s for s in seen if "hw_nodes.properties" in s and s.lstrip().upper().startswith("SELECT")]
    assert by_name == [] and props == []
    assert store.get_field_origin("internal.lineage_demo.t2.a").origins


def test_nodes_of_another_writer_are_found(store_url: str) -> None:
    a, b = open_store(store_url), open_store(store_url)
    a.record(copy_event("t1", {"x": [("s", "x")]}))
    b.record(copy_event("t2", {"x": [("t1", "x")], "y": [("u", "y")]}))  # b's nodes: t2, u …
    a.record(copy_event("t3", {"x": [("t2", "x")], "y": [("u", "y")]}))  # … which a never saw
    a.record_batch([copy_event("t4", {"y": [("u", "y")]}), copy_event("t5", {"y": [("t4", "y")]})])
    with a.engine.connect() as conn:
        total = conn.execute(select(func.count()).select_from(nodes)).scalar_one()
        names = conn.execute(select(func.count(func.distinct(nodes.c.name)))).scalar_one()
    assert total == names
    origins = {o.field.name for o in a.get_field_origin("internal.lineage_demo.t3.y").origins}
    assert origins == {"internal.lineage_demo.u.y"}
    assert {o.field.name for o in a.get_field_origin("internal.lineage_demo.t5.y").origins} == {
        "internal.lineage_demo.u.y"
    }
    a.close()
    b.close()
