"""Read answers serialised once (``service.responses``): the same bytes FastAPI's
generic path sends for the documented model, and the OpenAPI schema still names each answer's type."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from fastapi.testclient import TestClient
from tests.store.conftest import copy_event, guide

from headwater.service import create_app, responses
from headwater.store import LineageStore

V1 = "/api/v1"
# A second statement with non-ASCII names and SQL, read back through every kind of answer.
ETE = copy_event(
    "rapport_été",
    {"montant_€": [("lineage_customer_summary", "total_amount")], "région": [("lineage_customer_summary", "region")]},
    sql='INSERT INTO rapport_été SELECT total_amount AS "montant_€", region AS région FROM lineage_customer_summary',
)


def _requests(store: LineageStore) -> list[tuple[str, str, dict[str, Any]]]:
    field = store.resolve("rapport_été.montant_€").id
    dataset = store.resolve("rapport_été").id
    graph = store.get_lineage("rapport_été", max_depth=1)
    job = next(n.id for n in graph.nodes if n.type == "JOB")
    edge = graph.edges[0].id
    node = {"node": "lineage_customer_summary"}
    return [
        ("GET", "/lineage", node),
        ("GET", "/upstream", {"node": "rapport_été", "max_depth": 5}),
        ("GET", "/downstream", {"node": "lineage_orders"}),
        ("GET", "/full-lineage", {"node": "lineage_orders", "limit": 3}),
        ("GET", "/field-origin", {"field": "rapport_été.montant_€", "level": "all"}),
        ("GET", "/field-impact", {"field": "lineage_orders.amount", "level": "all"}),
        ("GET", "/trace-origin", {"node": "rapport_été"}),
        ("POST", "/analyze-impact", {"target": "lineage_orders.customer_id", "change_type": "SCHEMA_CHANGE"}),
        ("GET", "/summary", node),
        ("GET", "/stats", {}),
        ("GET", "/nodes/resolve", {"node": "rapport_été.région"}),
        ("GET", "/jobs/versions", {"job": f"#{job}"}),
        ("GET", "/diff", {"from": "2024-04-30T00:00:00Z", "to": "now"}),
        ("GET", "/explorer/overview", {}),
        ("GET", "/explorer/search", {"q": "mont"}),
        ("GET", f"/explorer/nodes/{dataset}/children", {}),
        ("POST", "/explorer/columns", {"datasets": [dataset]}),
        ("GET", "/explorer/field-paths", {"field": f"#{field}"}),
        ("GET", f"/explorer/edges/{edge}", {}),
        ("GET", f"/explorer/jobs/{job}", {}),
    ]


def _same_run(body: bytes) -> bytes:
    """An impact analysis without its id (a fresh uuid4 per analysis)."""
    return re.sub(rb'^\{"analysis_id":"[0-9a-f-]{36}",', b"{", body)


def _ask(client: TestClient, method: str, path: str, params: dict[str, Any]) -> Any:
    if method == "POST":
        return client.post(V1 + path, json=params)
    return client.get(V1 + path, params=params)


def test_answers_are_the_bytes_of_fastapis_generic_path(
    api_store: LineageStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    api_store.record_batch([guide(), ETE])
    asks = _requests(api_store)
    with TestClient(create_app(api_store)) as client:
        new = [_ask(client, *a) for a in asks]
    monkeypatch.setattr(responses, "json_response", lambda model: model)  # FastAPI validates it and encodes it
    with TestClient(create_app(api_store)) as client:
        old = [_ask(client, *a) for a in asks]
    for (_, path, _), a, b in zip(asks, new, old, strict=True):
        assert (a.status_code, b.status_code) == (200, 200), (path, a.text, b.text)
        assert _same_run(a.content) == _same_run(b.content), path
        assert a.headers["content-type"] == b.headers["content-type"] == "application/json", path
    origin = json.loads(new[4].content)
    assert {o["field"]["short"] for o in origin["origins"]} >= {"lineage_orders.amount"}
    assert "montant_€".encode() in new[4].content  # UTF-8 as such, not \\u escapes (as before)


def test_every_read_answer_documents_its_model(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    reads = [
        (path, method, op)
        for path, ops in spec["paths"].items()
        for method, op in ops.items()
        if method == "get" or op["operationId"] in ("analyze_impact", "explorer_columns")
    ]
    assert len(reads) >= 20
    for path, method, op in reads:
        schema = op["responses"]["200"]["content"]["application/json"]["schema"]
        if op["operationId"] != "health":
            assert schema.get("$ref", "").startswith("#/components/schemas/"), (method, path, schema)
