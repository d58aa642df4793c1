"""Revision 0005: the job and event indexes of ``hw_edges`` become partial (rows without a job or an
event, the CONTAINS memberships, are left out); a store recorded before keeps every answer."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text
from tests.pg_schema import fresh_schema_url
from tests.store.conftest import copy_event, guide

from headwater.store import LineageStore, open_store
from headwater.store.engine import make_engine
from headwater.store.migrate import current_revision, head_revision, upgrade

SUMMARY = "internal.lineage_demo.lineage_customer_summary"


def _answers(store: LineageStore, as_of: str) -> tuple[object, ...]:
    """What a person asks of the guide's store: a column's origins, a job's edges by job, a
    dataset's columns, counts — now and as of before the second event."""
    origin = store.get_field_origin(f"{SUMMARY}.total_amount", level="all")
    earlier = store.get_field_origin("internal.lineage_demo.t2.a", as_of=as_of)
    stats, before = store.get_lineage_stats(), store.get_lineage_stats(as_of=as_of)
    job = next(n for n in store.get_upstream(SUMMARY, max_depth=1).nodes if n.type == "JOB")
    return (
        sorted((o.field.name, tuple(o.types)) for o in origin.origins),
        sorted(o.field.name for o in earlier.origins),
        (stats.edges_by_type, stats.nodes_by_type, before.edges_by_type),
        store.job_history(job.name).versions[0].runs,
    )


def _index_sql(conn: object, backend: str) -> dict[str, str]:
    q = (
        "SELECT name, sql FROM sqlite_master WHERE name LIKE 'ix_hw_edges_%'"
        if backend == "sqlite"
        else "SELECT indexname, indexdef FROM pg_indexes WHERE indexname LIKE 'ix_hw_edges_%' "
        "AND schemaname = current_schema()"
    )
    return {name: sql for name, sql in conn.execute(text(q))}  # type: ignore[attr-defined]


@pytest.fixture(params=["sqlite", "postgresql"])
def old_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """(backend, URL) of an empty store of either backend, its schema not created yet."""
    if request.param == "sqlite":
        yield "sqlite", f"sqlite:///{tmp_path / 'old.db'}"
    else:
        with fresh_schema_url("hw_5") as url:
            yield "postgresql", url


def test_a_store_recorded_at_0004_upgrades_to_partial_indexes_with_the_same_answers(
    old_store: tuple[str, str],
) -> None:
    backend, url = old_store
    engine = make_engine(url)
    store: LineageStore | None = None
    try:
        assert upgrade(engine, "0004") == "0004"
        with engine.connect() as conn:
            assert "WHERE" not in _index_sql(conn, backend)["ix_hw_edges_job"].upper()
        old = LineageStore(engine)  # the writer on the 0004 schema, full indexes
        old.record(guide())
        old.record(copy_event("t2", {"a": [("lineage_orders", "amount")]}, "r1", timestamp="2024-05-01T10:00:00Z"))
        old.record(copy_event("t2", {"a": [("lineage_orders", "status")]}, "r2", timestamp="2024-05-03T10:00:00Z"))
        before = _answers(old, "2024-05-02T00:00:00Z")
        assert before[1] == ["internal.lineage_demo.lineage_orders.amount"]

        assert upgrade(engine, "0005") == "0005"
        with engine.connect() as conn:
            indexes = _index_sql(conn, backend)
        assert "job_id IS NOT NULL" in indexes["ix_hw_edges_job"].replace("(", "").replace(")", "")
        assert "event_pk IS NOT NULL" in indexes["ix_hw_edges_event"].replace("(", "").replace(")", "")
        store = open_store(url)
        assert current_revision(store.engine) == head_revision()
        assert _answers(store, "2024-05-02T00:00:00Z") == before
        # the write path's lookups by job still answer from the (now partial) index
        with store.engine.connect() as conn:
            if backend == "sqlite":
                plan = conn.execute(
                    text(f"EXPLAIN QUERY PLAN SELECT id FROM hw_edges WHERE valid_to = {2**62} AND job_id IN (1, 2)")
                ).all()
                assert "ix_hw_edges_job" in str(plan)
            else:
                conn.execute(text("SET LOCAL enable_seqscan = off"))
                plan = conn.execute(
                    text(f"EXPLAIN SELECT id FROM hw_edges WHERE valid_to = {2**62} AND job_id IN (1, 2)")
                ).all()
                assert "ix_hw_edges_job" in str(plan)
        # recording goes on: a new run of t2's job replaces its mapping, deleting an event closes its edges
        store.record(copy_event("t2", {"a": [("lineage_orders", "region")]}, "r3", timestamp="2024-05-04T10:00:00Z"))
        assert [o.field.name for o in store.get_field_origin("internal.lineage_demo.t2.a").origins] == [
            "internal.lineage_demo.lineage_orders.region"
        ]
        assert store.delete_lineage(event_id=guide().event_id).edges_closed > 0
        assert [o for o in store.get_field_origin(f"{SUMMARY}.total_amount").origins if o.depth > 0] == []
    finally:
        if store is not None:
            store.close()
        engine.dispose()
