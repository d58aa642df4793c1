"""Issue 37 item 1: the credentials of a URI (``user:password@``) never become part of a dataset's
name: not when a statement names the URI (extraction, the OpenLineage output), not when a producer
sends one (an OpenLineage namespace, a ``/record`` namespace). The OpenLineage naming spec drops them."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from openlineage.client.serde import Serde

from headwater.extract import extract_script
from headwater.model import event_to_dict
from headwater.model.openlineage import to_run_event
from headwater.store import LineageStore
from tests.security.conftest import stored_names

V1 = "/api/v1"


def _names(sql: str, dialect: str) -> tuple[dict, list[str]]:
    """The only event of ``sql``: as JSON, and its OpenLineage datasets as ``namespace name``."""
    (event,) = extract_script(sql, dialect=dialect, database="d", statements="all").events
    run = json.loads(Serde.to_json(to_run_event(event)))
    return event_to_dict(event), [f"{d['namespace']} {d['name']}" for d in run["inputs"] + run["outputs"]]


@pytest.mark.parametrize(
    ("dialect", "sql", "source"),
    [
        (
            "doris",
            "INSERT INTO t SELECT * FROM S3('uri'='s3://AKID:S3cr3tPW@bucket/p/x.parquet', 'format'='parquet')",
            {"catalog": "s3://bucket", "database": None, "name": "p/x.parquet"},
        ),
        (
            "doris",
            "INSERT INTO t SELECT x FROM `s3://AKID:S3cr3tPW@bucket`.x",
            {"catalog": "internal", "database": "s3://bucket", "name": "x"},
        ),
        (
            "spark",
            "INSERT INTO t SELECT * FROM parquet.`s3a://AKID:S3cr3tPW@bucket/p`",
            {"catalog": "s3://bucket", "database": None, "name": "p"},
        ),
    ],
)
def test_extracted_names_hold_no_credentials(dialect: str, sql: str, source: dict, secret: str) -> None:
    event, datasets = _names(sql, dialect)
    assert event["sources"] == [source]
    assert "AKID" not in json.dumps(datasets) and secret not in json.dumps(event)


def test_a_target_uri_loses_its_credentials(secret: str) -> None:
    event, datasets = _names("INSERT OVERWRITE DIRECTORY 's3://AKID:S3cr3tPW@lake/out' SELECT a FROM u", "hive")
    assert event["target"]["table"] == {"catalog": "s3://lake", "database": None, "name": "out"}
    assert "s3://lake out" in datasets
    event, _ = _names("INSERT INTO `s3://AKID:S3cr3tPW@lake`.t SELECT a FROM u", "doris")
    assert event["target"]["table"] == {"catalog": "internal", "database": "s3://lake", "name": "t"}


def _run_event(namespace: str) -> dict:
    return {
        "eventType": "COMPLETE",
        "eventTime": "2024-06-01T00:00:00Z",
        "run": {"runId": "6f1f6d0c-8a5c-4d7a-9a53-1b6f4c3e2a10"},
        "job": {"namespace": "jdbc:postgresql://etl:S3cr3tPW@db:5432/app", "name": "load"},
        "inputs": [{"namespace": namespace, "name": "app.public.orders"}],
        "outputs": [{"namespace": "postgres://db:5432", "name": "app.public.daily"}],
        "producer": "https://example.com/producer",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json",
    }


def test_openlineage_namespace_credentials_are_dropped(client: TestClient, api_store: LineageStore) -> None:
    r = client.post(f"{V1}/lineage", json=_run_event("postgres://etl:S3cr3tPW@db:5432"))
    assert r.status_code == 201, r.text
    up = client.get(f"{V1}/upstream", params={"node": "postgres://db:5432.app.public.daily"}).json()
    assert "postgres://db:5432.app.public.orders" in json.dumps(up)
    names = stored_names(api_store)
    assert "s3cr3tpw" not in names.lower() and "etl:" not in names


def test_record_namespace_credentials_are_dropped(client: TestClient, api_store: LineageStore) -> None:
    body = {
        "context": {"pipeline_id": "etl", "execution_id": "e-1", "timestamp": "2024-06-01T00:00:00Z"},
        "inputs": [{"name": "public.orders", "namespace": "jdbc:postgresql://u:S3cr3tPW@h/db"}],
        "outputs": [{"name": "mart.revenue", "namespace": "dw"}],
    }
    r = client.post(f"{V1}/record", json=body)
    assert r.status_code == 201, r.text
    nodes = client.get(f"{V1}/explorer/search", params={"q": "orders"}).json()
    assert "jdbc:postgresql://h/db.public.orders" in json.dumps(nodes)
    assert "s3cr3tpw" not in stored_names(api_store).lower()
