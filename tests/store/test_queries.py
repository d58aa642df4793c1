"""Queries on a three-statement warehouse: orders/customers → summary → report."""

from __future__ import annotations

import pytest
from tests.store.conftest import copy_event, guide

from headwater.store import AmbiguousNode, DatasetRef, ExecutionContext, LineageStore, NodeNotFound

S = "internal.lineage_demo."


@pytest.fixture
def wh(store: LineageStore) -> LineageStore:
    store.record(guide())
    store.record(
        copy_event(
            "report",
            {
                "rg": [("lineage_customer_summary", "region_group")],
                "amt": [("lineage_customer_summary", "total_amount")],
            },
        )
    )
    return store


def names(nodes) -> set[str]:  # type: ignore[no-untyped-def]
    return {n.name.removeprefix(S) for n in nodes}


def test_downstream_table_lineage(wh: LineageStore) -> None:
    g = wh.get_downstream("lineage_orders")
    assert g.root.name == S + "lineage_orders"
    got = {(n.type, n.short, n.depth) for n in g.nodes}
    assert {(t, d) for t, s, d in got if t == "DATASET"} == {("DATASET", 0), ("DATASET", 1), ("DATASET", 2)}
    assert {s for t, s, d in got if t == "DATASET"} == {"lineage_orders", "lineage_customer_summary", "report"}
    assert sorted(d for t, s, d in got if t == "JOB") == [0, 1]
    assert g.total_nodes == 5 and g.total_edges == 4 and not g.truncated
    assert {e.type for e in g.edges} == {"READ", "WRITE"}


def test_depth_and_types_filter(wh: LineageStore) -> None:
    g = wh.get_downstream("lineage_orders", max_depth=1)
    assert {n.short for n in g.nodes if n.type == "DATASET"} == {"lineage_orders", "lineage_customer_summary"}
    up = wh.get_upstream("report", node_types=["DATASET"])
    assert {(n.short, n.depth) for n in up.nodes} == {
        ("report", 0),
        ("lineage_customer_summary", -1),
        ("lineage_orders", -2),
        ("lineage_customers", -2),
    }
    assert up.edges == []  # jobs filtered out, so no edge has both ends kept


def test_both_directions_and_paging(wh: LineageStore) -> None:
    g = wh.get_lineage("lineage_customer_summary", "BOTH")
    assert {(n.short, n.depth) for n in g.nodes if n.type == "DATASET"} == {
        ("lineage_customer_summary", 0),
        ("lineage_orders", -1),
        ("lineage_customers", -1),
        ("report", 1),
    }
    assert g.total_nodes == 6
    pages = [wh.get_lineage("lineage_customer_summary", "BOTH", limit=2, offset=o) for o in (0, 2, 4)]
    assert [len(p.nodes) for p in pages] == [2, 2, 2]
    assert {n.id for p in pages for n in p.nodes} == {n.id for n in g.nodes}
    assert {e.id for p in pages for e in p.edges} == {e.id for e in g.edges}
    assert sum(len(p.edges) for p in pages) == g.total_edges == 5


def test_full_lineage_has_no_depth_limit(wh: LineageStore) -> None:
    g = wh.get_full_lineage("lineage_orders")
    assert "report" in {n.short for n in g.nodes}
    capped = wh.get_full_lineage("lineage_orders", max_nodes=3)
    assert capped.truncated and capped.total_nodes == 3


def test_field_origin_direct_and_indirect(wh: LineageStore) -> None:
    o = wh.get_field_origin("report.amt")
    assert [(x.field.name, x.depth, x.types) for x in o.origins] == [
        (S + "lineage_orders.amount", 2, ["AGGREGATION", "IDENTITY"])
    ]
    path = o.origins[0].path
    assert [(e.subtype, e.expression) for e in path] == [
        ("AGGREGATION", "SUM(lineage_orders.amount)"),
        ("IDENTITY", "lineage_customer_summary.total_amount"),
    ]
    # region_group is a CASE of constants: no DIRECT input, so it is its own origin…
    own = wh.get_field_origin("lineage_customer_summary.region_group", level="direct")
    assert [(x.field.short, x.depth, x.path) for x in own.origins] == [("lineage_customer_summary.region_group", 0, [])]
    # …by default (level field) it is computed from its CASE condition…
    computed = wh.get_field_origin("lineage_customer_summary.region_group")
    assert [(x.field.short, x.types) for x in computed.origins] == [("lineage_orders.region", ["CONDITIONAL"])]
    # …while with indirect inputs it comes from the condition and the statement's filters/join
    ind = wh.get_field_origin("lineage_customer_summary.region_group", include_indirect=True)
    assert {(x.field.short, tuple(x.types)) for x in ind.origins} == {
        ("lineage_orders.region", ("CONDITIONAL",)),
        ("lineage_orders.customer_id", ("JOIN",)),
        ("lineage_customers.customer_id", ("JOIN",)),
        ("lineage_orders.status", ("FILTER",)),
        ("lineage_customers.customer_level", ("FILTER",)),
        ("lineage_orders.amount", ("FILTER",)),
    }
    assert all(x.dependency == "INDIRECT" for x in ind.origins)


