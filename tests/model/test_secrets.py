"""Secrets in statement text never leave extraction: not in the event, the store, the API, the
OpenLineage output or the logs; a producer's unredacted event or RunEvent is redacted by the store;
a catalog URL's password is masked in "cannot connect" errors."""

from __future__ import annotations

import base64
import json
import logging
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from openlineage.client.serde import Serde
from sqlalchemy import select

from headwater.catalog import CatalogError
from headwater.catalog.live import SqlAlchemyCatalog
from headwater.extract import extract_script
from headwater.model import TableRef, event_to_dict, event_to_json
from headwater.model.openlineage import to_run_event
from headwater.model.secrets import redact_sql
from headwater.plugins.log import LogPlugin
from headwater.service import create_app
from headwater.store import open_store
from headwater.store.schema import event_document, events, nodes

SECRET = "hunter2"
BASIC = base64.b64encode(f"etl:{SECRET}".encode()).decode()
# (dialect, statement, the statement as it must be kept): every form of issue 17 item 13
FORMS = [
    (
        "flink",
        f"CREATE TABLE fl WITH ('connector'='jdbc', 'password'='{SECRET}') AS SELECT a FROM s",
        "CREATE TABLE fl WITH ('connector'='jdbc', 'password'='***') AS SELECT a FROM s",
    ),
    (
        "doris",
        f'INSERT INTO t SELECT s.a FROM s JOIN S3("uri" = "s3://b/k.csv", "s3.secret_key" = "{SECRET}", '
        '"format" = "csv") f ON s.a = f.a',
        'INSERT INTO t SELECT s.a FROM s JOIN S3("uri" = "s3://b/k.csv", "s3.secret_key" = "***", '
        '"format" = "csv") f ON s.a = f.a',
    ),
    (
        "flink",
        f"CREATE TABLE u WITH ('url'='jdbc:mysql://etl:{SECRET}@db:3306/sales') AS SELECT a FROM s",
        "CREATE TABLE u WITH ('url'='jdbc:mysql://etl:***@db:3306/sales') AS SELECT a FROM s",
    ),
    (
        "flink",
        f"CREATE TABLE q WITH ('url'='jdbc:mysql://db/sales?user=etl&password={SECRET}') AS SELECT a FROM s",
        "CREATE TABLE q WITH ('url'='jdbc:mysql://db/sales?user=etl&password=***') AS SELECT a FROM s",
    ),
    (
        "flink",
        f"CREATE TABLE j WITH ('jdbc.properties'='user=etl;password={SECRET};ssl=true') AS SELECT a FROM s",
        "CREATE TABLE j WITH ('jdbc.properties'='user=etl;password=***;ssl=true') AS SELECT a FROM s",
    ),
    (
        "flink",
        f"CREATE TABLE h WITH ('http.header.Authorization'='Bearer {SECRET}xyzzy', 'auth'='Basic {BASIC}') "
        "AS SELECT a FROM s",
        "CREATE TABLE h WITH ('http.header.Authorization'='***', 'auth'='***') AS SELECT a FROM s",
    ),
    (
        "flink",
        f"CREATE TABLE k WITH ('sas'='{SECRET}', 'signature'='{SECRET}', 'creds'='{SECRET}', 'pw'='{SECRET}', "
        f"'note'='Basic {BASIC}') AS SELECT a FROM s",
        "CREATE TABLE k WITH ('sas'='***', 'signature'='***', 'creds'='***', 'pw'='***', 'note'='Basic ***') "
        "AS SELECT a FROM s",
    ),
    (  # secret keys in every spelling; any option named like a key is masked, a namespace key.* is kept
        "flink",
        f"CREATE TABLE k2 WITH ('key'='{SECRET}', 'api_key'='{SECRET}', 'apikey'='{SECRET}', "
        f"'accessKey'='{SECRET}', 'fs.s3a.secret.key'='{SECRET}', 'azure.account.key'='{SECRET}', "
        f"'aws_secret_access_key'='{SECRET}', 'key.format'='json', 'sort_key'='o_orderkey', "
        f"'aws_key'='{SECRET}') AS SELECT a FROM s",
        "CREATE TABLE k2 WITH ('key'='***', 'api_key'='***', 'apikey'='***', 'accessKey'='***', "
        "'fs.s3a.secret.key'='***', 'azure.account.key'='***', 'aws_secret_access_key'='***', "
        "'key.format'='json', 'sort_key'='***', 'aws_key'='***') AS SELECT a FROM s",
    ),
    (  # a filter on a secret key column beside key columns: its literal is masked, theirs kept
        "spark",
        f"INSERT INTO t SELECT s.a FROM s WHERE s.o_orderkey = '5' AND s.api_key = '{SECRET}' "
        f"AND s.customer_key = 'c-1' AND s.signing_key = '{SECRET}'",
        "INSERT INTO t SELECT s.a FROM s WHERE s.o_orderkey = '5' AND s.api_key = '***' "
        "AND s.customer_key = 'c-1' AND s.signing_key = '***'",
    ),
    (
        "spark",
        f"INSERT INTO t /* token='{SECRET}' */ SELECT a FROM s WHERE s.conn = 'postgresql://etl:{SECRET}@h/db'",
        "INSERT INTO t /* token='***' */ SELECT a FROM s WHERE s.conn = 'postgresql://etl:***@h/db'",
    ),
]


