"""A real uvicorn server on 127.0.0.1 and a random port, fed by openlineage-python's HTTP transport."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from openlineage.client import OpenLineageClient
from openlineage.client.transport.http import ApiKeyTokenProvider, HttpConfig, HttpTransport
from tests.service.conftest import running
from tests.store.conftest import guide

from headwater.model.openlineage import to_run_event
from headwater.service import UnsafeBind, check_bind, create_app
from headwater.store import LineageStore

TOKENS = {"w-token": frozenset({"read", "write"})}


@pytest.fixture
def server(api_store: LineageStore) -> Iterator[str]:
    with running(create_app(api_store, TOKENS)) as url:
        yield url


def test_openlineage_client_posts_to_the_server(server: str) -> None:
    transport = HttpTransport(HttpConfig(url=server, auth=ApiKeyTokenProvider({"apiKey": "w-token"})))
    OpenLineageClient(transport=transport).emit(to_run_event(guide()))
    auth = {"Authorization": "Bearer w-token"}
    r = httpx.get(
        f"{server}/api/v1/field-origin", params={"field": "lineage_customer_summary.total_amount"}, headers=auth
    )
    assert r.status_code == 200
    assert [o["field"]["short"] for o in r.json()["origins"]] == ["lineage_orders.amount"]
    assert httpx.get(f"{server}/api/v1/stats").status_code == 401
    assert httpx.get(f"{server}/api/v1/stats", headers=auth).json()["events_recorded"] == 1


def test_refuses_public_bind_without_tokens() -> None:
    with pytest.raises(UnsafeBind):
        check_bind("0.0.0.0", {})
    check_bind("0.0.0.0", TOKENS)
    check_bind("127.0.0.1", {})
