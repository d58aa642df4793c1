"""Issue 37 item 7: a node name longer than any node's (60,000 characters here; SQLite refuses a LIKE
pattern past 50,000) is a clear refusal everywhere, never a server fault: 400 naming the parameter
in REST, INVALID_ARGUMENT in gRPC, one ``error:`` line and exit 2 in ``headwater query``."""

from __future__ import annotations

import grpc
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from headwater.cli.main import app as cli
from headwater.service import create_app
from headwater.service.grpc import governance_pb2 as gpb
from headwater.service.grpc import pipeline_pb2 as ppb
from headwater.store import LineageStore, open_store
from headwater.store.search import search_nodes
from tests.service.grpc.conftest import RO, Apis, apis  # noqa: F401  (fixture)
from tests.store.conftest import guide

LONG = "a" * 60_000
MESSAGE = "a name of 60000 characters: node names are at most 1024"


@pytest.mark.parametrize(
    ("path", "param"),
    [
        ("/upstream", "node"),
        ("/downstream", "node"),
        ("/lineage", "node"),
        ("/field-origin", "field"),
        ("/field-impact", "field"),
        ("/nodes/resolve", "node"),
        ("/trace-origin", "node"),
        ("/summary", "node"),
    ],
)
def test_rest_refuses_an_overlong_name_naming_the_parameter(api_store: LineageStore, path: str, param: str) -> None:
    api_store.record(guide())
    with TestClient(create_app(api_store), raise_server_exceptions=False) as c:
        r = c.get(f"/api/v1{path}", params={param: LONG})
        assert (r.status_code, r.json()) == (400, {"error": {"field": f"query.{param}", "message": MESSAGE}})
        r = c.post("/api/v1/analyze-impact", json={"target": LONG, "change_type": "DELETE"})
        assert r.status_code == 400 and r.json()["error"]["message"] == MESSAGE


def test_search_for_an_overlong_text_finds_nothing(api_store: LineageStore) -> None:
    api_store.record(guide())
    with api_store.engine.connect() as conn:
        assert search_nodes(conn, LONG).hits == []


def test_grpc_refuses_an_overlong_name_as_invalid_argument(apis: Apis) -> None:  # noqa: F811
    for call, request in (
        (apis.gov.GetLineage, gpb.GetLineageRequest(entity_id=LONG)),
        (apis.pipe.GetFieldOrigin, ppb.FieldOriginRequest(field_id=LONG)),
    ):
        with pytest.raises(grpc.RpcError) as caught:
            call(request, metadata=RO)
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT, caught.value.details()
        assert MESSAGE in (caught.value.details() or "")


def test_headwater_query_refuses_an_overlong_name_in_one_line(store_url: str) -> None:
    open_store(store_url).record(guide())
    for command in (["upstream"], ["origin"]):
        r = CliRunner().invoke(cli, ["query", *command, "--store", store_url, LONG])
        assert r.exit_code == 2, r.output
        assert r.output.strip().splitlines()[-1] == f"error: node: {MESSAGE}"