def test_field_impact(wh: LineageStore) -> None:
    i = wh.get_field_impact("lineage_orders.amount", level="all")
    got = {(x.field.short, x.dependency, tuple(x.types)) for x in i.impacted}
    assert ("lineage_customer_summary.total_amount", "DIRECT", ("AGGREGATION",)) in got
    assert ("report.amt", "DIRECT", ("AGGREGATION", "IDENTITY")) in got
    assert ("report.rg", "INDIRECT", ("FILTER", "IDENTITY")) in got
    assert {x.field.short for x in i.impacted} == {
        "lineage_customer_summary.customer_id",
        "lineage_customer_summary.region_label",
        "lineage_customer_summary.total_amount",
        "lineage_customer_summary.customer_seq",
        "lineage_customer_summary.region_group",
        "report.amt",
        "report.rg",
    }
    assert (i.total, i.direct_count, i.indirect_count) == (7, 2, 5)


def test_trace_origin(wh: LineageStore) -> None:
    t = wh.trace_origin("report")
    assert [s.name for s in t.source_systems] == ["internal"] and t.total_sources == 1
    assert {(o.origin.short, o.depth, o.system.name if o.system else None) for o in t.origins} == {
        ("lineage_orders", 2, "internal"),
        ("lineage_customers", 2, "internal"),
    }
    path = next(o for o in t.origins if o.origin.short == "lineage_orders").path
    assert [e.type for e in path] == ["READ", "WRITE", "READ", "WRITE"]
    f = wh.trace_origin("report.amt")  # every root that influences the field, indirect ones too
    assert {(o.origin.short, o.system.name if o.system else None) for o in f.origins} == {
        ("lineage_orders.amount", "internal"),
        ("lineage_orders.customer_id", "internal"),
        ("lineage_orders.region", "internal"),
        ("lineage_orders.status", "internal"),
        ("lineage_customers.customer_id", "internal"),
        ("lineage_customers.customer_level", "internal"),
    }


def test_summary_and_stats(wh: LineageStore) -> None:
    s = wh.get_lineage_summary("lineage_customer_summary")
    assert (s.upstream_count, s.downstream_count, s.field_count, s.pipeline_count) == (3, 2, 5, 2)
    assert s.node_type_counts == {"DATASET": 3, "JOB": 2}
    assert s.last_updated is not None and s.last_updated.isoformat() == "2024-05-01T10:00:00+00:00"
    st = wh.get_lineage_stats()
    assert st.events_recorded == 2
    assert st.nodes_by_type == {"DATASET": 4, "FIELD": 13, "JOB": 2, "SOURCE_SYSTEM": 1}
    assert st.edges_by_type == {"CONTAINS": 17, "MAPS_TO": 47, "READ": 3, "WRITE": 2}
    assert st.total_field_mappings == 47 and st.total_edges == 69 and st.total_nodes == 20


def test_resolution(wh: LineageStore) -> None:
    assert wh.resolve("LINEAGE_ORDERS").name == S + "lineage_orders"
    assert wh.resolve("lineage_demo.`lineage_orders`.Amount").name == S + "lineage_orders.amount"
    assert wh.resolve(f"FIELD:{S}report.rg").short == "report.rg"
    node = wh.resolve("report")
    assert wh.resolve(f"#{node.id}") == node
    with pytest.raises(NodeNotFound):
        wh.resolve("no_such_table")
    wh.record_lineage(ExecutionContext("p1"), [DatasetRef("public.report", "pg")], [DatasetRef("out", "pg")])
    with pytest.raises(AmbiguousNode) as err:
        wh.resolve("report")
    assert err.value.candidates == [f"DATASET:{S}report", "DATASET:pg.public.report"]
    assert wh.resolve("pg.public.report").short == "report"
