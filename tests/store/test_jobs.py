"""Stable job identity, versions, closing removed statements and files, ageing (issue 11 items 4, 5)."""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import select
from tests.store.helpers import file_events

from headwater.store import LineageStore
from headwater.store.schema import jobs

T1, T2, T3 = "2026-11-01T10:00:00Z", "2026-11-10T10:00:00Z", "2026-11-20T10:00:00Z"
BEFORE_EDIT, AFTER_EDIT = "2026-11-05T00:00:00Z", "2026-11-15T00:00:00Z"

REPORTS = """
CREATE TABLE rpt.exec_summary AS
SELECT c.net_revenue AS store_channel_revenue, c.c_customer_sk FROM mart.customer_value c;
CREATE TABLE rpt.returns AS SELECT c.returns_value FROM mart.customer_value c;
"""
EDITED = REPORTS.replace("c.net_revenue AS store_channel_revenue", "c.returns_value AS store_channel_revenue")


def _sources(store: LineageStore, field: str, as_of: str | None = None) -> set[str]:
    up = store.get_upstream(field, max_depth=1, as_of=as_of, node_types=["FIELD"])
    return {n.short for n in up.nodes if n.id != up.root.id}


def _jobs_of(store: LineageStore, dataset: str, as_of: str | None = None) -> set[str]:
    return {n.name for n in store.get_upstream(dataset, max_depth=1, as_of=as_of, node_types=["JOB"]).nodes}


def test_an_edited_statement_is_a_new_version_of_the_same_job(store: LineageStore) -> None:
    """Problem 2: after an edit and re-ingest, the old source stayed current beside the new one."""
    store.record_batch(file_events("reports.sql", REPORTS, T1))
    store.record_batch(file_events("reports.sql", EDITED, T2))
    assert _sources(store, "exec_summary.store_channel_revenue") == {"customer_value.returns_value"}
    assert _sources(store, "exec_summary.store_channel_revenue", BEFORE_EDIT) == {"customer_value.net_revenue"}
    assert _jobs_of(store, "rpt.exec_summary") == {"job:reports.sql#1"}  # one job, not two
    h = store.job_history("reports.sql#1")
    assert (h.name, h.runs, h.file, h.line, h.closed) == ("reports.sql#1", 2, "reports.sql", 2, None)
    assert [(v.version, v.runs, v.file, v.line) for v in h.versions] == [
        (1, 1, "reports.sql", 2),
        (2, 1, "reports.sql", 2),
    ]
    first, second = h.versions
    assert "c.net_revenue AS store_channel_revenue" in (first.sql or "")
    assert "c.returns_value AS store_channel_revenue" in (second.sql or "")
    assert first.valid_to == second.valid_from and second.valid_to is None
    assert first.valid_from is not None and first.valid_from.isoformat().startswith("2026-11-01T10:00")
    # the unchanged statement re-ingested is one version with two runs
    other = store.job_history("reports.sql#2")
    assert [(v.version, v.runs) for v in other.versions] == [(1, 2)]
    assert [v.version for v in store.job_history("reports.sql#1", as_of=BEFORE_EDIT).versions] == [1]


def test_a_statement_removed_from_a_file_is_closed(store: LineageStore) -> None:
    store.record_batch(file_events("reports.sql", REPORTS, T1))
    only_first = REPORTS.split(";")[0] + ";"
    store.record_batch(file_events("reports.sql", only_first, T2))
    closed = store.close_jobs("reports.sql", ["reports.sql#1"], at=T2)
    assert closed.jobs == ["reports.sql#2"] and closed.edges_closed > 0
    assert _sources(store, "rpt.returns.returns_value") == set()
    assert _sources(store, "rpt.returns.returns_value", BEFORE_EDIT) == {"customer_value.returns_value"}
    assert store.job_history("reports.sql#2").closed is not None
    assert store.job_history("reports.sql#2").versions[-1].valid_to is not None
    assert store.close_jobs("reports.sql", ["reports.sql#1"], at=T3).jobs == []  # already closed
    # seen again: current again
    store.record_batch(file_events("reports.sql", REPORTS, T3))
    assert _sources(store, "rpt.returns.returns_value") == {"customer_value.returns_value"}
    assert store.job_history("reports.sql#2").closed is None


def test_a_file_removed_from_the_project_is_closed_by_prune(store: LineageStore) -> None:
    store.record_batch(file_events("marts/a.sql", "CREATE TABLE mart.a AS SELECT s.x FROM raw.s s;", T1))
    store.record_batch(file_events("reports/b.sql", "CREATE TABLE rpt.b AS SELECT a.x FROM mart.a a;", T1))
    assert store.prune_files(["marts/a.sql", "reports/b.sql"], at=T2).jobs == []
    assert store.prune_files(["marts/a.sql"], under="marts", at=T2).jobs == []  # b is not below marts/
    assert store.prune_files(["marts/a.sql"], at=T2).jobs == ["reports/b.sql#1"]
    assert _sources(store, "rpt.b.x") == set()
    assert _sources(store, "rpt.b.x", BEFORE_EDIT) == {"a.x"}
    assert _sources(store, "mart.a.x") == {"s.x"}


def _log_event(sql: str, query_id: str, timestamp: str) -> object:
    from headwater.extract import extract_script

    (statement,) = extract_script(sql, dialect="spark").statements
    (event,) = statement.events
    import dataclasses

    ctx = dataclasses.replace(event.context, query_id=query_id, timestamp=timestamp)
    return dataclasses.replace(event, context=ctx, event_id=query_id)


