"""FAIL events: a statement the hooks saw fail becomes one FAIL RunEvent (its job and the database's
error, no lineage), through the real dispatch, the real extractor and openlineage-python's file
transport; the application still gets its exception."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
import sqlalchemy as sa

from headwater.dispatch import DispatchSettings, LineageDispatch, start_dispatch
from headwater.dispatch.discovery import discover
from headwater.hooks.dbapi import wrap
from headwater.hooks.sqlalchemy import instrument


def ol_dispatch(out: Path, **extra: object) -> LineageDispatch:
    settings = {"transport": {"type": "file", "log_file_path": str(out), "append": True}, **extra}
    return start_dispatch(
        DispatchSettings(  # type: ignore[arg-type]
            plugin_dir=None, activate_lineage_plugin=("openlineage",), plugin_settings={"openlineage": settings}
        ),
        discovery=discover(None),
        dialect="sqlite",
    )


def lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_dbapi_hook_reports_a_rejected_statement_as_a_fail_event(tmp_path: Path) -> None:
    out = tmp_path / "ol.jsonl"
    with ol_dispatch(out) as d:
        conn = wrap(sqlite3.connect(":memory:"), d.collector)
        conn.execute("CREATE TABLE src (a INT)")
        conn.execute("CREATE TABLE dst (a INT)")
        conn.execute("INSERT INTO dst SELECT a FROM src")
        with pytest.raises(sqlite3.OperationalError, match="no such table: nowhere"):
            conn.execute("INSERT INTO nowhere SELECT a FROM src")
    start, complete, fail_start, fail = lines(out)
    assert [e["eventType"] for e in (start, complete, fail_start, fail)] == ["START", "COMPLETE", "START", "FAIL"]
    assert complete["outputs"][0]["name"] == "main.dst"
    assert fail_start["run"]["runId"] == fail["run"]["runId"] and fail_start["job"] == fail["job"]
    assert (fail["inputs"], fail["outputs"]) == ([], [])
    assert fail["run"]["facets"]["errorMessage"]["message"] == "no such table: nowhere"
    assert fail["run"]["facets"]["errorMessage"]["programmingLanguage"] == "SQL"
    assert fail["job"]["name"] == "main.nowhere"  # the output's schema.table (the spec's SQL job naming)
    assert fail["run"]["facets"]["headwater"]["event"]["context"]["sql"] == "INSERT INTO nowhere SELECT a FROM src"
    assert fail["run"]["runId"] != complete["run"]["runId"]


def test_a_rejected_create_table_does_not_create_the_table_for_later_statements(tmp_path: Path) -> None:
    out = tmp_path / "ol.jsonl"
    with ol_dispatch(out) as d:
        conn = wrap(sqlite3.connect(":memory:"), d.collector)
        conn.execute("CREATE TABLE src (a INT, b INT)")
        with pytest.raises(sqlite3.OperationalError):
            conn.execute("CREATE TABLE t AS SELECT a, nope FROM src")
        conn.execute("CREATE TABLE t AS SELECT a, b FROM src")
    _, fail, _, complete = lines(out)
    assert (fail["eventType"], complete["eventType"]) == ("FAIL", "COMPLETE")
    assert [f["name"] for f in complete["outputs"][0]["facets"]["schema"]["fields"]] == ["a", "b"]


def test_sqlalchemy_hook_reports_failures_and_start_complete_share_a_run(tmp_path: Path) -> None:
    out = tmp_path / "ol.jsonl"
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'db.sqlite'}")
    with ol_dispatch(out, lifecycle="start") as d:
        hook = instrument(engine, d.collector)
        with engine.begin() as conn:
            conn.exec_driver_sql("CREATE TABLE src (a INT)")
            conn.exec_driver_sql("CREATE TABLE dst AS SELECT a FROM src")
        with pytest.raises(sa.exc.OperationalError), engine.begin() as conn:
            conn.exec_driver_sql("INSERT INTO missing SELECT a FROM src")
        hook.remove()
    start, complete, fail_start, fail = lines(out)
    assert [e["eventType"] for e in (start, complete, fail_start, fail)] == ["START", "COMPLETE", "START", "FAIL"]
    assert fail_start["run"]["runId"] == fail["run"]["runId"]
    assert start["run"]["runId"] == complete["run"]["runId"]
    assert start["job"] == complete["job"]
    assert "columnLineage" not in start["outputs"][0]["facets"]
    assert fail["run"]["facets"]["errorMessage"]["message"] == "no such table: missing"


def test_the_hooks_connection_names_the_dataset_namespace_and_a_setting_wins(tmp_path: Path) -> None:
    """Issue 11 problem 3 on the way out: events seen on MariaDB at 127.0.0.1:3306 are named
    ``mysql://127.0.0.1:3306`` (the connection), unless ``[openlineage.namespaces]`` places ``internal``."""
    import pymysql

    from headwater.model.ol_naming import OpenLineageNaming, Place

    suffix = tmp_path.name[-8:].replace("-", "_")
    src, dst = f"ol_src_{suffix}", f"ol_dst_{suffix}"
    for naming, want in (
        (None, "mysql://127.0.0.1:3306"),
        (OpenLineageNaming({"internal": Place("doris://fe:9030")}), "doris://fe:9030"),
    ):
        out = tmp_path / f"{want.split(':')[0]}.jsonl"
        extra = {"naming": naming} if naming else {}
        raw = pymysql.connect(host="127.0.0.1", port=3306, user="root", password="", database="test", autocommit=True)
        try:
            with ol_dispatch(out, **extra) as d:
                conn = wrap(raw, d.collector)
                with conn.cursor() as cur:
                    cur.execute(f"CREATE TABLE {src} (a INT)")
                    cur.execute(f"CREATE TABLE {dst} AS SELECT a FROM {src}")
        finally:
            with raw.cursor() as cur:
                cur.execute(f"DROP TABLE IF EXISTS {dst}, {src}")
            raw.close()
        [event] = [e for e in lines(out) if e["eventType"] == "COMPLETE"]
        assert (event["outputs"][0]["namespace"], event["outputs"][0]["name"]) == (want, f"test.{dst}")
        assert event["inputs"][0]["namespace"] == want


def test_a_postgres_connection_names_engine_version_and_database(tmp_path: Path) -> None:
    import uuid

    import psycopg

    schema = f"hw_ol_{uuid.uuid4().hex[:8]}"
    out = tmp_path / "pg.jsonl"
    raw = psycopg.connect("host=127.0.0.1 port=5432 user=postgres dbname=test", autocommit=True)
    try:
        raw.execute(f'CREATE SCHEMA "{schema}"')
        raw.execute(f'SET search_path TO "{schema}"')
        with ol_dispatch(out) as d:
            conn = wrap(raw, d.collector, database=schema)
            conn.execute("CREATE TABLE src (a INT)")
            conn.execute("CREATE TABLE dst AS SELECT a FROM src")
    finally:
        raw.execute(f'DROP SCHEMA "{schema}" CASCADE')
        raw.close()
    [event] = [e for e in lines(out) if e["eventType"] == "COMPLETE"]
    assert (event["outputs"][0]["namespace"], event["outputs"][0]["name"]) == (
        "postgres://127.0.0.1:5432",
        f"test.{schema}.dst",
    )
    engine = event["run"]["facets"]["processing_engine"]
    assert engine["name"] == "POSTGRES" and engine["version"][0].isdigit()
    assert event["job"]["facets"]["jobType"]["integration"] == "POSTGRES"
    assert event["run"]["facets"]["externalQuery"]["source"] == "postgres"
