"""Edge validity: re-recording a job, as-of queries, delete (close and purge), late events."""

from __future__ import annotations

import dataclasses

import pytest
from tests.store.conftest import copy_event, guide

from headwater.model import DirectInput, LineageInfo
from headwater.store import LineageStore, open_store

SQL = "INSERT INTO t SELECT ... FROM s"
T1, T2, T3 = "2024-01-01T00:00:00Z", "2024-02-01T00:00:00Z", "2024-03-01T00:00:00Z"


def v1(ts: str = T1, qid: str = "run-1"):  # type: ignore[no-untyped-def]
    return copy_event("t", {"a": [("s", "a")], "b": [("s", "b")]}, query_id=qid, timestamp=ts, sql=SQL)


def v2(ts: str = T2, qid: str = "run-2"):  # type: ignore[no-untyped-def]
    # same statement (same job), but b now comes from s.c, and a new column d from u.d
    return copy_event(
        "t", {"a": [("s", "a")], "b": [("s", "c")], "d": [("u", "d")]}, query_id=qid, timestamp=ts, sql=SQL
    )


def origins(store: LineageStore, field: str, as_of: str | None = None) -> set[str]:
    return {o.field.short for o in store.get_field_origin(field, as_of=as_of).origins}


def test_rerecording_a_job_closes_what_it_no_longer_produces(store: LineageStore) -> None:
    store.record(v1())
    res = store.record(v2())
    assert (res.edges_closed, res.edges_opened) == (1, 7)  # s.b → t.b closes; 2 MAPS_TO, 1 READ, 4 CONTAINS
    assert origins(store, "t.b") == {"s.c"}
    assert origins(store, "t.b", as_of="2024-01-15T00:00:00Z") == {"s.b"}
    assert origins(store, "t.b", as_of=T2) == {"s.c"}
    assert origins(store, "t.a") == {"s.a"}
    # the unchanged edge kept its start: it has been valid since T1
    a = store.get_field_origin("t.a").origins[0].path[0]
    assert a.valid_from is not None and a.valid_from.isoformat() == "2024-01-01T00:00:00+00:00"
    assert a.valid_to is None
    up = store.get_upstream("t", node_types=["DATASET"])
    assert {n.short for n in up.nodes} == {"t", "s", "u"}
    before = store.get_upstream("t", node_types=["DATASET"], as_of="2024-01-15T00:00:00Z")
    assert {n.short for n in before.nodes} == {"t", "s"}
    # nothing existed before the first event
    assert store.get_upstream("t", as_of="2023-12-31T00:00:00Z").total_nodes == 0  # an empty graph (issue 38)


def test_another_statement_on_the_same_target_is_another_job(store: LineageStore) -> None:
    store.record(v1())
    store.record(
        copy_event("t", {"a": [("w", "a")]}, query_id="other", timestamp=T2, sql="INSERT INTO t SELECT a FROM w")
    )
    assert origins(store, "t.a") == {"s.a", "w.a"}


def test_late_event_only_adds_history(store: LineageStore) -> None:
    store.record(v2(ts=T3))
    res = store.record(v1(ts=T1))
    assert res.recorded == 1 and res.edges_closed == 0
    assert origins(store, "t.b") == {"s.c"}  # the present is unchanged
    assert origins(store, "t.b", as_of=T2) == {"s.b"}  # the late event's lineage, until T3
    assert origins(store, "t.a", as_of=T2) == {"s.a"}  # the shared edge now starts at T1


def test_delete_event_closes_and_keeps_history(store: LineageStore) -> None:
    e = v1()
    store.record(e)
    res = store.delete_lineage(event_id=e.event_id, at=T2)
    assert (res.edges_closed, res.edges_purged, res.events_deleted) == (4, 0, 1)  # 2 MAPS_TO, READ, WRITE
    assert store.get_upstream("t").total_nodes == 1
    assert origins(store, "t.a", as_of="2024-01-15T00:00:00Z") == {"s.a"}
    assert store.record(e).duplicates == 1  # still recorded: a replay changes nothing
    assert store.get_upstream("t").total_nodes == 1


def test_delete_purge_forgets(store: LineageStore) -> None:
    e = v1()
    store.record(e)
    res = store.delete_lineage(event_id=e.event_id, purge=True)
    assert (res.edges_purged, res.events_deleted) == (4, 1)
    assert origins(store, "t.a", as_of="2024-01-15T00:00:00Z") == {"t.a"}
    assert store.get_lineage_stats().events_recorded == 0
    assert store.record(e).recorded == 1
    assert origins(store, "t.a") == {"s.a"}


