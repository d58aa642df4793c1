"""``GET /api/v1/diff``: typed and documented with an example like the other routes; a bad time is a
400 naming the parameter."""

from __future__ import annotations

from fastapi.testclient import TestClient

from headwater.service import create_app
from headwater.store import LineageStore


def test_the_route_is_in_the_openapi_document(store: LineageStore) -> None:
    with TestClient(create_app(store)) as client:
        spec = client.get("/openapi.json").json()
    op = spec["paths"]["/api/v1/diff"]["get"]
    assert op["operationId"] == "get_diff"
    assert {p["name"]: p["required"] for p in op["parameters"]} == {"from": True, "to": False}
    schema = spec["components"]["schemas"]["Diff"]
    example = schema["examples"][0]
    assert set(example) == set(schema["properties"])
    assert example["columns"][0]["impact"]["readers"][0]["path"][-1].endswith("region_summary.total_revenue")


def test_bad_times_are_400(store: LineageStore) -> None:
    with TestClient(create_app(store)) as client:
        r = client.get("/api/v1/diff", params={"from": "soon"})
        assert r.status_code == 400
        assert r.json()["error"]["field"] == "query.from"
        r = client.get("/api/v1/diff", params={"from": "7d", "to": "later"})
        assert (r.status_code, r.json()["error"]["field"]) == (400, "query.to")
        r = client.get("/api/v1/diff")
        assert r.status_code == 422
        body = client.get("/api/v1/diff", params={"from": "7d"}).json()
    assert (body["verdict"], body["columns"], body["edges"]) == ("SAFE", [], [])
