"""Issue 37 item 4: "passwords, keys and hidden properties are removed" holds for everything
headwater stores or shows: literals compared with a secret column whichever way round and by any
operator, aliases, comments, the tokenizer's message, and what producers send beside SQL
(``external_catalog_properties``, OpenLineage facets, ``record_lineage`` metadata)."""

from __future__ import annotations

import dataclasses
import json

import pytest
from fastapi.testclient import TestClient

from headwater.extract import extract_script
from headwater.model import event_to_dict
from headwater.model.secrets import redact_sql
from headwater.store import LineageStore
from tests.security.conftest import stored_text
from tests.store.conftest import guide

V1 = "/api/v1"
PW = "hunter2x"


@pytest.mark.parametrize(
    ("sql", "redacted"),
    [
        (f"SELECT a FROM t WHERE '{PW}' = password", "SELECT a FROM t WHERE '***' = password"),
        (f"SELECT a FROM t WHERE '{PW}' = u.pwd AND b = 'x'", "SELECT a FROM t WHERE '***' = u.pwd AND b = 'x'"),
        (f"SELECT a FROM t WHERE password LIKE '{PW}'", "SELECT a FROM t WHERE password LIKE '***'"),
        (f"SELECT a FROM t WHERE password NOT LIKE '{PW}'", "SELECT a FROM t WHERE password NOT LIKE '***'"),
        (
            f"SELECT a FROM t WHERE password IN ('{PW}', 'b') AND c IN ('keep')",
            "SELECT a FROM t WHERE password IN ('***', '***') AND c IN ('keep')",
        ),
        (f"SELECT a FROM t WHERE password <=> '{PW}'", "SELECT a FROM t WHERE password <=> '***'"),
        (f"SELECT a FROM t WHERE password != '{PW}'", "SELECT a FROM t WHERE password != '***'"),
        (f"SELECT a FROM t WHERE password <> '{PW}'", "SELECT a FROM t WHERE password <> '***'"),
        (f"SELECT '{PW}' AS db_password, 'keep' AS note FROM t", "SELECT '***' AS db_password, 'keep' AS note FROM t"),
        (f"SELECT a /* password={PW} */ FROM t", "SELECT a /* password=*** */ FROM t"),
        (f"SELECT a FROM t -- token: {PW}", "SELECT a FROM t -- token: ***"),
        ("SELECT a FROM t -- tokenize: keep, note=kept", "SELECT a FROM t -- tokenize: keep, note=kept"),
    ],
)
def test_secret_literals_are_masked_whatever_the_form(sql: str, redacted: str) -> None:
    assert redact_sql(sql, "mysql") == redacted


@pytest.mark.parametrize(
    "sql",
    [
        f"INSERT INTO t SELECT a FROM s WHERE password = '{PW} AND b = 1",
        f"INSERT INTO t SELECT a FROM s WHERE '{PW}' = password AND b = 'x",
        f"INSERT INTO t SELECT a FROM s WHERE b = 'x' AND note = '{'y' * 80}{PW}",
    ],
)
def test_the_tokenizer_message_shows_no_secret(sql: str) -> None:
    (failed,) = extract_script(sql, dialect="mysql").failures
    assert failed.error is not None and failed.error.message == "cannot tokenize: Error tokenizing '***'"
    assert PW not in failed.sql or "note" in sql  # a note's text is no secret: only the message hides it


def _event_with_properties() -> dict:
    event = guide()
    props = {"password": PW, "uri": f"jdbc:mysql://etl:{PW}@db:3306/sales", "catalog.type": "jdbc"}
    event = dataclasses.replace(event, context=dataclasses.replace(event.context, external_catalog_properties=props))
    return event_to_dict(event)


def test_external_catalog_properties_are_not_stored(client: TestClient, api_store: LineageStore) -> None:
    r = client.post(f"{V1}/events", json=_event_with_properties())
    assert r.status_code == 201, r.text
    stored = stored_text(api_store)
    assert PW not in stored and "jdbc:mysql://etl:***@db:3306/sales" in stored and "catalog.type" in stored


def test_openlineage_facets_keep_no_secret(client: TestClient, api_store: LineageStore) -> None:
    event = {
        "eventType": "COMPLETE",
        "eventTime": "2024-06-01T00:00:00Z",
        "run": {
            "runId": "6f1f6d0c-8a5c-4d7a-9a53-1b6f4c3e2a11",
            "facets": {
                "spark_properties": {
                    "properties": {"spark.hadoop.fs.s3a.secret.key": PW, "spark.master": "local"},
                }
            },
        },
        "job": {
            "namespace": "etl",
            "name": "load",
            "facets": {
                "sourceCode": {"language": "python", "sourceCode": f"conn = connect(password='{PW}')"},
                "sql": {"query": f"INSERT INTO d SELECT a FROM o WHERE '{PW}' = password"},
            },
        },
        "inputs": [
            {
                "namespace": "postgres://db:5432",
                "name": "app.public.orders",
                "facets": {"dataSource": {"name": "pg", "uri": f"postgres://etl:{PW}@db:5432/app"}},
            }
        ],
        "outputs": [{"namespace": "postgres://db:5432", "name": "app.public.daily"}],
        "producer": "https://example.com/producer",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json",
    }
    r = client.post(f"{V1}/lineage", json=event)
    assert r.status_code == 201, r.text
    stored = stored_text(api_store)
    assert PW not in stored, stored
    assert "postgres://etl:***@db:5432/app" in stored and '"spark.master": "local"' in stored


def test_record_lineage_metadata_keeps_no_secret(client: TestClient, api_store: LineageStore) -> None:
    body = {
        "context": {"pipeline_id": "etl", "execution_id": "e-7", "timestamp": "2024-06-01T00:00:00Z"},
        "inputs": [{"name": "raw.orders", "namespace": "pg"}],
        "outputs": [{"name": "mart.revenue", "namespace": "dw"}],
        "field_mappings": [
            {
                "source_fields": [{"dataset": {"name": "raw.orders", "namespace": "pg"}, "field": "price"}],
                "target_field": {"dataset": {"name": "mart.revenue", "namespace": "dw"}, "field": "revenue"},
                "transform_expression": f"CASE WHEN password = '{PW}' THEN price END",
                "transform_type": "EXPRESSION",
            }
        ],
        "metadata": {"db_password": PW, "conn": f"jdbc:postgresql://u:{PW}@h/db", "owner": "team-a"},
    }
    r = client.post(f"{V1}/record", json=body)
    assert r.status_code == 201, r.text
    stored = stored_text(api_store)
    assert PW not in stored, stored
    assert "jdbc:postgresql://u:***@h/db" in stored and json.dumps("team-a") in stored
