"""OpenLineage naming: namespaces from the platform and its address, explicit settings winning, job
names per statement (a CTAS and a later INSERT into the same table are two jobs), the engine facets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from headwater.cli.main import app
from headwater.dispatch.settings import SettingsError, command_naming, load_settings
from headwater.extract import Extractor, RunInfo
from headwater.model import TableRef
from headwater.model.ol_naming import OpenLineageNaming, Place, place_of_url
from headwater.model.openlineage import run_event_json


@pytest.mark.parametrize(
    ("url", "dialect", "namespace", "name"),
    [
        ("mysql+pymysql://root@fe.example:9030/sales", "doris", "doris://fe.example:9030", "sales.orders"),
        ("mysql+pymysql://root@db.example/sales", "mysql", "mysql://db.example:3306", "sales.orders"),
        ("postgresql+psycopg://u@pg.example:5433/shop", "postgres", "postgres://pg.example:5433", "shop.sales.orders"),
        ("trino://u@trino.example:8443/hive/sales", "trino", "trino://trino.example:8443", "hive.sales.orders"),
        ("hive://hs2.example:10000/default", "hive", "hive://hs2.example:10000", "sales.orders"),
        (
            "snowflake://u:p@myorg-acct/analytics/public",
            "snowflake",
            "snowflake://myorg-acct",
            "analytics.sales.orders",
        ),
        ("bigquery://my-project/ds", "bigquery", "bigquery", "my-project.sales.orders"),
    ],
)
def test_dataset_namespace_from_the_catalog_url(url: str, dialect: str, namespace: str, name: str) -> None:
    naming = OpenLineageNaming().with_place("internal", place_of_url(url, dialect))
    assert naming.dataset(TableRef("internal", "sales", "orders")) == (namespace, name)
    assert naming.table(namespace, name) == TableRef("internal", "sales", "orders")


def test_explicit_setting_wins_over_the_catalog_url(tmp_path: Path) -> None:
    cfg = tmp_path / "headwater.toml"
    cfg.write_text('[openlineage]\njob_namespace = "etl"\n[openlineage.namespaces]\ninternal = "doris://fe:9030"\n')
    n = command_naming((), "mysql://root@other:3306/db", "mysql", config_path=cfg, env={})
    assert (n.job_namespace, n.place("internal")) == ("etl", Place("doris://fe:9030"))
    n = command_naming(["internal=doris://cli:9030"], None, None, config_path=cfg, env={})
    assert n.place("internal") == Place("doris://cli:9030")
    assert load_settings(cfg, env={}).settings_for("openlineage")["naming"].job_namespace == "etl"
    with pytest.raises(SettingsError, match="namespace of catalog 'internal'"):
        command_naming(["internal="], None, None, env={}, cwd=tmp_path)
    cfg.write_text("[openlineage]\njobnamespace = 'x'\n")
    with pytest.raises(SettingsError, match="unknown key 'jobnamespace'"):
        load_settings(cfg, env={})


def test_an_unnamed_statements_job_is_its_outputs_schema_and_table_whatever_its_text() -> None:
    """The spec's SQL job naming (issue 38 item 6; was ``sql:<fingerprint>:<target>``, which changed
    with the SQL text): a CTAS and a later INSERT into the same table are runs of the job ``db.t``."""
    sql = "CREATE TABLE db.t AS SELECT a FROM db.s;\nINSERT INTO db.t SELECT a + 1 FROM db.s;"
    result = Extractor().run("CREATE TABLE db.s (a INT);\n" + sql, RunInfo(query_id="q"))
    jobs = [json.loads(run_event_json(e))["job"] for e in result.events]
    assert [j["name"] for j in jobs] == ["db.t", "db.t"]
    assert all(j["namespace"] == "headwater" for j in jobs)
    named = Extractor().run(
        "CREATE TABLE db.s (a INT);\n" + sql.split(";")[0],
        RunInfo(query_id="q", external_catalog_properties={"headwater.job": "marts/t.sql#1"}),
    )
    assert json.loads(run_event_json(named.events[0]))["job"]["name"] == "marts/t.sql#1"


def test_engine_facets_and_the_headwater_facet_carry_the_query_context() -> None:
    run = RunInfo(query_id="doris-q-42", user="alice", client_ip="10.1.2.3", database="db", duration_ms=812)
    [e] = Extractor().run("CREATE TABLE db.s (a INT);\nINSERT INTO db.t SELECT a FROM db.s", run).events
    doc = json.loads(run_event_json(e, naming=OpenLineageNaming({"internal": Place("doris://fe:9030")})))
    facets = doc["run"]["facets"]
    assert facets["externalQuery"]["externalQueryId"] == e.context.query_id == "doris-q-42.2"
    assert facets["externalQuery"]["source"] == "doris"
    assert (facets["processing_engine"]["name"], facets["processing_engine"]["openlineageAdapterVersion"]) == (
        "DORIS",
        "0.1.0",
    )
    assert {k: doc["job"]["facets"]["jobType"][k] for k in ("processingType", "integration", "jobType")} == {
        "processingType": "BATCH",
        "integration": "DORIS",
        "jobType": "QUERY",
    }
    ctx = facets["headwater"]["event"]["context"]
    assert (ctx["source_command"], ctx["user"], ctx["client_ip"], ctx["database"], ctx["duration_ms"]) == (
        "InsertIntoTableCommand",
        "alice",
        "10.1.2.3",
        "db",
        812,
    )
    assert facets["headwater"]["event"]["status"] == "COMPLETE"
    assert doc["inputs"][0]["facets"]["schema"]["fields"] == [{"fields": [], "name": "a"}]  # no catalog given


def test_extract_cli_names_datasets_after_the_catalog_url_and_types_inputs(tmp_path: Path) -> None:
    script = tmp_path / "x.sql"
    script.write_text("CREATE TABLE db.s (a INT, b VARCHAR(3));\nINSERT INTO db.t SELECT a FROM db.s;\n")
    res = CliRunner().invoke(
        app,
        ["extract", str(script), "--format", "openlineage", "--namespace", "internal=doris://fe:9030"],
    )
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout.splitlines()[0])
    assert (doc["outputs"][0]["namespace"], doc["outputs"][0]["name"]) == ("doris://fe:9030", "db.t")
    assert doc["inputs"][0]["facets"]["schema"]["fields"] == [{"fields": [], "name": "a", "type": "INT"}]
