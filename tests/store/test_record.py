"""Recording: nodes, edges and their attributes; idempotent replay; name normalisation."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest
from sqlalchemy import func, select
from tests.store.conftest import guide

from headwater.model import Field, LineageInfo, TableRef, Target, event_from_json, event_to_json
from headwater.store import InvalidInput, LineageStore, indirect, search
from headwater.store.schema import OPEN, edges, event_document, events, nodes


def _edges(store: LineageStore, type_: str) -> set[tuple[str, str, str | None, str | None]]:
    """Open edges of a type by (source, target, subtype, dependency); MAPS_TO includes the ones that
    dataset-level mappings stand for (what every query sees)."""
    n = nodes.alias()
    m = nodes.alias()
    q = (
        select(n.c.name, m.c.name, edges.c.subtype, edges.c.dependency)
        .select_from(edges.join(n, n.c.id == edges.c.src_id).join(m, m.c.id == edges.c.dst_id))
        .where(edges.c.type == type_, edges.c.valid_to == OPEN)
    )
    with store.engine.connect() as conn:
        out = {tuple(r) for r in conn.execute(q)}
        if type_ == "MAPS_TO":
            names = dict(conn.execute(select(nodes.c.id, nodes.c.name)).all())
            fields = sorted(i for i, t in conn.execute(select(nodes.c.id, nodes.c.type)) if t == "FIELD")
            out |= {(names[e.src_id], names[e.dst_id], e.subtype, e.dependency) for e in indirect.out_of(conn, fields)}
        return out


def _stored(store: LineageStore, type_: str) -> int:
    with store.engine.connect() as conn:
        q = select(func.count()).select_from(edges).where(edges.c.type == type_, edges.c.valid_to == OPEN)
        return conn.execute(q).scalar_one()


S = "internal.lineage_demo."


def test_guide_event_edges(store: LineageStore) -> None:
    res = store.record(guide())
    assert res.recorded == 1 and res.duplicates == 0
    maps = _edges(store, "MAPS_TO")
    direct = {(a, b, s) for a, b, s, d in maps if d == "DIRECT"}
    assert direct == {
        (S + "lineage_orders.customer_id", S + "lineage_customer_summary.customer_id", "IDENTITY"),
        (S + "lineage_orders.region", S + "lineage_customer_summary.region_label", "TRANSFORMATION"),
        (S + "lineage_orders.amount", S + "lineage_customer_summary.total_amount", "AGGREGATION"),
    }
    per_column = {(a, s) for a, b, s, d in maps if b == S + "lineage_customer_summary.customer_seq"}
    assert (S + "lineage_orders.customer_id", "WINDOW") in per_column
    assert (S + "lineage_orders.region", "CONDITIONAL") in {
        (a, s) for a, b, s, d in maps if b == S + "lineage_customer_summary.region_group"
    }
    # dataset-level JOIN/FILTER/GROUP_BY/SORT apply to all five target columns
    status = {b for a, b, s, d in maps if a == S + "lineage_orders.status"}
    assert len(status) == 5 and all(s == "FILTER" for a, b, s, d in maps if a == S + "lineage_orders.status")
    assert len(maps) == 3 + 2 + 5 * 8  # direct + output-level + 8 distinct dataset-level inputs x 5
    # stored: one MAPS_TO_ALL row per (source field, subtype) of the dataset-level entries, and no
    # WRITES_FIELD row (every target column has a column-level mapping)
    assert (_stored(store, "MAPS_TO"), _stored(store, "MAPS_TO_ALL"), _stored(store, "WRITES_FIELD")) == (5, 8, 0)
    assert store.get_lineage_stats().edges_by_type["MAPS_TO"] == 45
    reads = {a for a, b, s, d in _edges(store, "READ")}
    assert reads == {S + "lineage_orders", S + "lineage_customers"}
    writes = {b for a, b, s, d in _edges(store, "WRITE")}
    assert writes == {S + "lineage_customer_summary"}
    contains = _edges(store, "CONTAINS")
    assert ("internal", S + "lineage_orders", None, None) in contains
    assert (
        S + "lineage_customer_summary",
        S + "lineage_customer_summary.region_group",
        None,
        None,
    ) in contains


def test_replay_changes_nothing(store: LineageStore) -> None:
    store.record(guide())
    with store.engine.connect() as conn:
        before = conn.execute(select(edges).order_by(edges.c.id)).all()
    again = store.record(guide())
    assert (again.recorded, again.duplicates, again.edges_opened, again.edges_closed) == (0, 1, 0, 0)
    batch = store.record_batch([guide(), guide()])
    assert (batch.recorded, batch.duplicates) == (0, 2)
    with store.engine.connect() as conn:
        assert conn.execute(select(edges).order_by(edges.c.id)).all() == before
        assert len(conn.execute(select(events)).all()) == 1


def test_names_are_normalised_once(store: LineageStore) -> None:
    from tests.store.conftest import copy_event

    store.record(copy_event("T1", {"A": [("Src", "X")]}, query_id="a"))
    store.record(copy_event("t1", {"a": [("SRC", "x")]}, query_id="b", sql="insert into t1 select 2"))
    with store.engine.connect() as conn:
        names = sorted(conn.execute(select(nodes.c.name).where(nodes.c.type.in_(["DATASET", "FIELD"]))).scalars())
    assert names == [S + "src", S + "src.x", S + "t1", S + "t1.a"]
    # an event's table part is an exact identifier: quote characters in it belong to the name (issue 37
    # item 6), so "`t1`" is another table, written quoted, not t1 again
    store.record(copy_event("`t1`", {"a": [("SRC", "x")]}, query_id="c", sql="insert into `t1` select 3"))
    with store.engine.connect() as conn:
        names = sorted(conn.execute(select(nodes.c.name).where(nodes.c.type == "DATASET")).scalars())
    assert names == [S + '"`t1`"', S + "src", S + "t1"]


def test_event_document_is_stored_compressed_and_read_back(store: LineageStore) -> None:
    event = guide()
    store.record(event)
    with store.engine.connect() as conn:
        text, squeezed = conn.execute(select(events.c.payload, events.c.payload_zlib)).one()
    assert text is None and len(squeezed) < len(event_to_json(event)) / 3
    assert event_from_json(event_document(text, squeezed)) == event
    job = next(n for n in store.get_upstream("lineage_customer_summary").nodes if n.type == "JOB")
    with store.engine.connect() as conn:
        statement = search.job_detail(conn, job.id).statements[0]
    assert statement.sql == event.context.sql and statement.context["event.status"] == "COMPLETE"


def _with(event: LineageInfo, **changes: object) -> LineageInfo:
    return dataclasses.replace(event, **changes)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        (lambda e: _with(e, event_id="x" * 129), "event_id"),
        (lambda e: _with(e, event_id=""), "event_id"),
        (
            lambda e: _with(e, context=dataclasses.replace(e.context, timestamp="2026-02-30T00:00:00Z")),
            "context.timestamp",
        ),
        (lambda e: _with(e, context=dataclasses.replace(e.context, timestamp="not a time")), "context.timestamp"),
        (lambda e: _with(e, target=Target(TableRef("internal", "lineage_demo", ""), e.target.columns)), "dataset"),
        (
            lambda e: _with(e, target=Target(TableRef("internal", "lineage_demo", "t" * 1100), e.target.columns)),
            "dataset",
        ),
        (
            lambda e: _with(e, target=Target(TableRef("internal", "lineage_demo", "a\x00b"), e.target.columns)),
            "dataset",
        ),
        (
            lambda e: _with(e, direct=(dataclasses.replace(e.direct[0], expression="x\x00"), *e.direct[1:])),
            "expression",
        ),
        (lambda e: _with(e, target=Target(e.target.table, (Field(""), *e.target.columns[1:]))), "column"),
    ],
)
def test_what_a_database_would_refuse_is_bad_input_and_nothing_is_written(
    store: LineageStore, bad: Callable[[LineageInfo], LineageInfo], field: str
) -> None:
    with pytest.raises(InvalidInput) as err:
        store.record_batch([guide("good-first"), bad(guide("bad"))])
    assert err.value.field == field
    assert store.get_lineage_stats().events_recorded == 0
    assert store.record(guide("good-after")).recorded == 1