def test_query_log_jobs_age_and_expire(store: LineageStore) -> None:
    old = "INSERT INTO rpt.daily SELECT s.x FROM raw.s s WHERE s.d = '2026-01-01'"
    fresh = "INSERT INTO rpt.weekly SELECT s.y FROM raw.s s"
    store.record(_log_event(old, "q1", T1))  # type: ignore[arg-type]
    store.record(_log_event(old.replace("01-01", "01-02"), "q2", T2))  # type: ignore[arg-type]  # same job
    store.record(_log_event(fresh, "q3", T3))  # type: ignore[arg-type]
    store.record_batch(file_events("etl.sql", "CREATE TABLE mart.m AS SELECT s.z FROM raw.s s;", T1))
    with store.engine.connect() as conn:
        rows = sorted((r.runs, r.file or "") for r in conn.execute(select(jobs)))
    assert rows == [(1, ""), (1, "etl.sql"), (2, "")]
    daily = store.job_history(store.get_upstream("rpt.daily", max_depth=1, node_types=["JOB"]).nodes[0].id)
    assert (daily.runs, daily.file, len(daily.versions)) == (2, None, 1)
    assert daily.first_seen is not None and daily.last_seen is not None and daily.first_seen < daily.last_seen
    # hidden when not seen since a time: the file's job (etl.sql) never ages
    since = "2026-11-15T00:00:00Z"
    assert {
        n.short for n in store.get_downstream("raw.s", max_depth=1, seen_since=since, node_types=["DATASET"]).nodes
    } == {
        "s",
        "weekly",
        "m",
    }
    assert store.get_field_impact("raw.s.x", seen_since=since).total == 0
    assert store.get_field_impact("raw.s.x").total == 1
    assert [o.field.short for o in store.get_field_origin("rpt.daily.x", seen_since=since).origins] == ["daily.x"]
    # expire closes them; as_of before still shows them
    result = store.expire_jobs(since, at=T3)
    assert len(result.jobs) == 1 and result.jobs[0].startswith("sql:") and result.edges_closed > 0
    assert _sources(store, "rpt.daily.x") == set()
    assert _sources(store, "rpt.daily.x", AFTER_EDIT) == {"s.x", "s.d"}  # the WHERE column too
    assert _sources(store, "mart.m.z") == {"s.z"}
    assert store.expire_jobs(since, at=T3).jobs == []


def test_cli_and_api_list_versions_and_expire(store: LineageStore, store_url: str, tmp_path: Path) -> None:
    from fastapi.testclient import TestClient
    from typer.testing import CliRunner

    from headwater.cli.main import app
    from headwater.service import create_app

    runner = CliRunner()
    store.record_batch(file_events("reports.sql", REPORTS, T1))
    store.record_batch(file_events("reports.sql", EDITED, T2))
    store.record(_log_event("INSERT INTO rpt.daily SELECT s.x FROM raw.s s", "q1", T1))  # type: ignore[arg-type]
    r = runner.invoke(app, ["query", "job", "reports.sql#1", "--store", store_url, "--format", "json"])
    assert r.exit_code == 0, r.output
    answer = json.loads(r.output)
    assert [(v["version"], v["file"], v["line"]) for v in answer["versions"]] == [
        (1, "reports.sql", 2),
        (2, "reports.sql", 2),
    ]
    assert "c.returns_value AS store_channel_revenue" in answer["versions"][1]["sql"]
    table = runner.invoke(app, ["query", "job", "reports.sql#1", "--store", store_url])
    assert table.exit_code == 0 and "2 runs, 2 versions, current" in table.output and "(current)" in table.output
    missing = runner.invoke(app, ["query", "job", "nope.sql#9", "--store", store_url])
    assert missing.exit_code == 2 and "nope.sql#9" in missing.output
    with TestClient(create_app(store)) as client:
        v = client.get("/api/v1/jobs/versions", params={"job": "reports.sql#1"})
        assert v.status_code == 200 and [x["version"] for x in v.json()["versions"]] == [1, 2]
        assert client.get("/api/v1/jobs/versions", params={"job": "nope"}).status_code == 404
        up = client.get("/api/v1/upstream", params={"node": "rpt.daily", "seen_since": "2026-11-05T00:00:00Z"})
        assert up.status_code == 200 and {n["short"] for n in up.json()["nodes"]} == {"daily"}
        bad = client.get("/api/v1/field-impact", params={"field": "raw.s.x", "seen_since": "soon"})
        assert bad.status_code == 400 and bad.json()["error"]["field"] == "query.seen_since"
        assert "get_job_versions" in client.get("/openapi.json").text
    seen = runner.invoke(app, ["query", "upstream", "rpt.daily", "--seen-since", "2026-11-05", "--store", store_url])
    assert seen.exit_code == 0 and "s.x" not in seen.output
    assert (
        runner.invoke(app, ["query", "upstream", "rpt.daily", "--seen-since", "x", "--store", store_url]).exit_code == 2
    )
    r = runner.invoke(app, ["db", "expire", "--not-seen-for", "3d", "--store", store_url, "--format", "json"])
    assert r.exit_code == 0, r.output
    assert len(json.loads(r.output)["jobs"]) == 1  # the query-log job (T1 is weeks ago); the file's jobs stay
    assert _sources(store, "rpt.daily.x") == set()
    assert _sources(store, "exec_summary.store_channel_revenue") == {"customer_value.returns_value"}
