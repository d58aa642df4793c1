"""The explorer's endpoints over HTTP (FastAPI's TestClient), on SQLite and on PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from headwater.service import create_app
from headwater.store import open_store
from tests.store.conftest import copy_event, guide, pg_url, store_url  # noqa: F401  (fixtures)

API = "/api/v1/explorer"


@pytest.fixture
def client(store_url: str) -> Iterator[TestClient]:  # noqa: F811
    store = open_store(store_url)
    store.record(guide())
    store.record(copy_event("region_report", {"region_group": [("lineage_customer_summary", "region_group")]}))
    with TestClient(create_app(store)) as c:
        c.store = store  # type: ignore[attr-defined]
        yield c


def ids(client: TestClient, *names: str) -> list[int]:
    return [client.get("/api/v1/nodes/resolve", params={"node": n}).json()["id"] for n in names]


def test_search_ranks_exact_then_prefix_then_part_then_substring(client: TestClient) -> None:
    r = client.get(f"{API}/search", params={"q": "lineage_customer"})
    assert r.status_code == 200
    hits = [(h["node"]["type"], h["node"]["short"], h["match"]) for h in r.json()["hits"]]
    assert hits[:2] == [("DATASET", "lineage_customers", "prefix"), ("DATASET", "lineage_customer_summary", "prefix")]
    assert all(m in ("prefix", "part", "substring") for _, _, m in hits)

    hits = client.get(f"{API}/search", params={"q": "AMOU"}).json()["hits"]
    assert [(h["node"]["short"], h["match"]) for h in hits] == [
        ("lineage_orders.amount", "part"),
        ("lineage_customer_summary.total_amount", "substring"),
    ]
    assert hits[0]["parent"]["short"] == "lineage_orders"

    exact = client.get(f"{API}/search", params={"q": "region_report"}).json()["hits"]
    assert (exact[0]["node"]["type"], exact[0]["match"]) == ("DATASET", "exact")


def test_search_escapes_like_wildcards_filters_types_and_says_when_truncated(client: TestClient) -> None:
    assert client.get(f"{API}/search", params={"q": "%"}).json()["hits"] == []
    assert client.get(f"{API}/search", params={"q": "lineage_orders_"}).json()["hits"] == []
    r = client.get(f"{API}/search", params={"q": "lineage", "types": "FIELD", "limit": 3}).json()
    assert len(r["hits"]) == 3 and r["truncated"] is True
    assert {h["node"]["type"] for h in r["hits"]} == {"FIELD"}
    browse = client.get(f"{API}/search", params={"types": "DATASET"}).json()
    assert [h["match"] for h in browse["hits"]] == ["browse"] * 4
    bad = client.get(f"{API}/search", params={"q": "x", "limit": 0})
    assert bad.status_code == 422 and bad.json()["error"]["field"] == "query.limit"


def test_children_and_columns_with_their_edges(client: TestClient) -> None:
    orders, summary = ids(client, "lineage_orders", "lineage_customer_summary")
    r = client.get(f"{API}/nodes/{orders}/children").json()
    assert [c["short"] for c in r["children"]] == [
        "lineage_orders.amount",
        "lineage_orders.customer_id",
        "lineage_orders.region",
        "lineage_orders.status",
    ]
    assert client.get(f"{API}/nodes/999999/children").status_code == 404

    cols = client.post(f"{API}/columns", json={"datasets": [summary]}).json()
    fields = {f["id"] for f in cols["datasets"][0]["fields"]}
    assert len(fields) == 5
    assert cols["edges"] and all(e["source"] in fields or e["target"] in fields for e in cols["edges"])
    assert all(e["type"] == "MAPS_TO" for e in cols["edges"])
    assert {p["short"] for p in cols["peers"]} >= {"lineage_orders.amount", "region_report.region_group"}
    assert cols["total_edges"] == len(cols["edges"]) and cols["truncated"] is False
    capped = client.post(f"{API}/columns", json={"datasets": [summary], "max_edges": 2}).json()
    assert len(capped["edges"]) == 2 and capped["truncated"] is True
    # before anything was recorded, a dataset has no columns
    old = client.post(f"{API}/columns", json={"datasets": [summary], "as_of": "2000-01-01T00:00:00Z"}).json()
    assert old["datasets"][0]["fields"] == [] and old["edges"] == []
    missing = client.post(f"{API}/columns", json={"datasets": [summary, 999999]})
    assert missing.status_code == 404 and missing.json()["error"] == {
        "field": "body.datasets[1]",
        "message": "no node matches '#999999'",
    }


def test_field_paths_are_whole_subgraphs(client: TestClient) -> None:
    r = client.get(f"{API}/field-paths", params={"field": "lineage_customer_summary.region_group"}).json()
    up = {n["short"] for n in r["upstream"]["nodes"]}
    assert up == {
        "lineage_orders.region",
        "lineage_orders.customer_id",
        "lineage_orders.amount",
        "lineage_orders.status",
        "lineage_customers.customer_id",
        "lineage_customers.customer_level",
    }
    assert all(n["depth"] < 0 for n in r["upstream"]["nodes"])
    region_group = r["field"]["id"]
    assert {e["target"] for e in r["upstream"]["edges"]} == {region_group}
    assert [n["short"] for n in r["downstream"]["nodes"]] == ["region_report.region_group"]
    assert {d["short"] for d in r["datasets"]} == {
        "lineage_orders",
        "lineage_customers",
        "lineage_customer_summary",
        "region_report",
    }
    # the guide's CASE yields constants: no DIRECT input; region_label is UPPER(region)
    params = {"field": "lineage_customer_summary.region_group", "include_indirect": False}
    assert client.get(f"{API}/field-paths", params=params).json()["upstream"]["nodes"] == []
    params["field"] = "lineage_customer_summary.region_label"
    direct = client.get(f"{API}/field-paths", params=params).json()
    assert [n["short"] for n in direct["upstream"]["nodes"]] == ["lineage_orders.region"]
    assert [(e["subtype"], e["dependency"]) for e in direct["upstream"]["edges"]] == [("TRANSFORMATION", "DIRECT")]
    not_a_field = client.get(f"{API}/field-paths", params={"field": "lineage_orders"})  # a dataset
    assert not_a_field.status_code == 422 and not_a_field.json()["error"] == {
        "field": "query.field",
        "message": "'lineage_orders' is a DATASET, not a field",
    }
    assert client.get(f"{API}/field-paths", params={"field": "nope.nope"}).status_code == 404


def test_column_index_holds_every_edge_of_the_fields(client: TestClient) -> None:
    datasets = ids(client, "lineage_orders", "lineage_customers", "lineage_customer_summary")
    r = client.post(f"{API}/column-index", json={"datasets": datasets})
    assert r.status_code == 200
    ix = r.json()
    assert ix["datasets"] == sorted(datasets) and ix["truncated"] is False
    E, A, W = ix["edges"], ix["all"], ix["written"]
    written: dict[tuple[int, int], list[int]] = {}
    for job, ds, f in zip(W["job"], W["dataset"], W["field"], strict=True):
        written.setdefault((job, ds), []).append(f)
    virtual = {
        -((a << 31) | f): (src, f)
        for a, src, ds, job in zip(A["id"], A["source"], A["dataset"], A["job"], strict=True)
        for f in written.get((job, ds), [])
    }
    assert virtual  # the guide's JOIN and FILTER: dataset-level mappings
    # the same edges, stored and virtual, as /columns returns for those datasets
    cols = client.post(f"{API}/columns", json={"datasets": datasets}).json()
    want = {e["id"]: (e["source"], e["target"]) for e in cols["edges"]}
    have = {i: (s, t) for i, s, t in zip(E["id"], E["source"], E["target"], strict=True)} | virtual
    assert have == want
    kinds = {e["id"]: (e["dependency"], e["subtype"]) for e in cols["edges"] if e["id"] > 0}
    for i, k in zip(E["id"], E["kind"], strict=True):
        dep, sub = kinds[i]
        assert k == (0 if dep == "DIRECT" else 1 if sub in ("CONDITIONAL", "WINDOW") else 2)
    assert {0, 1} <= set(E["kind"])  # DIRECT, and the CASE (CONDITIONAL)
    # every field named has its dataset
    parents = {f["id"]: dc["dataset"]["id"] for dc in cols["datasets"] for f in dc["fields"]}
    parents |= {p["id"]: p["parent_id"] for p in cols["peers"]}
    field, named = 0, {}
    for d, ds in zip(ix["fields"]["id"], ix["fields"]["dataset"], strict=True):
        field += d
        named[field] = ds
    assert {f for e in have.values() for f in e} <= set(named)
    assert all(parents[f] == ds for f, ds in named.items() if f in parents)
    capped = client.post(f"{API}/column-index", json={"datasets": datasets, "max_edges": 1}).json()
    assert capped["truncated"] is True and capped["edges"]["id"] == []
    assert client.post(f"{API}/column-index", json={"datasets": []}).status_code == 422


def test_edge_and_job_carry_the_statement(client: TestClient) -> None:
    paths = client.get(f"{API}/field-paths", params={"field": "lineage_customer_summary.total_amount"}).json()
    edge = next(e for e in paths["upstream"]["edges"] if e["subtype"] == "AGGREGATION")
    d = client.get(f"{API}/edges/{edge['id']}").json()
    assert d["edge"]["expression"] == "SUM(lineage_orders.amount)"
    assert (d["source"]["short"], d["target"]["short"]) == (
        "lineage_orders.amount",
        "lineage_customer_summary.total_amount",
    )
    assert d["job"]["type"] == "JOB"
    s = d["statement"]
    assert s["kind"] == "headwater" and s["sql"].startswith(
        "INSERT INTO lineage_customer_summary\nWITH customer_totals"
    )
    assert s["sql"].endswith("ORDER BY total_amount DESC")
    assert s["context"]["user"] == "lineage_user" and s["context"]["query_id"] == "guide-q1"
    assert "sql" not in s["context"]
    job = client.get(f"{API}/jobs/{d['job']['id']}").json()
    assert job["total_statements"] == 1 and job["statements"][0]["event_id"] == s["event_id"]
    assert [n["short"] for n in job["inputs"]] == ["lineage_customers", "lineage_orders"]
    assert [n["short"] for n in job["outputs"]] == ["lineage_customer_summary"]
    gone = client.get(f"{API}/edges/99999999")
    assert gone.status_code == 404 and gone.json()["error"] == {"field": "path.edge_id", "message": "no edge #99999999"}


def test_openapi_documents_the_explorer_endpoints_with_examples(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    ops = {op["operationId"] for path in spec["paths"].values() for op in path.values()}
    assert {
        "explorer_search",
        "explorer_children",
        "explorer_columns",
        "explorer_field_paths",
        "explorer_column_index",
        "explorer_edge",
        "explorer_job",
    } <= ops
    for name in ("SearchResult", "ColumnEdges", "ColumnIndex", "FieldPaths", "EdgeDetail", "JobDetail", "Statement"):
        assert spec["components"]["schemas"][name].get("examples"), name


def test_read_scope_is_required_when_tokens_are_configured(store_url: str) -> None:  # noqa: F811
    app = create_app(open_store(store_url), {"r": frozenset({"read"})})
    with TestClient(app) as c:
        assert c.get(f"{API}/search", params={"q": "x"}).status_code == 401
        assert c.get(f"{API}/search", params={"q": "x"}, headers={"Authorization": "Bearer r"}).status_code == 200
        assert c.get("/").status_code == 200  # the explorer's files need no token


def test_field_paths_say_when_max_depth_left_fields_out(client: TestClient) -> None:
    # lineage_orders.region → summary.region_group → region_report.region_group: two levels downstream
    params = {"field": "lineage_orders.region", "level": "all"}
    one = client.get(f"{API}/field-paths", params={**params, "max_depth": 1}).json()["downstream"]
    two = client.get(f"{API}/field-paths", params={**params, "max_depth": 2}).json()["downstream"]
    assert one["truncated"] is True and len(one["nodes"]) < len(two["nodes"])
    assert two["truncated"] is False