def test_delete_job_and_dataset(store: LineageStore) -> None:
    store.record(v1())
    store.record(copy_event("z", {"y": [("t", "a")]}, query_id="z1", timestamp=T1))
    job = next(n for n in store.get_upstream("z").nodes if n.type == "JOB")
    assert store.delete_lineage(job=f"#{job.id}", at=T2).edges_closed == 3  # READ, WRITE, MAPS_TO
    assert {n.short for n in store.get_downstream("t").nodes} == {"t"}
    assert origins(store, "t.a") == {"s.a"}
    closed = store.delete_lineage(dataset="s", at=T2)
    # s's READ, its two MAPS_TO, and the CONTAINS of s (system → s, s → a, s → b)
    assert closed.edges_closed == 6
    assert origins(store, "t.a") == {"t.a"}
    assert origins(store, "t.a", as_of="2024-01-15T00:00:00Z") == {"s.a"}
    assert store.get_lineage_summary("s", as_of="2024-01-15T00:00:00Z").field_count == 2
    assert store.get_lineage_summary("s").field_count == 0


def test_stats_as_of(store: LineageStore) -> None:
    store.record(v1())
    store.record(v2())
    now = store.get_lineage_stats()
    then = store.get_lineage_stats(as_of="2024-01-15T00:00:00Z")
    assert then.edges_by_type["MAPS_TO"] == 2 and now.edges_by_type["MAPS_TO"] == 3
    assert then.edges_by_type["READ"] == 1 and now.edges_by_type["READ"] == 2
    # nodes and events on the same timeline as edges: v1's, then v2's as well
    assert (then.events_recorded, now.events_recorded) == (1, 2)
    assert then.nodes_by_type == {"DATASET": 2, "FIELD": 4, "JOB": 1, "SOURCE_SYSTEM": 1}  # s.a, s.b, t.a, t.b
    assert now.nodes_by_type == {"DATASET": 3, "FIELD": 7, "JOB": 1, "SOURCE_SYSTEM": 1}  # + u, s.c, u.d, t.d
    before = store.get_lineage_stats(as_of="2023-12-31T00:00:00Z")
    assert (before.total_nodes, before.total_edges, before.events_recorded) == (0, 0, 0)


def test_deleted_dataset_regains_its_members_when_recorded_again(store: LineageStore) -> None:
    store.record(v1())  # the store now caches s, s.a, s.b as members with open CONTAINS edges
    store.delete_lineage(dataset="s", at=T2)
    assert store.get_lineage_summary("s").field_count == 0
    store.record(v1(ts=T3, qid="run-3"))
    assert store.get_lineage_summary("s").field_count == 2
    assert store.get_lineage_summary("s", as_of="2024-02-15T00:00:00Z").field_count == 0
    assert origins(store, "t.a") == {"s.a"}


def test_a_writer_sees_deletions_made_by_another_writer(store_url: str) -> None:
    writer, other = open_store(store_url), open_store(store_url)
    try:
        writer.record(v1())
        other.delete_lineage(dataset="s", at=T2)
        writer.record(v1(ts=T3, qid="run-3"))  # its cache of s's members is stale: it must notice
        assert other.get_lineage_summary("s").field_count == 2
        assert {n.short for n in other.get_upstream("t").nodes if n.type == "DATASET"} == {"t", "s"}
    finally:
        writer.close()
        other.close()


def test_late_event_backdates_the_memberships_it_confirms(store: LineageStore) -> None:
    store.record(v2())  # recorded first, though it happened later (T2)
    store.record(v1())  # T1: its tables and columns existed from T1 on
    between = "2024-01-15T00:00:00Z"
    # s.a and t.a were first seen in v2, at T2: v1 confirms them from T1; s.c and t.d only from T2
    assert store.get_lineage_summary("s", as_of=between).field_count == 2
    assert store.get_lineage_summary("t", as_of=between).field_count == 2
    assert store.get_lineage_summary("t").field_count == 3
    assert origins(store, "t.a", as_of=between) == {"s.a"}
    assert store.get_lineage_stats(as_of=between).edges_by_type["CONTAINS"] > 0


def _guide_v2() -> LineageInfo:
    """The guide's statement recorded again at T2 with region_label now taken from the customers."""
    event = guide("guide-v2", timestamp=T2)
    level = next(c for t in event.dataset_indirect for c in t.sources if c.column == "customer_level")
    direct = tuple(
        dataclasses.replace(d, expression="c.customer_level", sources=(level,), inputs=(DirectInput(level),))
        if d.target_column == "region_label"
        else d
        for d in event.direct
    )
    return dataclasses.replace(event, direct=direct)


@pytest.mark.parametrize("purge", [False, True])
def test_deleting_one_source_of_a_join_keeps_the_other_sources_history(store: LineageStore, purge: bool) -> None:
    store.record(guide("guide-v1", timestamp=T1))
    store.record(_guide_v2())
    between = "2024-01-15T00:00:00Z"

    def impact(as_of: str | None) -> set[str]:
        return {
            f.field.short
            for f in store.get_field_impact("lineage_customers.customer_id", as_of=as_of, level="all").impacted
        }

    every = {
        f"lineage_customer_summary.{c}"
        for c in ("customer_id", "region_label", "total_amount", "customer_seq", "region_group")
    }
    assert impact(between) == impact(None) == every  # the JOIN applies to every column written
    store.delete_lineage(dataset="lineage_orders", purge=purge, at=T3)
    assert impact(between) == every
    assert impact(None) == every
