"""OpenLineage RunEvents and record_lineage calls land in the same graph as headwater events."""

from __future__ import annotations

import json

import pytest
from openlineage.client.serde import Serde
from tests.store.conftest import guide
from tests.store.test_record import _edges

from headwater.model.openlineage import to_run_event
from headwater.store import (
    DatasetRef,
    ExecutionContext,
    FieldMapping,
    FieldRef,
    InvalidInput,
    LineageStore,
    TransformType,
)


def run_event(event_type: str = "COMPLETE", foreign: bool = False) -> dict:  # type: ignore[type-arg]
    """The guide event as a RunEvent; ``foreign``: without the headwater facet (as another producer's)."""
    d = json.loads(Serde.to_json(to_run_event(guide())))
    d["eventType"] = event_type
    if foreign:
        del d["run"]["facets"]["headwater"]
    return d


def test_openlineage_matches_direct_recording(store_url: str) -> None:
    from headwater.store import open_store

    direct = open_store(store_url)
    direct.record(guide())
    want = {e for e in _edges(direct, "MAPS_TO")}
    direct.delete_lineage(event_id=guide().event_id, purge=True)
    res = direct.record_openlineage(run_event())
    assert res.recorded == 1
    assert {e for e in _edges(direct, "MAPS_TO")} == want
    assert direct.record_openlineage(run_event()).duplicates == 1
    o = direct.get_field_origin("lineage_customer_summary.total_amount")
    assert [x.field.short for x in o.origins] == ["lineage_orders.amount"]


def test_openlineage_runs_accumulate_and_fail_asserts_nothing(store: LineageStore) -> None:
    start = run_event("START", foreign=True)
    start["outputs"] = []
    store.record_openlineage(start)
    assert {n.type for n in store.get_downstream("lineage_orders").nodes} == {"DATASET", "JOB"}
    store.record_openlineage(run_event("COMPLETE", foreign=True))  # same run: adds outputs, keeps the START's reads
    up = store.get_upstream("lineage_customer_summary", node_types=["DATASET"])
    assert {n.short for n in up.nodes} == {"lineage_customer_summary", "lineage_orders", "lineage_customers"}
    failed = run_event("FAIL", foreign=True)
    failed["run"]["runId"] = "5f0e9b8e-0000-4000-8000-000000000001"
    assert store.record_openlineage(failed).edges_opened == 0
    assert store.get_lineage_stats().events_recorded == 3


def test_openlineage_other_namespace_is_its_own_system(store: LineageStore) -> None:
    ev = {
        "eventType": "COMPLETE",
        "eventTime": "2024-06-01T00:00:00Z",
        "run": {"runId": "0d5f2f4e-1111-4000-8000-000000000000"},
        "job": {"namespace": "spark", "name": "daily_orders"},
        "inputs": [{"namespace": "postgres://db:5432", "name": "shop.public.orders"}],
        "outputs": [
            {
                "namespace": "s3://lake",
                "name": "orders_daily",
                "facets": {
                    "columnLineage": {
                        "fields": {
                            "total": {
                                "inputFields": [
                                    {
                                        "namespace": "postgres://db:5432",
                                        "name": "shop.public.orders",
                                        "field": "amount",
                                        "transformations": [{"type": "DIRECT", "subtype": "AGGREGATION"}],
                                    }
                                ]
                            }
                        }
                    }
                },
            }
        ],
    }
    store.record_openlineage(ev)
    t = store.trace_origin("orders_daily.total")
    assert [s.name for s in t.source_systems] == ["postgres://db:5432"]
    assert [o.origin.name for o in t.origins] == ["postgres://db:5432.shop.public.orders.amount"]
    assert [x.types for x in store.get_field_origin("orders_daily.total").origins] == [["AGGREGATION"]]


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda d: d.pop("eventTime"), "event.eventTime"),
        (lambda d: d["run"].pop("runId"), "event.run.runId"),
        (lambda d: d["inputs"][0].pop("name"), "event.inputs[0].name"),
        (lambda d: d.__setitem__("eventTime", "yesterday"), "event.eventTime"),
        (lambda d: d["outputs"][0].__setitem__("namespace", ""), "event.outputs[0].namespace"),
        (lambda d: d["inputs"][0].__setitem__("name", " "), "event.inputs[0].name"),
        (lambda d: d.__setitem__("eventType", "EXPLODE"), "event.eventType"),
    ],
)
def test_openlineage_bad_input_names_the_field(store: LineageStore, mutate, field: str) -> None:  # type: ignore[no-untyped-def]
    ev = run_event()
    mutate(ev)
    with pytest.raises(InvalidInput) as err:
        store.record_openlineage([run_event(), ev])
    assert err.value.field == field
    assert store.get_lineage_stats().events_recorded == 0  # nothing half-written


def test_record_lineage_pipeline_step_and_entities(store: LineageStore) -> None:
    ctx = ExecutionContext("etl", "exec-1", "s1", "load", "alice", "2024-06-01T00:00:00Z", 1200)
    raw = DatasetRef("raw.orders", "pg", fields=("amount", "price", "qty"))
    mart = DatasetRef("mart.revenue", "dw")
    kpi = DatasetRef("revenue_kpi", "bi", type="ENTITY")
    maps = [
        FieldMapping(
            (FieldRef(raw, "price"), FieldRef(raw, "qty")),
            FieldRef(mart, "revenue"),
            "price * qty",
            TransformType.EXPRESSION,
        ),
        FieldMapping((FieldRef(raw, "amount"),), FieldRef(mart, "total"), "SUM(amount)", TransformType.AGGREGATE),
        FieldMapping((FieldRef(raw, "qty"),), FieldRef(mart, "revenue"), "qty > 0", TransformType.FILTER),
    ]
    res = store.record_lineage(ctx, [raw], [mart, kpi], maps, {"team": "finance"})
    assert res.recorded == 1
    assert store.record_lineage(ctx, [raw], [mart, kpi], maps).duplicates == 1
    down = store.get_downstream("raw.orders")
    assert {(n.type, n.short) for n in down.nodes} == {
        ("DATASET", "orders"),
        ("PIPELINE_STEP", "load"),
        ("DATASET", "revenue"),
        ("ENTITY", "revenue_kpi"),
    }
    assert {e.type for e in down.edges} == {"READ", "WRITE", "PRODUCES"}
    o = store.get_field_origin("revenue.revenue")
    assert {(x.field.short, tuple(x.types)) for x in o.origins} == {
        ("orders.price", ("TRANSFORMATION",)),
        ("orders.qty", ("TRANSFORMATION",)),
    }
    assert {x.field.short for x in store.get_field_origin("revenue.total").origins} == {"orders.amount"}
    step = store.resolve("load")
    assert step.parent_id == store.resolve("etl").id
    s = store.get_lineage_summary("revenue_kpi")
    assert (s.upstream_count, s.pipeline_count) == (2, 1)


def test_record_lineage_without_pipeline_derives(store: LineageStore) -> None:
    ent = DatasetRef("customer", "crm", type="ENTITY")
    rep = DatasetRef("churn_report", "bi", type="REPORT")
    store.record_lineage(ExecutionContext(""), [ent], [rep])
    g = store.get_upstream("churn_report")
    assert [(e.type, e.source, e.target) for e in g.edges] == [
        ("USED_BY", store.resolve("customer").id, store.resolve("churn_report").id)
    ]
    with pytest.raises(InvalidInput) as err:
        store.record_lineage(ExecutionContext("p"), [DatasetRef("x", type="FIELD")], [])
    assert err.value.field == "inputs[0].type"
