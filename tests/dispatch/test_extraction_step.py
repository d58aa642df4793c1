"""The collector's default extract step: the real Extractor, stateful per dialect."""

from __future__ import annotations

import pytest

from headwater.dispatch import DispatchSettings, start_dispatch
from headwater.dispatch.extraction import ExtractionFailed, ExtractorStep
from headwater.dispatch.testing import RecordingPlugin, StaticFactory, discovery_of
from headwater.extract import RunInfo


def test_ddl_seen_earlier_binds_later_statements() -> None:
    step = ExtractorStep("mysql")
    assert step("CREATE TABLE s (a INT, b INT)", RunInfo(query_id="q0", database="db"), None) == []
    [event] = step("INSERT INTO t SELECT * FROM s", RunInfo(query_id="q1", database="db"), None)
    assert [d.target_column for d in event.direct] == ["a", "b"]
    assert str(event.target.table) == "internal.db.t" and event.context.query_id == "q1"


def test_each_dialect_keeps_its_own_session() -> None:
    step = ExtractorStep()
    step("CREATE TABLE s (a INT, b INT)", RunInfo(query_id="q0", database="db"), "postgres")
    [pg] = step("INSERT INTO t SELECT * FROM s", RunInfo(query_id="q1", database="db"), "postgres")
    [other] = step("INSERT INTO t SELECT * FROM s", RunInfo(query_id="q2", database="db"), "sqlite")
    assert [d.target_column for d in pg.direct] == ["a", "b"]
    assert other.status.value == "UNAVAILABLE"  # the sqlite session never saw the DDL: `*` over an unknown table


def test_values_insert_makes_no_event_and_bad_sql_raises() -> None:
    step = ExtractorStep("mysql")
    assert step("INSERT INTO t VALUES (1)", RunInfo(query_id="q"), None) == []
    with pytest.raises(ExtractionFailed, match=r"^parse_error: "):
        step("INSERT INTO t SELECT FROM WHERE", RunInfo(query_id="q"), None)


def test_collector_counts_extraction_failures(caplog: pytest.LogCaptureFixture) -> None:
    plugin = RecordingPlugin("rec", [])
    d = start_dispatch(
        DispatchSettings(plugin_dir=None),  # type: ignore[arg-type]
        discovery=discovery_of(StaticFactory("rec", lambda ctx: plugin)),
        dialect="mysql",
    )
    d.collector.statement_succeeded("INSERT INTO t SELECT FROM WHERE", RunInfo(query_id="bad"))
    d.collector.statement_succeeded("CREATE TABLE s (a INT)", RunInfo(query_id="ddl"))
    d.collector.statement_succeeded("INSERT INTO t SELECT a FROM s", RunInfo(query_id="ok"))
    d.close()
    snap = d.snapshot()
    assert (snap.submitted, snap.extract_errors, snap.excluded, snap.extracted) == (3, 1, 1, 1)
    assert [e.context.query_id for e in plugin.events] == ["ok"]
    [line] = [r.getMessage() for r in caplog.records if "extraction failed" in r.getMessage()]
    assert line.startswith("Lineage extraction failed for query bad: parse_error: ")
