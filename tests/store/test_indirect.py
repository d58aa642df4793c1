"""Dataset-level indirect mappings are stored once per source field (MAPS_TO_ALL) and every query
answers exactly as when they were stored as one MAPS_TO per target column."""

from __future__ import annotations

import dataclasses

from tests.store.conftest import copy_event, guide

from headwater.model import Origin
from headwater.store import LineageStore, open_store
from headwater.store.from_event import event_facts

T1, T2, T3 = "2024-01-01T00:00:00Z", "2024-02-01T00:00:00Z", "2024-03-01T00:00:00Z"
SQL = "INSERT INTO t SELECT ... FROM s JOIN u"


def _events():  # type: ignore[no-untyped-def]
    v1 = copy_event("t", {"a": [("s", "a")], "b": [("s", "b")], "k": []}, "r1", T1, sql=SQL, filters=(("u", "f"),))
    # same job: b now from u.b, column k dropped, a second filter, a new constant column z
    v2 = copy_event(
        "t", {"a": [("s", "a")], "b": [("u", "b")], "z": []}, "r2", T2, sql=SQL, filters=(("u", "f"), ("s", "g"))
    )
    other = copy_event("t", {"c": [("w", "c")]}, "o1", T2, sql="UPDATE t SET c = w.c", filters=(("w", "h"),))
    down = copy_event("r", {"x": [("t", "a")], "y": [("t", "z")]}, "d1", T3, filters=(("t", "b"),))
    return [guide(), v1, v2, other, down]


def _answers(store: LineageStore, as_of: str | None) -> dict:  # type: ignore[type-arg]
    out: dict = {}  # type: ignore[type-arg]
    with store.engine.connect() as conn:
        from headwater.store.schema import nodes

        fields = sorted(
            n for (n,) in conn.execute(nodes.select().with_only_columns(nodes.c.name).where(nodes.c.type == "FIELD"))
        )
        datasets = sorted(
            n for (n,) in conn.execute(nodes.select().with_only_columns(nodes.c.name).where(nodes.c.type == "DATASET"))
        )
    for f in fields:
        for level in ("direct", "field", "all"):
            o = store.get_field_origin(f, as_of=as_of, level=level)
            out[("origin", f, level)] = sorted((x.field.name, x.depth, x.dependency, tuple(x.types)) for x in o.origins)
            i = store.get_field_impact(f, as_of=as_of, level=level)
            out[("impact", f, level)] = (
                sorted((x.field.name, x.depth, x.dependency, tuple(x.types)) for x in i.impacted),
                i.direct_count,
                i.indirect_count,
            )
        a = store.analyze_impact(f, "DELETE", as_of=as_of)
        out[("analyze", f)] = (a.overall_severity, a.total_affected_count, [dataclasses.astuple(g) for g in a.groups])
        t = store.trace_origin(f, as_of=as_of)
        out[("trace", f)] = sorted((o.origin.name, o.depth) for o in t.origins)
        g = store.get_lineage(f, as_of=as_of, max_depth=None)
        out[("lineage", f)] = (g.total_nodes, g.total_edges, sorted((n.name, n.depth) for n in g.nodes))
        s = store.get_lineage_summary(f, as_of=as_of)
        out[("summary", f)] = (s.upstream_count, s.downstream_count, s.pipeline_count, s.node_type_counts)
    for d in datasets:
        s = store.get_lineage_summary(d, as_of=as_of)
        out[("summary", d)] = (s.upstream_count, s.downstream_count, s.field_count, s.pipeline_count)
        a = store.analyze_impact(d, "SCHEMA_CHANGE", as_of=as_of)
        out[("analyze", d)] = (a.overall_severity, a.total_affected_count, [dataclasses.astuple(g) for g in a.groups])
    st = store.get_lineage_stats(as_of=as_of)
    out["stats"] = (st.edges_by_type, st.total_field_mappings, st.total_edges)
    return out


def test_compact_and_expanded_layouts_answer_alike(store_url: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    compact = open_store(store_url)
    expanded = open_store(f"sqlite:///{tmp_path / 'expanded.db'}")
    for e in _events():
        compact.record(e)
        expanded._write([event_facts(e, expand_indirect=True)])
    for as_of in (None, "2024-01-15T00:00:00Z", "2024-02-15T00:00:00Z", T3):
        assert _answers(compact, as_of) == _answers(expanded, as_of), as_of
    # the compact store keeps fewer rows for the same facts
    assert compact.get_lineage_stats() == expanded.get_lineage_stats()


def test_delete_answers_alike(store_url: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    compact = open_store(store_url)
    expanded = open_store(f"sqlite:///{tmp_path / 'expanded.db'}")
    for e in _events():
        compact.record(e)
        expanded._write([event_facts(e, expand_indirect=True)])
    for kw in ({"job": "r"}, {"dataset": "w"}, {"dataset": "s"}):
        jobs = [n for n in compact.get_upstream("r" if "job" in kw else "t").nodes if n.type == "JOB"]
        arg = {"job": jobs[0].name} if "job" in kw else kw
        assert compact.delete_lineage(**arg, at=T3) == expanded.delete_lineage(**arg, at=T3)
        assert _answers(compact, None) == _answers(expanded, None)


def test_column_origin_without_inputs_has_no_direct_input(store: LineageStore) -> None:
    e = guide()
    # the extractor marks a CASE of constants as origin COLUMN (its sources are the columns it reads)
    direct = tuple(dataclasses.replace(d, origin=Origin.COLUMN) for d in e.direct)
    store.record(dataclasses.replace(e, direct=direct))
    own = store.get_field_origin("lineage_customer_summary.region_group", level="direct")
    assert [(x.field.short, x.depth) for x in own.origins] == [("lineage_customer_summary.region_group", 0)]
    computed = store.get_field_origin("lineage_customer_summary.region_group")  # level field, the default
    assert [(x.field.short, x.types, x.dependency) for x in computed.origins] == [
        ("lineage_orders.region", ["CONDITIONAL"], "INDIRECT")
    ]
    ind = store.get_field_origin("lineage_customer_summary.region_group", include_indirect=True)
    assert ("lineage_orders.region", ("CONDITIONAL",)) in {(x.field.short, tuple(x.types)) for x in ind.origins}
    assert store.get_field_impact("lineage_orders.region").direct_count == 1  # region_label only
