"""Watermarks (re-runs read nothing new and change nothing), --since/--until, and 1 vs 2 workers."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from tests.history.conftest import MARIADB_URL, event_jsons, guide_mix, row, store_dump

from headwater.history import (
    ExtractSpec,
    FileWatermarks,
    IngestOptions,
    TableWatermarks,
    ingest_history,
    open_source,
    parse_time,
)
from headwater.history.synthetic import generate_log, synthetic_schema, write_audit_file, write_jsonl
from headwater.store import open_store


def _counts(summary) -> tuple[int, int, int]:
    c = summary.counters
    return c.rows_read, c.events, c.recorded


def test_audit_table_incremental_rerun_and_new_rows(audit_table, sqlite_url: str) -> None:
    rows = guide_mix()
    table = audit_table(rows)
    store = open_store(sqlite_url)
    marks = TableWatermarks(store.engine)
    source = open_source("doris-audit-table", [MARIADB_URL], table=table)
    first = ingest_history(source, store, IngestOptions(), marks)
    assert _counts(first) == (16, 3, 3)
    before = store_dump(sqlite_url)
    again = ingest_history(source, store, IngestOptions(), marks)
    assert _counts(again) == (0, 0, 0)
    assert again.watermark_before == again.watermark_after == first.watermark_after
    assert store_dump(sqlite_url) == before

    # new rows, one of them at exactly the watermark's time with another query id
    last = max(r["time"] for r in rows)
    new = [
        row(
            "late-same-ms",
            "INSERT INTO region_totals SELECT region, SUM(amount) FROM lineage_orders GROUP BY region",
            last,
        ),
        row("later", "INSERT INTO lineage_customer_summary SELECT * FROM lineage_orders", last + timedelta(seconds=9)),
    ]
    import sqlalchemy as sa

    from headwater.history.synthetic import audit_table as shape

    engine = sa.create_engine(MARIADB_URL)
    with engine.begin() as conn:
        conn.execute(shape(table.split(".")[1]).insert(), new)
    engine.dispose()
    third = ingest_history(source, store, IngestOptions(), marks)
    assert _counts(third) == (2, 2, 2)
    assert third.watermark_after.query_ids == frozenset({"later"})
    assert _counts(ingest_history(source, store, IngestOptions(), marks)) == (0, 0, 0)


def test_since_until_window_and_watermark_file(tmp_path: Path, sqlite_url: str) -> None:
    rows = generate_log(600, seed=3)
    write_audit_file(rows, tmp_path / "fe.audit.log")
    store = open_store(sqlite_url)
    marks = FileWatermarks(tmp_path / "state.json")
    source = open_source("doris-audit-file", [str(tmp_path / "fe.audit.log")])
    since, until = parse_time("2024-05-01 12:00:00"), parse_time("2024-05-01 18:00:00")
    inside = [r for r in rows if since <= parse_time(r["time"]) < until]
    window = ingest_history(source, store, IngestOptions(since=since, until=until), marks)
    assert window.counters.rows_read == len(inside) > 0
    assert not (tmp_path / "state.json").exists()  # a window with an end leaves the watermark alone

    full = ingest_history(source, store, IngestOptions(), marks)
    assert full.counters.rows_read == len(rows)
    assert full.counters.recorded == full.counters.events - window.counters.events
    assert full.counters.duplicates == window.counters.events
    saved = json.loads((tmp_path / "state.json").read_text())
    newest = max(rows, key=lambda r: (r["time"], r["query_id"]))
    assert saved[source.name]["timestamp"] == newest["time"].isoformat(timespec="milliseconds") + "Z"
    assert _counts(ingest_history(source, store, IngestOptions(), marks)) == (0, 0, 0)


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_two_workers_record_the_same_as_one(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    rows = generate_log(2500, seed=11, per_session=40)
    write_jsonl(rows, tmp_path / "log.jsonl")
    (tmp_path / "schema.json").write_text(json.dumps(synthetic_schema()))
    spec = ExtractSpec(schema_file=str(tmp_path / "schema.json"))
    dumps, summaries = [], []
    for workers in (1, 2):
        if backend == "sqlite":
            url = f"sqlite:///{tmp_path / f'w{workers}.db'}"
        else:
            url = request.getfixturevalue("pg_url") if workers == 1 else _fresh_pg(request)
        source = open_source("jsonl", [str(tmp_path / "log.jsonl")])
        summary = ingest_history(source, open_store(url), IngestOptions(spec=spec, workers=workers, task_size=300))
        summaries.append(summary)
        dumps.append(store_dump(url))
    one, two = summaries
    assert one.counters == two.counters
    assert one.counters.events == one.counters.recorded > 700
    assert [p.where for p in one.problems] == [p.where for p in two.problems]
    assert dumps[0] == dumps[1]


def _fresh_pg(request: pytest.FixtureRequest) -> str:
    """A second PostgreSQL schema for the same test (the fixture gives one per test)."""
    from tests.pg_schema import fresh_schema_url

    schema = fresh_schema_url("hw_hist")
    url = schema.__enter__()
    request.addfinalizer(lambda: schema.__exit__(None, None, None))
    return url


def test_extraction_is_the_same_in_process_and_in_workers(tmp_path: Path) -> None:
    from headwater.history import group_sessions, plan_tasks
    from headwater.history.parallel import run_tasks
    from headwater.history.window import Window

    write_jsonl(generate_log(800, seed=5), tmp_path / "log.jsonl")
    records = list(open_source("jsonl", [str(tmp_path / "log.jsonl")]).read(Window()))
    tasks = plan_tasks(group_sessions(records), 100)
    a = [o for t in run_tasks(tasks, ExtractSpec(), 1) for o in t]
    b = [o for t in run_tasks(tasks, ExtractSpec(), 2) for o in t]
    assert [(o.query_id, o.kind, o.detail) for o in a] == [(o.query_id, o.kind, o.detail) for o in b]
    assert event_jsons(e for o in a for e in o.events) == event_jsons(e for o in b for e in o.events)


def test_an_event_that_does_not_decode_fails_its_statement_alone() -> None:
    from headwater.dispatch.sample import tiny_event
    from headwater.history.parallel import _unpack
    from headwater.model import event_to_dict

    good = event_to_dict(tiny_event("q1"))
    bad = {**event_to_dict(tiny_event("q2")), "event_id": ""}
    a, b = _unpack([("q1", "s", "event", None, [good], False), ("q2", "s", "event", None, [bad], False)])
    assert (a.kind, len(a.events)) == ("event", 1)
    assert (
        (b.kind, b.events) == ("failed", ()) and b.detail is not None and b.detail.startswith("invalid event: event_id")
    )
