"""Error answers found wanting by QA, over HTTP on SQLite and PostgreSQL: ids beyond the id columns,
NUL characters, malformed JSON, field paths into the body, wrong node types, unknown events."""

from __future__ import annotations

import copy
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
BIG = "99999999999"  # beyond PostgreSQL's integer
HUGE = "999999999999999999999"  # beyond any 64-bit integer (SQLite's OverflowError)
NUL = "a NUL character (%00) is not allowed"
NUL_BODY = "a NUL character (\\u0000) is not allowed"


@pytest.fixture
def loaded(client: TestClient) -> TestClient:
    r = client.post(f"{V1}/events", json=event_to_dict(guide()))
    assert r.status_code == 201 and r.json()["recorded"] == 1
    return client


def _error(r: object, status: int) -> dict[str, object]:
    assert r.status_code == status, r.text  # type: ignore[attr-defined]
    return r.json()["error"]  # type: ignore[attr-defined,no-any-return]


def _events(store: LineageStore) -> int:
    return store.get_lineage_stats().events_recorded


def _ol() -> dict[str, object]:
    return json.loads(Serde.to_json(to_run_event(guide())))  # type: ignore[no-any-return]


@pytest.mark.parametrize("n", [BIG, HUGE])
@pytest.mark.parametrize(
    ("path", "field", "message"),
    [
        ("/lineage?node=%23{n}", "query.node", "no node matches '#{n}'"),
        ("/nodes/resolve?node=%23{n}", "query.node", "no node matches '#{n}'"),
        ("/field-origin?field=%23{n}", "query.field", "no node matches '#{n}'"),
        ("/explorer/field-paths?field=%23{n}", "query.field", "no node matches '#{n}'"),
        ("/explorer/nodes/{n}/children", "path.node_id", "no node matches '{n}'"),
        ("/explorer/nodes/-{n}/children", "path.node_id", "no node matches '-{n}'"),
        ("/explorer/jobs/{n}", "path.job_id", "no node matches '{n}'"),
        ("/explorer/edges/{n}", "path.edge_id", "no edge #{n}"),
        ("/explorer/edges/-{n}{n}", "path.edge_id", "no edge #-{n}{n}"),
    ],
)
def test_an_id_beyond_the_id_columns_is_404(loaded: TestClient, n: str, path: str, field: str, message: str) -> None:
    r = loaded.get(V1 + path.format(n=n))
    assert _error(r, 404) == {"field": field, "message": message.format(n=n)}


def test_out_of_range_ids_in_bodies_and_odd_digits_are_404(loaded: TestClient) -> None:
    orders = loaded.get(f"{V1}/nodes/resolve", params={"node": "lineage_orders"}).json()["id"]
    r = loaded.post(f"{V1}/explorer/columns", json={"datasets": [orders, int(HUGE)]})
    assert _error(r, 404) == {"field": "body.datasets[1]", "message": f"no node matches '#{HUGE}'"}
    r = loaded.post(f"{V1}/analyze-impact", json={"target": f"#{BIG}"})
    assert _error(r, 404)["field"] == "body.target"
    r = loaded.delete(f"{V1}/lineage", params={"dataset": f"#{HUGE}"})
    assert _error(r, 404)["field"] == "query.dataset"
    r = loaded.get(f"{V1}/nodes/resolve", params={"node": "#²"})  # a digit to str.isdigit, not to int()
    assert _error(r, 404) == {"field": "query.node", "message": "no node matches '#²'"}
    assert loaded.get(f"{V1}/nodes/resolve", params={"node": f"#{orders}"}).json()["short"] == "lineage_orders"


@pytest.mark.parametrize(
    ("path", "params", "field"),
    [
        ("/nodes/resolve", {"node": "a\x00b"}, "query.node"),
        ("/lineage", {"node": "\x00"}, "query.node"),
        ("/field-impact", {"field": "lineage_orders.amount\x00"}, "query.field"),
        ("/explorer/search", {"q": "\x00"}, "query.q"),
        ("/explorer/field-paths", {"field": "\x00"}, "query.field"),
    ],
)
def test_a_nul_in_a_query_parameter_is_422_naming_it(
    loaded: TestClient, path: str, params: dict[str, str], field: str
) -> None:
    assert _error(loaded.get(V1 + path, params=params), 422) == {"field": field, "message": NUL}


