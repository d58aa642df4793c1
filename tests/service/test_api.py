"""The REST API over HTTP (TestClient): every operation, errors naming fields, atomic writes, auth."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from openlineage.client.serde import Serde
from tests.store.conftest import copy_event, guide

from headwater.model import event_to_dict
from headwater.model.openlineage import to_run_event
from headwater.service import create_app
from headwater.store import LineageStore

V1 = "/api/v1"
S = "internal.lineage_demo."


@pytest.fixture
def loaded(client: TestClient) -> TestClient:
    r = client.post(f"{V1}/events", json=[event_to_dict(guide())])
    assert r.status_code == 201 and r.json()["recorded"] == 1
    report = copy_event(
        "report",
        {"rg": [("lineage_customer_summary", "region_group")], "amt": [("lineage_customer_summary", "total_amount")]},
    )
    r = client.post(
        f"{V1}/events",
        content=json.dumps(event_to_dict(report)) + "\n",
        headers={"content-type": "application/x-ndjson"},
    )
    assert r.status_code == 201 and r.json()["recorded"] == 1
    return client


def test_replay_over_http_is_a_duplicate(loaded: TestClient) -> None:
    r = loaded.post(f"{V1}/events", json=event_to_dict(guide()))
    assert r.status_code == 201 and r.json() == {
        "recorded": 0,
        "duplicates": 1,
        "edges_opened": 0,
        "edges_closed": 0,
        "event_ids": [],
    }


def test_lineage_endpoints(loaded: TestClient) -> None:
    g = loaded.get(f"{V1}/lineage", params={"node": "lineage_customer_summary"}).json()
    assert g["root"]["name"] == S + "lineage_customer_summary" and g["total_nodes"] == 6
    up = loaded.get(f"{V1}/upstream", params={"node": "report", "node_types": ["DATASET"]}).json()
    assert {(n["short"], n["depth"]) for n in up["nodes"]} == {
        ("report", 0),
        ("lineage_customer_summary", -1),
        ("lineage_orders", -2),
        ("lineage_customers", -2),
    }
    down = loaded.get(f"{V1}/downstream", params={"node": "lineage_orders", "max_depth": 1}).json()
    assert {n["short"] for n in down["nodes"] if n["type"] == "DATASET"} == {
        "lineage_orders",
        "lineage_customer_summary",
    }
    full = loaded.get(f"{V1}/full-lineage", params={"node": "lineage_orders", "limit": 2}).json()
    assert len(full["nodes"]) == 2 and full["total_nodes"] == 5 and full["limit"] == 2


def test_field_endpoints(loaded: TestClient) -> None:
    o = loaded.get(f"{V1}/field-origin", params={"field": "report.amt"}).json()
    assert [(x["field"]["short"], x["types"]) for x in o["origins"]] == [
        ("lineage_orders.amount", ["AGGREGATION", "IDENTITY"])
    ]
    assert o["origins"][0]["path"][0]["valid_to"] is None
    ind = loaded.get(
        f"{V1}/field-origin", params={"field": "lineage_customer_summary.region_group", "include_indirect": "true"}
    ).json()
    assert ind["total"] == 6
    i = loaded.get(f"{V1}/field-impact", params={"field": "lineage_orders.amount", "level": "all"}).json()
    assert (i["total"], i["direct_count"], i["indirect_count"], i["level"]) == (7, 2, 5, "all")
    i = loaded.get(f"{V1}/field-impact", params={"field": "lineage_orders.amount"}).json()  # level field
    assert (i["total"], i["direct_count"], i["indirect_count"], i["level"]) == (2, 2, 0, "field")
    bad = loaded.get(f"{V1}/field-impact", params={"field": "lineage_orders.amount", "level": "most"})
    assert bad.status_code == 422 and bad.json()["error"]["field"] == "query.level"
    t = loaded.get(f"{V1}/trace-origin", params={"node": "report"}).json()
    assert [s["name"] for s in t["source_systems"]] == ["internal"]


def test_impact_summary_stats_resolve(loaded: TestClient) -> None:
    a = loaded.post(
        f"{V1}/analyze-impact", json={"target": "lineage_orders.customer_id", "change_type": "SCHEMA_CHANGE"}
    ).json()
    assert (a["overall_severity"], a["total_affected_count"], a["risk_level"]) == ("CRITICAL", 11, "critical")
    s = loaded.get(f"{V1}/summary", params={"node": "lineage_customer_summary"}).json()
    assert (s["upstream_count"], s["downstream_count"], s["field_count"], s["pipeline_count"]) == (3, 2, 5, 2)
    st = loaded.get(f"{V1}/stats").json()
    assert st["events_recorded"] == 2 and st["total_field_mappings"] == 47
    n = loaded.get(f"{V1}/nodes/resolve", params={"node": "report.rg"}).json()
    assert n["name"] == S + "report.rg" and n["type"] == "FIELD"


def test_as_of_and_delete(loaded: TestClient) -> None:
    eid = guide().event_id
    r = loaded.delete(f"{V1}/lineage", params={"event_id": eid, "at": "2024-06-01T00:00:00Z"})
    assert r.status_code == 200 and r.json() == {"edges_closed": 45 + 3, "edges_purged": 0, "events_deleted": 1}
    now = loaded.get(f"{V1}/upstream", params={"node": "lineage_customer_summary"}).json()
    assert now["total_nodes"] == 1
    then = loaded.get(
        f"{V1}/upstream", params={"node": "lineage_customer_summary", "as_of": "2024-05-15T00:00:00Z"}
    ).json()
    assert then["total_nodes"] == 4


def test_openlineage_post(client: TestClient) -> None:
    body = json.loads(Serde.to_json(to_run_event(guide())))
    r = client.post(f"{V1}/lineage", json=body)
    assert r.status_code == 201 and r.json()["recorded"] == 1
    o = client.get(f"{V1}/field-origin", params={"field": "lineage_customer_summary.total_amount"}).json()
    assert [x["field"]["short"] for x in o["origins"]] == ["lineage_orders.amount"]


def test_record_lineage_post(client: TestClient) -> None:
    body = {
        "context": {
            "pipeline_id": "etl",
            "execution_id": "e-1",
            "step_id": "load",
            "timestamp": "2024-06-01T00:00:00Z",
        },
        "inputs": [{"name": "raw.orders", "namespace": "pg"}],
        "outputs": [{"name": "mart.revenue", "namespace": "dw"}],
        "field_mappings": [
            {
                "source_fields": [{"dataset": {"name": "raw.orders", "namespace": "pg"}, "field": "price"}],
                "target_field": {"dataset": {"name": "mart.revenue", "namespace": "dw"}, "field": "revenue"},
                "transform_expression": "price * qty",
                "transform_type": "EXPRESSION",
            }
        ],
    }
    r = client.post(f"{V1}/record", json=body)
    assert r.status_code == 201 and r.json()["recorded"] == 1
    o = client.get(f"{V1}/field-origin", params={"field": "revenue.revenue"}).json()
    assert [(x["field"]["name"], x["types"]) for x in o["origins"]] == [("pg.raw.orders.price", ["TRANSFORMATION"])]


def test_errors_name_the_field(loaded: TestClient) -> None:
    r = loaded.get(f"{V1}/upstream", params={"node": "nope"})
    assert r.status_code == 404 and r.json()["error"]["field"] == "query.node"
    r = loaded.get(f"{V1}/upstream", params={"node": "report", "max_depth": -1})
    assert r.status_code == 422 and r.json()["error"]["field"] == "query.max_depth"
    r = loaded.get(f"{V1}/field-origin", params={"field": "report"})  # a dataset, not a field
    assert r.status_code == 422 and r.json()["error"] == {
        "field": "query.field",
        "message": "'report' is a DATASET, not a field",
    }
    r = loaded.post(f"{V1}/analyze-impact", json={"target": "report", "change_type": "EXPLODE"})
    assert r.status_code == 422 and r.json()["error"]["field"] == "body.change_type"
    r = loaded.post(f"{V1}/record", json={"context": {"pipeline_id": "p"}, "inputs": [{"name": "x", "type": "BAD"}]})
    assert r.status_code == 422 and r.json()["error"]["field"] == "body.inputs[0].type"
    r = loaded.delete(f"{V1}/lineage", params={"job": "a", "dataset": "b"})
    assert r.status_code == 400 and r.json()["error"]["field"] == "query.event_id"
    r = loaded.post(f"{V1}/events", content="{not json")
    assert r.status_code == 400 and r.json()["error"]["field"] == "body"


def test_ambiguous_node_lists_candidates(loaded: TestClient) -> None:
    loaded.post(
        f"{V1}/record", json={"context": {"pipeline_id": "p"}, "inputs": [{"name": "x.report", "namespace": "pg"}]}
    )
    r = loaded.get(f"{V1}/summary", params={"node": "report"})
    assert r.status_code == 409
    assert r.json()["error"]["candidates"] == [f"DATASET:{S}report", "DATASET:pg.x.report"]


def test_bad_item_writes_nothing(client: TestClient, api_store: LineageStore) -> None:
    good = event_to_dict(guide())
    bad = event_to_dict(copy_event("t", {"a": [("s", "a")]}))
    del bad["context"]["query_id"]
    r = client.post(f"{V1}/events", json=[good, bad])
    assert r.status_code == 400 and r.json()["error"]["field"] == "body[1].context.query_id"
    ol = json.loads(Serde.to_json(to_run_event(guide())))
    broken = dict(ol, eventTime="not a time")
    r = client.post(f"{V1}/lineage", json=[ol, broken])
    assert r.status_code == 400 and r.json()["error"]["field"] == "body[1].eventTime"
    assert api_store.get_lineage_stats().events_recorded == 0


def test_tokens_and_scopes(api_store: LineageStore) -> None:
    tokens = {"r-token": frozenset({"read"}), "w-token": frozenset({"read", "write"})}
    with TestClient(create_app(api_store, tokens)) as c:
        assert c.get(f"{V1}/health").status_code == 200
        r = c.get(f"{V1}/stats")
        assert r.status_code == 401 and r.json()["error"]["field"] == "header.authorization"
        assert c.get(f"{V1}/stats", headers={"Authorization": "Bearer wrong"}).status_code == 401
        assert c.get(f"{V1}/stats", headers={"Authorization": "Bearer r-token"}).status_code == 200
        body = event_to_dict(guide())
        r = c.post(f"{V1}/events", json=body, headers={"Authorization": "Bearer r-token"})
        assert r.status_code == 403
        r = c.post(f"{V1}/events", json=body, headers={"Authorization": "Bearer w-token"})
        assert r.status_code == 201


def test_openapi_documents_every_operation(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    ops = {op["operationId"] for path in spec["paths"].values() for op in path.values()}
    assert ops >= {
        "get_lineage",
        "get_upstream",
        "get_downstream",
        "get_full_lineage",
        "get_field_origin",
        "get_field_impact",
        "trace_origin",
        "analyze_impact",
        "get_lineage_summary",
        "get_lineage_stats",
        "delete_lineage",
        "record_batch",
        "record_openlineage",
        "record_lineage",
        "resolve",
        "health",
    }
    schemas = spec["components"]["schemas"]
    for name in ("ImpactAnalysis", "LineageGraph", "LineageStats", "LineageSummary", "RecordResult", "Edge"):
        assert schemas[name].get("examples"), name


def test_downstream_by_type_keeps_the_bridges_and_says_what_the_depth_cut(loaded: TestClient) -> None:
    r = loaded.get(f"{V1}/downstream", params={"node": S + "lineage_orders", "node_types": "DATASET", "max_depth": 1})
    assert r.status_code == 200, r.text
    g = r.json()
    assert [n["short"] for n in g["nodes"]] == ["lineage_orders", "lineage_customer_summary"]
    by_id = {n["id"]: n["short"] for n in g["nodes"]}
    assert [(by_id[b["source"]], [v["type"] for v in b["via"]], by_id[b["target"]]) for b in g["bridges"]] == [
        ("lineage_orders", ["JOB"], "lineage_customer_summary")
    ]
    assert g["truncated"] is True and g["cut_by"] == ["depth"]  # the report table is one level further
    assert (g["more_at_depth"], g["more_by_type"], g["depth_needed"]) == (1, {"DATASET": 1}, 2)
