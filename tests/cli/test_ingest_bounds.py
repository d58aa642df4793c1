"""What ``ingest`` keeps per statement is bounded: its lists of problems, its job names per file."""

from __future__ import annotations

import gc
import tracemalloc

from rich.console import Console

from headwater.cli.ingest_cmd import SHOWN, IngestTotals, _note_status, _summary
from headwater.extract import extract_script
from headwater.project.job_names import FileJobNames
from headwater.store import open_store


def test_incomplete_events_past_the_listed_ones_are_counted_not_kept() -> None:
    event = extract_script("INSERT INTO db.t SELECT * FROM db.s").events[0]
    assert event.status.value != "COMPLETE"
    totals = IngestTotals()
    for k in range(SHOWN + 80):
        _note_status(totals, f"a.sql:{k + 1}", event)
        totals.fail(f"b.sql:{k + 1}", "failed")
    assert len(totals.incomplete_where) == SHOWN and len(totals.problems) == SHOWN
    assert totals.failed == SHOWN + 80 and totals.unlisted == 160
    console = Console(record=True, width=200)
    _summary(console, totals)
    out = console.export_text()
    assert f"… and {2 * (SHOWN + 80) - SHOWN} more" in out
    assert "b.sql:1: failed" in out and "a.sql:1:" not in out  # failures first, as before


def test_a_file_job_names_take_a_bit_each() -> None:
    n = 50_000
    gc.collect()
    tracemalloc.start()
    try:
        names = FileJobNames("etl/load.sql")
        names.update(f"etl/load.sql#{k}" for k in range(1, n + 1))
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(names) == n and "etl/load.sql#50000" in names and "etl/load.sql#50001" not in names
    assert held < n  # a set of the strings: ~100 bytes each


def test_close_jobs_with_file_job_names_closes_those_not_in_it() -> None:
    store = open_store("sqlite://")
    from headwater.project import ProjectContext

    text = "INSERT INTO db.a SELECT x FROM db.s;\n-- name: load_b\nINSERT INTO db.b SELECT x FROM db.s;\nINSERT INTO db.c SELECT x FROM db.s;"
    store.record_batch(ProjectContext().extract("f.sql", text).events)
    names = FileJobNames("f.sql")
    names.update(["f.sql#1", "load_b"])
    assert store.close_jobs("f.sql", names).jobs == ["f.sql#3"]