def test_a_nul_in_a_body_is_422_naming_the_field_and_nothing_is_written(
    client: TestClient, api_store: LineageStore
) -> None:
    good = event_to_dict(guide())
    bad = event_to_dict(copy_event("t", {"a": [("s", "a")]}))
    bad["target"]["table"]["name"] = "a\x00b"
    r = client.post(f"{V1}/events", json=[good, bad])
    assert _error(r, 422) == {"field": "body[1].target.table.name", "message": NUL_BODY}
    r = client.post(f"{V1}/events", json=dict(good, context=dict(good["context"], sql="select \x00")))
    assert _error(r, 422) == {"field": "body.context.sql", "message": NUL_BODY}
    r = client.post(f"{V1}/lineage", json=dict(_ol(), producer="x\x00"))
    assert _error(r, 422) == {"field": "body.producer", "message": NUL_BODY}
    r = client.post(f"{V1}/record", json={"context": {"pipeline_id": "p\x00"}, "inputs": [{"name": "a.b"}]})
    assert _error(r, 422) == {"field": "body.context.pipeline_id", "message": NUL_BODY}
    r = client.post(f"{V1}/record", json={"context": {}, "metadata": {"k": "\x00"}})
    assert _error(r, 422) == {"field": "body.metadata.k", "message": NUL_BODY}
    r = client.post(f"{V1}/analyze-impact", json={"target": "a\x00"})
    assert _error(r, 422) == {"field": "body.target", "message": NUL_BODY}
    r = client.delete(f"{V1}/lineage", params={"job": "a\x00"})
    assert _error(r, 422) == {"field": "query.job", "message": NUL}
    assert _events(api_store) == 0


@pytest.mark.parametrize("path", ["/events", "/lineage", "/record", "/analyze-impact", "/explorer/columns"])
def test_a_body_that_is_not_json_is_400_everywhere(client: TestClient, path: str) -> None:
    e = _error(client.post(V1 + path, content="{not json", headers={"content-type": "application/json"}), 400)
    assert e["field"] == "body" and str(e["message"]).startswith("not JSON")
    e = _error(client.post(V1 + path, content=b"\xff\xfe{", headers={"content-type": "application/json"}), 400)
    assert e["field"] == "body" and str(e["message"]).startswith("not JSON")
    e = _error(client.post(V1 + path, content=b"", headers={"content-type": "application/json"}), 400)
    assert e == {"field": "body", "message": "empty body"}


def test_a_token_is_checked_before_the_body(api_store: LineageStore) -> None:
    tokens = {"r-token": frozenset({"read"}), "w-token": frozenset({"read", "write"})}
    with TestClient(create_app(api_store, tokens)) as c:
        bad = {"content": "{not json", "headers": {"content-type": "application/json"}}
        assert c.post(f"{V1}/record", **bad).status_code == 401  # type: ignore[arg-type]
        assert c.post(f"{V1}/analyze-impact", **bad).status_code == 401  # type: ignore[arg-type]
        r = c.post(f"{V1}/record", content="{not json", headers={**bad["headers"], "Authorization": "Bearer r-token"})
        assert r.status_code == 403
        r = c.post(f"{V1}/record", content="{not json", headers={**bad["headers"], "Authorization": "Bearer w-token"})
        assert r.status_code == 400


