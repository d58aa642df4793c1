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
    assert current_revision(store.engine) == head_revision() == "0007"
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
        assert upgrade(engine) == head_revision() == "0007"
        store = open_store(url)
        stack.callback(store.close)
        store.record(guide())
        store.delete_lineage(dataset="internal.lineage_demo.lineage_orders")
        with engine.connect() as conn:
            assert conn.execute(select(meta.c.value).where(meta.c.key == "membership_epoch")).scalar_one() == 1
            assert conn.execute(select(nodes.c.short).where(nodes.c.name == "internal.db.s")).scalar_one() == "s"


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_store_made_at_0003_gets_its_jobs_and_versions(backend: str, tmp_path: Path) -> None:
    """Revision 0004: hw_jobs is filled from the recorded events; their versions read the payloads."""
    import zlib

    from headwater.model import event_to_json
    from headwater.store.schema import events, jobs

    with ExitStack() as stack:
        url = (
            f"sqlite:///{tmp_path / 'old.db'}" if backend == "sqlite" else stack.enter_context(fresh_schema_url("hw_j"))
        )
        engine = make_engine(url)
        stack.callback(engine.dispose)
        assert upgrade(engine, "0003") == "0003"
        e1, e2 = guide("q1", timestamp="2024-05-01T10:00:00Z"), guide("q2", timestamp="2024-05-02T10:00:00Z")
        with engine.begin() as conn:  # two runs of one job, as the 0003 schema's writer left them
            job = conn.execute(
                nodes.insert().values(type="JOB", name="sql:x:t", short="t#x", created_us=1).returning(nodes.c.id)
            ).scalar_one()
            for k, (e, t) in enumerate(((e1, 1714557600000000), (e2, 1714644000000000))):
                conn.execute(  # only the columns 0003 has
                    events.insert().values(
                        event_id=e.event_id,
                        kind="headwater",
                        job_id=job,
                        run_key=f"r{k}",
                        event_us=t,
                        recorded_us=t,
                        payload_zlib=zlib.compress(event_to_json(e).encode()),
                    )
                )
        assert upgrade(engine) == head_revision() == "0007"
        with engine.connect() as conn:
            row = conn.execute(select(jobs)).one()
        assert (row.job_id, row.runs, row.first_seen_us, row.last_seen_us, row.file) == (
            job,
            2,
            1714557600000000,
            1714644000000000,
            None,
        )
        store = open_store(url)
        stack.callback(store.close)
        h = store.job_history("sql:x:t")
        assert [(v.version, v.runs) for v in h.versions] == [(1, 2)]  # one statement: one version
        assert h.versions[0].fingerprint is not None and "INSERT INTO" in (h.versions[0].sql or "").upper()
