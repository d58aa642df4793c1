"""Issue 38 item 2 over the APIs: the issue's Spark (HDFS path, Hive symlink) and Trino (Hive name)
events posted to ``/api/v1/lineage``; the Hive name finds the one summary node in REST's
``nodes/resolve`` and field origin, the explorer's search, Marquez's search and ``headwater query origin``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from tests.service.conftest import api_store, pg_url, store_url  # noqa: F401  (fixtures)
from tests.store.test_openlineage_symlinks import HDFS, HIVE, PATH, PG, TABLE, spark, trino
from typer.testing import CliRunner

from headwater.cli.main import app
from headwater.service import create_app
from headwater.store import LineageStore

OWN, OTHER = f"{HDFS}.{PATH}", f"{HIVE}.{TABLE}"


@pytest.fixture
def posted(api_store: LineageStore) -> Iterator[TestClient]:  # noqa: F811
    with TestClient(create_app(api_store)) as c:
        for event in (spark(), trino()):
            r = c.post("/api/v1/lineage", json=event)
            assert r.status_code in (200, 201), r.text
        yield c


def test_rest_resolves_the_symlink_name_to_the_one_node(posted: TestClient) -> None:
    r = posted.get("/api/v1/nodes/resolve", params={"node": OTHER})
    assert r.status_code == 200, r.text
    assert (r.json()["type"], r.json()["name"]) == ("DATASET", OWN)
    r = posted.get("/api/v1/field-origin", params={"field": f"{OTHER}.region"})
    assert r.status_code == 200, r.text
    assert [o["field"]["name"] for o in r.json()["origins"]] == [f"{PG}.shop.public.orders.region"]


def test_explorer_search_shows_the_nodes_own_name_and_the_alias_that_matched(posted: TestClient) -> None:
    r = posted.get("/api/v1/explorer/search", params={"q": "metastore"})
    assert r.status_code == 200, r.text
    assert [(h["node"]["name"], h["match"], h["alias"]) for h in r.json()["hits"]] == [(OWN, "substring", OTHER)]
    plain = posted.get("/api/v1/explorer/search", params={"q": "reports"}).json()["hits"]
    assert plain and all(h["alias"] is None for h in plain)


def test_marquez_search_finds_a_dataset_by_its_symlink_name(posted: TestClient) -> None:
    r = posted.get("/api/v1/search", params={"q": "metastore"})
    assert r.status_code == 200, r.text
    [hit] = r.json()["results"]
    assert (hit["type"], hit["namespace"], hit["alias"]) == ("DATASET", HDFS, OTHER)
    assert hit["name"] == PATH


def test_query_origin_by_the_symlink_name(store_url: str) -> None:  # noqa: F811
    from headwater.store import open_store

    store = open_store(store_url)
    store.record_openlineage([spark(), trino()])
    r = CliRunner().invoke(app, ["query", "origin", f"{OTHER}.region", "--store", store_url, "--format", "json"])
    assert r.exit_code == 0, r.output
    assert f"{PG}.shop.public.orders.region" in r.output