def test_field_paths_are_paths_into_the_body(client: TestClient, api_store: LineageStore) -> None:
    good = event_to_dict(guide())
    no_context = {k: v for k, v in good.items() if k != "context"}
    assert _error(client.post(f"{V1}/events", json=no_context), 400)["field"] == "body.context"
    r = client.post(f"{V1}/events", json=[good, {k: v for k, v in good.items() if k != "target"}])
    assert _error(r, 400)["field"] == "body[1].target"
    r = client.post(f"{V1}/events", json=[good, 7])
    assert _error(r, 400)["field"] == "body[1]"
    lines = json.dumps(good) + "\n" + json.dumps(dict(good, source_command="Nope")) + "\n"
    r = client.post(f"{V1}/events", content=lines, headers={"content-type": "application/x-ndjson"})
    assert _error(r, 400)["field"] == "body[1].source_command"

    ol = _ol()
    assert _error(client.post(f"{V1}/lineage", json=dict(ol, eventTime="bad")), 400) == {
        "field": "body.eventTime",
        "message": "not an ISO 8601 time: 'bad'",
    }
    broken = copy.deepcopy(ol)
    del broken["job"]["namespace"]  # type: ignore[index,attr-defined]
    assert _error(client.post(f"{V1}/lineage", json=[ol, broken]), 400) == {
        "field": "body[1].job.namespace",
        "message": "missing",
    }

    # refused by the store (not by the decoder): the item is named, and what was refused
    long = event_to_dict(copy_event("t" * 1100, {"a": [("lineage_orders", "amount")]}))
    e = _error(client.post(f"{V1}/events", json=[good, long]), 400)
    assert e["field"] == "body[1]" and str(e["message"]).startswith("dataset: ")
    assert "1024" in str(e["message"])

    # plain values in messages, not Python enum reprs
    r = client.post(f"{V1}/record", json={"context": {}, "inputs": [{"name": "a.b", "type": "FIELD"}]})
    assert _error(r, 400) == {
        "field": "body.inputs[0].type",
        "message": "'FIELD' is not a dataset or entity type (DATASET, DECISION, ENTITY, EXTERNAL, MODEL, REASONING, REPORT, SCHEMA)",
    }
    assert _events(api_store) == 0


def test_a_node_of_the_wrong_type_is_422_not_404(loaded: TestClient) -> None:
    dataset = loaded.get(f"{V1}/nodes/resolve", params={"node": "lineage_orders"}).json()["id"]
    r = loaded.get(f"{V1}/field-origin", params={"field": "lineage_orders"})
    assert _error(r, 422) == {"field": "query.field", "message": "'lineage_orders' is a DATASET, not a field"}
    r = loaded.get(f"{V1}/field-impact", params={"field": f"#{dataset}"})
    assert _error(r, 422) == {"field": "query.field", "message": f"'#{dataset}' is a DATASET, not a field"}
    r = loaded.get(f"{V1}/explorer/field-paths", params={"field": "lineage_orders"})
    assert _error(r, 422)["message"] == "'lineage_orders' is a DATASET, not a field"
    r = loaded.delete(f"{V1}/lineage", params={"job": "lineage_orders"})
    assert _error(r, 422) == {"field": "query.job", "message": "'lineage_orders' is a DATASET, not a job or step"}
    r = loaded.delete(f"{V1}/lineage", params={"dataset": "lineage_orders.amount"})
    assert _error(r, 422) == {
        "field": "query.dataset",
        "message": "'lineage_orders.amount' is a FIELD, not a dataset",
    }
    # a name nothing matches is still 404
    r = loaded.get(f"{V1}/field-origin", params={"field": "nope.x"})
    assert _error(r, 404) == {"field": "query.field", "message": "no node matches 'nope.x'"}


def test_deleting_an_unknown_event_says_so(loaded: TestClient) -> None:
    r = loaded.delete(f"{V1}/lineage", params={"event_id": "does-not-exist"})
    assert _error(r, 404) == {"field": "query.event_id", "message": "no event 'does-not-exist'"}


def test_unknown_api_paths_and_methods_answer_in_the_error_shape(client: TestClient) -> None:
    assert _error(client.get(f"{V1}/nonexistent"), 404) == {"field": "path", "message": "Not Found"}
    assert _error(client.put(f"{V1}/events"), 405) == {"field": "method", "message": "Method Not Allowed"}


@pytest.mark.parametrize(
    ("details", "field", "message"),
    [
        ({"operation": "EXPLODE"}, "body.details.operation", "'EXPLODE' is not one of"),
        ({"columns": ["nope"]}, "body.details.columns", "has no column 'nope'"),
        ({"columns": "amount"}, "body.details.columns", "expected a list of column names"),
    ],
)
def test_analyze_impact_refuses_details_it_cannot_answer(
    loaded: TestClient, details: dict, field: str, message: str
) -> None:
    r = loaded.post(f"{V1}/analyze-impact", json={"target": "lineage_orders", "details": details})
    error = _error(r, 400)
    assert error["field"] == field and message in str(error["message"])
