"""Thread-safe, idempotent recording from many threads; the migration matches the table metadata."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import func, select
from tests.pg_schema import fresh_schema_url
from tests.store.conftest import copy_event, guide

from headwater.store import open_store
from headwater.store.engine import make_engine
from headwater.store.migrate import VERSION_TABLE, current_revision, head_revision, upgrade
from headwater.store.schema import edges, meta, metadata, nodes


def test_concurrent_record_is_idempotent(store_url: str) -> None:
    events = [copy_event(f"t{k}", {"a": [("s", "a")], "b": [("s", "b")]}) for k in range(12)] + [guide()]

    def worker(i: int) -> int:
        store = open_store(store_url)
        return sum(store.record(e).recorded for e in events[i % 3 :] + events[: i % 3])

    with ThreadPoolExecutor(8) as pool:
        recorded = sum(pool.map(worker, range(8)))
    store = open_store(store_url)
    assert recorded == len(events)
    assert store.get_lineage_stats().events_recorded == len(events)
    with store.engine.connect() as conn:
        total = conn.execute(select(func.count()).select_from(edges)).scalar_one()
    # 12 x (2 MAPS_TO + READ + WRITE + 3 CONTAINS for t_k) + guide, s's CONTAINS once
    st = store.get_lineage_stats()
    assert st.edges_by_type["READ"] == 12 + 2 and st.edges_by_type["WRITE"] == 13
    assert st.edges_by_type["MAPS_TO"] == 12 * 2 + 45
    # the guide's 40 dataset-level MAPS_TO are stored as 8 MAPS_TO_ALL rows (one per source field and type)
    assert total == st.total_edges - 40 + 8


def test_migration_matches_metadata(store_url: str) -> None:
    store = open_store(store_url)
    assert current_revision(store.engine) == head_revision() == "0003"
    with store.engine.connect() as conn:
        ctx = MigrationContext.configure(conn, opts={"version_table": VERSION_TABLE})
        diffs = compare_metadata(ctx, metadata)
    assert [d for d in diffs if not (d[0] == "remove_table" and d[1].name == VERSION_TABLE)] == []


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_store_made_at_0001_upgrades_and_keeps_its_lineage(backend: str, tmp_path: Path) -> None:
    with ExitStack() as stack:
        url = (
            f"sqlite:///{tmp_path / 'old.db'}"
            if backend == "sqlite"
            else stack.enter_context(fresh_schema_url("hw_mig"))
        )
        engine = make_engine(url)
        stack.callback(engine.dispose)
        assert upgrade(engine, "0001") == "0001"
        with engine.begin() as conn:  # an event recorded by the 0001 schema's writer, as rows
            conn.execute(nodes.insert().values(type="DATASET", name="internal.db.s", short="s", created_us=1))
        assert upgrade(engine) == head_revision() == "0003"
        store = open_store(url)
        stack.callback(store.close)
        store.record(guide())
        store.delete_lineage(dataset="internal.lineage_demo.lineage_orders")
        with engine.connect() as conn:
            assert conn.execute(select(meta.c.value).where(meta.c.key == "membership_epoch")).scalar_one() == 1
            assert conn.execute(select(nodes.c.short).where(nodes.c.name == "internal.db.s")).scalar_one() == "s"