def _clean(text: str) -> bool:
    return SECRET not in text and BASIC not in text


@pytest.mark.parametrize(("dialect", "sql", "kept"), FORMS, ids=[f"form{k}" for k in range(len(FORMS))])
def test_a_statements_secrets_reach_no_sink(
    dialect: str, sql: str, kept: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    res = extract_script(sql, dialect=dialect, database="db")
    (statement,) = res.statements
    assert statement.error is None and len(statement.events) == 1, statement
    event = statement.events[0]
    assert event.context.sql == kept == statement.sql  # the exact text, every other character as written
    assert _clean(event_to_json(event))
    ol = Serde.to_json(to_run_event(event))
    assert _clean(ol) and json.loads(ol)["job"]["facets"]["sql"]["query"] == kept

    logger = LogPlugin()
    logger._json = True
    with caplog.at_level(logging.INFO, logger="headwater.lineage"):
        logger.exec(event)
    assert caplog.text and _clean(caplog.text)

    store = open_store(f"sqlite:///{tmp_path / 'l.db'}")
    store.record(event)
    _assert_store_clean(store)
    with TestClient(create_app(store)) as client:
        job = client.get("/api/v1/nodes/resolve", params={"node": event.target.table.name}).json()
        jobs = client.get("/api/v1/explorer/search", params={"q": event.target.table.name}).text
        job_ids = [
            n["id"]
            for n in client.get("/api/v1/upstream", params={"node": event.target.table.name}).json()["nodes"]
            if n["type"] == "JOB"
        ]
        assert job_ids and _clean(jobs) and _clean(json.dumps(job))
        for jid in job_ids:
            detail = client.get(f"/api/v1/explorer/jobs/{jid}")
            assert detail.status_code == 200 and _clean(detail.text), detail.text
            node = client.get("/api/v1/nodes/resolve", params={"node": f"#{jid}"}).json()
            assert node["properties"]["sql"] == kept


def _assert_store_clean(store) -> None:  # type: ignore[no-untyped-def]
    with store.engine.connect() as conn:
        for props in conn.execute(select(nodes.c.properties)).scalars():
            assert props is None or _clean(props)
        for payload, packed in conn.execute(select(events.c.payload, events.c.payload_zlib)):
            assert _clean(event_document(payload, packed) or "")


def test_the_store_redacts_what_a_producer_did_not(tmp_path: Path) -> None:
    (event,) = extract_script("INSERT INTO t SELECT a FROM s", dialect="doris").events
    raw = event_to_dict(event)
    raw["context"]["sql"] = f"INSERT INTO t SELECT a FROM s WHERE k = 'jdbc:mysql://etl:{SECRET}@db/x'"
    ol = json.loads(Serde.to_json(to_run_event(event)))
    ol["job"]["facets"]["sql"]["query"] = f"CREATE TABLE x WITH ('password'='{SECRET}') AS SELECT a FROM s"
    store = open_store(f"sqlite:///{tmp_path / 'l.db'}")
    with TestClient(create_app(store)) as client:
        assert client.post("/api/v1/events", json=raw).status_code == 201
        assert client.post("/api/v1/lineage", json=ol).status_code == 201
    _assert_store_clean(store)


@pytest.mark.parametrize(
    "url",
    [
        f"mysql+pymysql://root@127.0.0.1:3306/test?password={SECRET}",
        f"mysql+pymysql://root:{SECRET}@127.0.0.1:3306/test",
        f"postgresql+psycopg://postgres@127.0.0.1:5432/test?password={SECRET}&user=no_such_role",
        f"postgresql+psycopg://no_such_role:{SECRET}@127.0.0.1:5432/test",
    ],
)
def test_cannot_connect_errors_mask_the_catalog_urls_password(url: str) -> None:
    with pytest.raises(CatalogError) as exc:  # the servers run; the credentials are wrong
        SqlAlchemyCatalog(url, dialect="mysql").table(TableRef("internal", "test", "t"))
    message = str(exc.value)
    assert message.startswith("cannot connect to ") and "***" in message
    assert SECRET not in message, message


def test_redaction_keeps_statements_without_secrets_as_written() -> None:
    for sql in (
        "INSERT INTO t SELECT a, 'Basic Membership' AS plan FROM s WHERE author = 'x'",
        "CREATE TABLE t (id INT, PRIMARY KEY (id)) WITH ('connector'='kafka', 'topic'='orders')",
        "INSERT INTO t SELECT passenger_key FROM s WHERE signup = 'https://example.com/a?b=c'",
        "INSERT INTO t SELECT o_orderkey FROM orders WHERE o_orderkey = '5' AND customer_key = 'c' "
        "AND sort_key IN ('a', 'b') AND primary_key = 'id' AND partition_key = '2024'",
        "CREATE TABLE t (a INT) WITH ('connector'='kafka', 'key.format'='json', 'key.fields'='a')",
    ):
        assert redact_sql(sql, "flink") == sql
