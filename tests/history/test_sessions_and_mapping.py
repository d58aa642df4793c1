"""Session replay order and isolation; JSON lines and CSV logs through a column mapping."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from headwater.history import ExtractSpec, MappingError, group_sessions, open_source, parse_mapping
from headwater.history.window import Window
from headwater.model import TableRef


def _run(path: Path, kind: str = "jsonl", mapping: str | None = None) -> dict:
    source = open_source(kind, [str(path)], parse_mapping(mapping))
    records = list(source.read(Window()))
    hx = ExtractSpec().extractor()
    return {
        o.query_id: o
        for s in group_sessions(r for r in records if not hasattr(r, "message"))
        for o in hx.session(s.records)
    }


def _jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_use_and_ctas_stay_in_their_session_and_replay_in_time_order(tmp_path: Path) -> None:
    # written out of order: the log is replayed by time within each session
    rows = [
        {"id": "a3", "conn": "A", "ts": "2024-05-01T10:00:03Z", "q": "INSERT INTO t SELECT x, y FROM tmp"},
        {"id": "b1", "conn": "B", "ts": "2024-05-01T10:00:02Z", "q": "INSERT INTO t SELECT x FROM s"},
        {"id": "a1", "conn": "A", "ts": "2024-05-01T10:00:00Z", "q": "USE sales"},
        {"id": "b2", "conn": "B", "ts": "2024-05-01T10:00:04Z", "q": "INSERT INTO t2 SELECT * FROM tmp"},
        {"id": "a2", "conn": "A", "ts": "2024-05-01T10:00:01Z", "q": "CREATE TABLE tmp AS SELECT x, y FROM s"},
    ]
    out = _run(_jsonl(tmp_path / "log.jsonl", rows), mapping="sql=q,query_id=id,session=conn,timestamp=ts")
    assert {k: o.kind for k, o in out.items()} == {
        "a1": "skipped",
        "a2": "event",
        "a3": "event",
        "b1": "event",
        "b2": "event",
    }
    a3, b1, b2 = out["a3"].events[0], out["b1"].events[0], out["b2"].events[0]
    assert a3.target.table == TableRef("internal", "sales", "t")
    assert a3.sources == (TableRef("internal", "sales", "tmp"),)
    assert [d.expression for d in a3.direct] == ["tmp.x", "tmp.y"]
    assert a3.status.value == "COMPLETE"  # tmp's columns came from the CTAS before it
    assert b1.target.table == TableRef("internal", None, "t")  # USE sales did not leak into session B
    assert b2.sources == (TableRef("internal", None, "tmp"),)
    assert b2.status.value == "UNAVAILABLE"  # session A's CTAS is unknown to session B: * is not expanded
    assert out["a3"].session == "A"


def test_trino_like_jsonl_with_nested_mapping(tmp_path: Path) -> None:
    rows = [
        {
            "metadata": {
                "queryId": "20240501_1",
                "query": "insert into hive.web.t select a from hive.web.s",
                "queryState": "FINISHED",
            },
            "context": {"user": "ann", "catalog": "hive", "schema": "web", "remoteClientAddress": "10.0.0.7"},
            "createTime": "2024-05-01T10:00:00.125Z",
            "wallMs": 1500,
        },
        {
            "metadata": {"queryId": "20240501_2", "query": "insert into t select a from s", "queryState": "FAILED"},
            "context": {"user": "ann", "catalog": "hive", "schema": "web", "remoteClientAddress": "10.0.0.7"},
            "createTime": "2024-05-01T10:00:01Z",
        },
        ["not an object"],
        {"metadata": {"queryId": "20240501_3"}, "context": {}},
    ]
    path = tmp_path / "trino.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows) + "{broken\n")
    mapping = (
        "sql=metadata.query,query_id=metadata.queryId,state=metadata.queryState,user=context.user,"
        "catalog=context.catalog,database=context.schema,client_ip=context.remoteClientAddress,"
        "timestamp=createTime,duration_ms=wallMs,session=context.remoteClientAddress"
    )
    source = open_source("jsonl", [str(path)], parse_mapping(mapping))
    items = list(source.read(Window()))
    problems = [(i.where, i.message) for i in items if hasattr(i, "message")]
    assert problems == [
        (f"{path}:3", "a JSON object per line is expected, got list"),
        (f"{path}:4", "no SQL (column 'metadata.query' is missing or empty)"),
        (f"{path}:5", "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"),
    ]
    records = [i for i in items if not hasattr(i, "message")]
    assert [(r.query_id, r.succeeded) for r in records] == [("20240501_1", True), ("20240501_2", False)]
    hx = ExtractSpec(dialect="trino").extractor()
    outcomes = [o for s in group_sessions(records) for o in hx.session(s.records)]
    assert [o.kind for o in outcomes] == ["event", "not-succeeded"]
    ctx = outcomes[0].events[0].context
    assert (ctx.user, ctx.catalog, ctx.database, ctx.client_ip, ctx.timestamp, ctx.duration_ms) == (
        "ann",
        "hive",
        "web",
        "10.0.0.7",
        "2024-05-01T10:00:00.125Z",
        1500,
    )
    assert outcomes[0].events[0].target.table == TableRef("hive", "web", "t")


def test_csv_with_mapping_snowflake_export(tmp_path: Path) -> None:
    path = tmp_path / "history.csv"
    path.write_text(
        "QUERY_ID,QUERY_TEXT,USER_NAME,DATABASE_NAME,SCHEMA_NAME,SESSION_ID,START_TIME,TOTAL_ELAPSED_TIME,"
        "EXECUTION_STATUS,ERROR_CODE\n"
        '01a,"INSERT INTO orders_copy\nSELECT id, ""amount"" FROM orders",SAM,SHOP,PUBLIC,7,'
        "2024-05-01 10:00:00.000 -0700,42,SUCCESS,\n"
        "01b,INSERT INTO t SELECT 1,SAM,SHOP,PUBLIC,7,2024-05-01 10:00:01.000 -0700,1,SUCCESS,\n"
        "01c,INSERT INTO t SELECT a FROM s,SAM,SHOP,PUBLIC,8,2024-05-01 10:00:02.000 -0700,1,FAIL,002003\n"
    )
    out = _run(path, "csv", "sql=QUERY_TEXT,catalog=DATABASE_NAME,database=SCHEMA_NAME,session=SESSION_ID")
    assert {k: (o.kind, o.detail) for k, o in out.items()} == {
        "01a": ("event", None),
        "01b": ("skipped", "no-source-table"),
        "01c": ("not-succeeded", "FAIL error 002003"),
    }
    e = out["01a"].events[0]
    assert e.target.table == TableRef("SHOP", "PUBLIC", "orders_copy")
    assert (e.context.user, e.context.timestamp, e.context.duration_ms) == ("SAM", "2024-05-01T17:00:00.000Z", 42)


def test_mapping_errors() -> None:
    assert parse_mapping("sql=statement,query_id=id,user=user_name") == {
        "sql": "statement",
        "query_id": "id",
        "user": "user_name",
    }
    with pytest.raises(MappingError, match="unknown field 'sequel'"):
        parse_mapping("sequel=q")
    with pytest.raises(MappingError, match="expected field=column"):
        parse_mapping("sql")
