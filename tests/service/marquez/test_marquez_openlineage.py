"""Issue 38 item 7: datasets recorded from OpenLineage keep their namespace in Marquez's API (one with
colons and slashes too), the events come back as sent, and the service's token and ``Host`` checks
guard the new paths as the others."""

from __future__ import annotations

import uuid

import httpx
from fastapi.testclient import TestClient
from tests.service.conftest import running

from headwater.service import create_app
from headwater.service.guard import HttpPolicy
from headwater.store import LineageStore

PG = "postgres://db.example:5432"


def _event() -> dict[str, object]:
    out = {
        "namespace": PG,
        "name": "shop.public.daily",
        "facets": {
            "schema": {
                "_producer": "https://example.com/p",
                "_schemaURL": "https://openlineage.io/spec/facets/1-1-1/SchemaDatasetFacet.json",
                "fields": [{"name": "total", "type": "NUMERIC"}],
            },
            "columnLineage": {
                "_producer": "https://example.com/p",
                "_schemaURL": "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json",
                "fields": {
                    "total": {
                        "inputFields": [
                            {
                                "namespace": PG,
                                "name": "shop.public.orders",
                                "field": "amount",
                                "transformations": [
                                    {"type": "DIRECT", "subtype": "AGGREGATION", "description": "SUM(amount)"}
                                ],
                            }
                        ]
                    }
                },
            },
        },
    }
    return {
        "eventType": "COMPLETE",
        "eventTime": "2025-01-02T03:04:05Z",
        "producer": "https://example.com/p",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": str(uuid.uuid4())},
        "job": {"namespace": "food_delivery", "name": "etl_daily"},
        "inputs": [{"namespace": PG, "name": "shop.public.orders"}],
        "outputs": [out],
    }


def test_openlineage_names_come_back_as_sent(api_store: LineageStore) -> None:
    event = _event()
    with TestClient(create_app(api_store)) as c:
        assert c.post("/api/v1/lineage", json=event).status_code == 201
        names = {n["name"] for n in c.get("/api/v1/namespaces").json()["namespaces"]}
        assert names == {PG, "food_delivery"}
        datasets = c.get("/api/v1/namespaces/postgres:%2F%2Fdb.example:5432/datasets").json()
        assert [d["name"] for d in datasets["datasets"]] == ["shop.public.daily", "shop.public.orders"]
        daily = c.get("/api/v1/namespaces/postgres:%2F%2Fdb.example:5432/datasets/shop.public.daily").json()
        assert daily["fields"] == [{"name": "total", "type": "NUMERIC", "tags": []}]
        graph = c.get("/api/v1/lineage", params={"nodeId": f"dataset:{PG}:shop.public.daily"}).json()["graph"]
        assert {(e["origin"], e["destination"]) for n in graph for e in n["outEdges"]} == {
            (f"dataset:{PG}:shop.public.orders", "job:food_delivery:etl_daily"),
            ("job:food_delivery:etl_daily", f"dataset:{PG}:shop.public.daily"),
        }
        cols = c.get("/api/v1/column-lineage", params={"nodeId": f"datasetField:{PG}:shop.public.daily:total"})
        total = next(n for n in cols.json()["graph"] if n["id"].endswith(":total"))
        assert total["data"]["inputFields"][0]["transformations"] == [
            {"type": "DIRECT", "subtype": "AGGREGATION", "description": "SUM(amount)", "masking": False}
        ]
        assert c.get("/api/v1/namespaces/food_delivery/jobs/etl_daily").json()["outputs"] == [
            {"namespace": PG, "name": "shop.public.daily"}
        ]
        assert c.get("/api/v1/events/lineage").json()["events"] == [event]


def test_the_new_paths_need_a_token_when_tokens_are_set(api_store: LineageStore) -> None:
    app = create_app(api_store, tokens={"r": {"read"}})
    with TestClient(app) as c:
        for url in ("/api/v1/namespaces", "/api/v1/lineage?nodeId=dataset:a:b", "/api/v1/events/lineage"):
            assert c.get(url).status_code == 401, url
            assert c.get(url, headers={"authorization": "Bearer r"}).status_code in (200, 404), url


def test_the_host_check_guards_the_new_paths(api_store: LineageStore) -> None:
    with running(create_app(api_store, None, HttpPolicy.for_bind("127.0.0.1"))) as url:
        r = httpx.get(f"{url}/api/v1/namespaces", headers={"Host": "evil.example"})
        assert r.status_code == 400 and r.json()["error"]["field"] == "header.host"
        assert httpx.get(f"{url}/api/v1/namespaces").status_code == 200
