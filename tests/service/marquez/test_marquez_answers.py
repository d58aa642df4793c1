"""Issue 38 item 7: Marquez's read API answers what a person reading ``examples/etl.sql`` says.

``etl.sql``: ``paid_orders`` (CTAS from ``sales.orders`` WHERE status = 'PAID'), ``customer_revenue``
(CTAS: ``paid_orders`` JOIN ``customers`` GROUP BY customer), statement 3 (INSERT OVERWRITE
``region_revenue`` from ``customer_revenue`` GROUP BY region, a CASE on SUM(revenue)); the guide's
event writes ``lineage_demo.lineage_customer_summary``."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

ORDERS, PAID, CUSTOMERS = (
    "dataset:internal:sales.orders",
    "dataset:internal:sales.paid_orders",
    "dataset:internal:sales.customers",
)
REVENUE, REGION = "dataset:internal:sales.customer_revenue", "dataset:internal:sales.region_revenue"
J_PAID, J_REV, J_REGION = "job:headwater:paid_orders", "job:headwater:customer_revenue", "job:headwater:etl.sql#3"


def _edges(graph: list[dict[str, Any]]) -> set[tuple[str, str]]:
    return {(e["origin"], e["destination"]) for n in graph for e in n["outEdges"]}


def _node(graph: list[dict[str, Any]], node_id: str) -> dict[str, Any]:
    return next(n for n in graph if n["id"] == node_id)


def test_a_datasets_lineage_is_its_jobs_and_datasets_with_edges_in_data_flow_order(marquez: TestClient) -> None:
    r = marquez.get("/api/v1/lineage", params={"nodeId": REVENUE, "depth": 20})
    assert r.status_code == 200, r.text
    graph = r.json()["graph"]
    assert [n["id"] for n in graph] == sorted([ORDERS, PAID, CUSTOMERS, REVENUE, REGION, J_PAID, J_REV, J_REGION])
    assert _edges(graph) == {
        (ORDERS, J_PAID),
        (J_PAID, PAID),
        (PAID, J_REV),
        (CUSTOMERS, J_REV),
        (J_REV, REVENUE),
        (REVENUE, J_REGION),
        (J_REGION, REGION),
    }
    job = _node(graph, J_REV)
    assert job["type"] == "JOB" and job["data"]["name"] == "customer_revenue"
    assert job["inEdges"] == [{"origin": CUSTOMERS, "destination": J_REV}, {"origin": PAID, "destination": J_REV}]
    assert job["data"]["inputs"] == [
        {"namespace": "internal", "name": "sales.customers"},
        {"namespace": "internal", "name": "sales.paid_orders"},
    ]
    assert "JOIN sales.customers" in job["data"]["facets"]["sql"]["query"]
    ds = _node(graph, REGION)
    assert ds["type"] == "DATASET" and [f["name"] for f in ds["data"]["fields"]] == ["region", "revenue", "tier"]


def test_depth_counts_a_dataset_job_dataset_hop_as_one(marquez: TestClient) -> None:
    graph = marquez.get("/api/v1/lineage", params={"nodeId": REGION, "depth": 1}).json()["graph"]
    assert [n["id"] for n in graph] == sorted([REGION, J_REGION, REVENUE])


def test_a_jobs_lineage_starts_at_the_job(marquez: TestClient) -> None:
    graph = marquez.get("/api/v1/lineage", params={"nodeId": J_REGION, "depth": 1}).json()["graph"]
    assert _edges(graph) == {(REVENUE, J_REGION), (J_REGION, REGION)}
    graph = marquez.get("/api/v1/lineage", params={"nodeId": J_REGION, "depth": 2}).json()["graph"]
    assert {n["id"] for n in graph} == {REGION, J_REGION, REVENUE, J_REV, PAID, CUSTOMERS}


def test_a_columns_lineage_lists_each_input_with_headwaters_transformation(marquez: TestClient) -> None:
    root = "datasetField:internal:sales.region_revenue:revenue"
    r = marquez.get("/api/v1/column-lineage", params={"nodeId": root, "depth": 20})
    assert r.status_code == 200, r.text
    graph = r.json()["graph"]
    node = _node(graph, root)
    assert node["type"] == "DATASET_FIELD"
    inputs = [
        (i["dataset"], i["field"], i["transformationType"], i["transformationDescription"])
        for i in node["data"]["inputFields"]
    ]
    assert inputs == [
        ("sales.customer_revenue", "region", "GROUP_BY", "customer_revenue.region"),  # GROUP BY region
        ("sales.customer_revenue", "revenue", "AGGREGATION", "SUM(customer_revenue.revenue)"),
    ]
    revenue = _node(graph, "datasetField:internal:sales.customer_revenue:revenue")
    amount = [i for i in revenue["data"]["inputFields"] if i["field"] == "amount"]
    assert amount[0]["transformations"] == [
        {"type": "DIRECT", "subtype": "AGGREGATION", "description": "SUM(paid_orders.amount)", "masking": False}
    ]
    # all the way up: the filter's column and the amount the sums come from
    ids = {n["id"] for n in graph}
    assert {"datasetField:internal:sales.orders:amount", "datasetField:internal:sales.orders:status"} <= ids
    assert "datasetField:internal:sales.region_revenue:tier" not in ids  # a sibling, not upstream
    # Marquez's own edge orientation: inEdges from the node to its inputs
    assert node["inEdges"] == [
        {"origin": root, "destination": "datasetField:internal:sales.customer_revenue:region"},
        {"origin": root, "destination": "datasetField:internal:sales.customer_revenue:revenue"},
    ]
    assert {"origin": "datasetField:internal:sales.customer_revenue:revenue", "destination": root} in revenue[
        "outEdges"
    ]


def test_with_downstream_adds_what_the_column_feeds(marquez: TestClient) -> None:
    root = "datasetField:internal:sales.paid_orders:amount"
    up = {n["id"] for n in marquez.get("/api/v1/column-lineage", params={"nodeId": root}).json()["graph"]}
    assert up == {root, "datasetField:internal:sales.orders:amount", "datasetField:internal:sales.orders:status"}
    r = marquez.get("/api/v1/column-lineage", params={"nodeId": root, "withDownstream": "true"})
    both = {n["id"] for n in r.json()["graph"]}
    assert both - up == {
        "datasetField:internal:sales.customer_revenue:revenue",
        "datasetField:internal:sales.region_revenue:revenue",
        "datasetField:internal:sales.region_revenue:tier",  # CASE WHEN SUM(revenue) > 10000
    }
    tier = _node(r.json()["graph"], "datasetField:internal:sales.region_revenue:tier")
    assert [(i["field"], i["transformationType"]) for i in tier["data"]["inputFields"]] == [("revenue", "CONDITIONAL")]


def test_a_datasets_column_lineage_covers_its_columns(marquez: TestClient) -> None:
    graph = marquez.get("/api/v1/column-lineage", params={"nodeId": PAID, "depth": 1}).json()["graph"]
    mine = sorted(n["data"]["field"] for n in graph if n["data"]["dataset"] == "sales.paid_orders")
    assert mine == ["amount", "customer_id", "order_date", "order_id"]


def test_namespaces_datasets_and_jobs(marquez: TestClient) -> None:
    names = [n["name"] for n in marquez.get("/api/v1/namespaces").json()["namespaces"]]
    assert names == ["headwater", "internal"]
    assert marquez.get("/api/v1/namespaces/internal").json()["name"] == "internal"
    page = marquez.get("/api/v1/namespaces/internal/datasets", params={"limit": 3}).json()
    assert page["totalCount"] == 8 and len(page["datasets"]) == 3
    summary = marquez.get("/api/v1/namespaces/internal/datasets/lineage_demo.lineage_customer_summary").json()
    assert [(f["name"], f["type"]) for f in summary["fields"]][:2] == [
        ("customer_id", "BIGINT"),
        ("region_label", "VARCHAR(16)"),
    ]
    jobs = marquez.get("/api/v1/namespaces/headwater/jobs").json()
    assert jobs["totalCount"] == 4
    assert [j["name"] for j in jobs["jobs"]][:3] == ["customer_revenue", "etl.sql#3", "paid_orders"]
    job = marquez.get("/api/v1/namespaces/headwater/jobs/paid_orders").json()
    assert job["inputs"] == [{"namespace": "internal", "name": "sales.orders"}]
    assert job["outputs"] == [{"namespace": "internal", "name": "sales.paid_orders"}]


def test_search_matches_names_with_sql_wildcards(marquez: TestClient) -> None:
    hits = marquez.get("/api/v1/search", params={"q": "revenue"}).json()
    assert [(h["type"], h["nodeId"]) for h in hits["results"]] == [
        ("JOB", J_REV),
        ("DATASET", REVENUE),
        ("DATASET", REGION),
    ]
    assert [
        h["nodeId"] for h in marquez.get("/api/v1/search", params={"q": "revenue", "filter": "job"}).json()["results"]
    ] == [J_REV]
    assert [h["name"] for h in marquez.get("/api/v1/search", params={"q": "paid_o%s"}).json()["results"]] == [
        "paid_orders",
        "sales.paid_orders",
    ]


def test_events_are_the_stored_runs_as_openlineage(marquez: TestClient) -> None:
    page = marquez.get("/api/v1/events/lineage").json()
    assert page["totalCount"] == 4
    assert {e["eventType"] for e in page["events"]} == {"COMPLETE"}
    outputs = {o["name"] for e in page["events"] for o in e["outputs"]}
    assert outputs == {
        "sales.paid_orders",
        "sales.customer_revenue",
        "sales.region_revenue",
        "lineage_demo.lineage_customer_summary",
    }
    assert {o["namespace"] for e in page["events"] for o in e["outputs"]} == {"internal"}  # as the API names them
    first = marquez.get("/api/v1/events/lineage", params={"sortDirection": "asc", "limit": 1}).json()
    assert len(first["events"]) == 1 and first["totalCount"] == 4


def test_headwaters_own_lineage_query_keeps_its_path(marquez: TestClient) -> None:
    own = marquez.get("/api/v1/lineage", params={"node": "region_revenue", "max_depth": 1}).json()
    assert own["root"]["name"] == "internal.sales.region_revenue"
    assert marquez.get("/api/v1/lineage", params={"nodeId": "table:x"}).status_code == 400
    missing = marquez.get("/api/v1/lineage", params={"nodeId": "dataset:internal:sales.nope"})
    assert missing.status_code == 404 and missing.json()["error"]["field"] == "query.nodeId"
