"""jsonl (one JSON object a line, fsync policy, rotation by size) and log, through the dispatch worker."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from headwater.dispatch import DispatchSettings, LineageDispatch, start_dispatch
from headwater.dispatch.discovery import discover
from headwater.dispatch.sample import guide_event, tiny_event
from headwater.dispatch.testing import ListExtract
from headwater.extract import RunInfo
from headwater.model import event_from_json, event_to_json
from headwater.plugins.jsonl import JsonlPlugin
from headwater.plugins.log import summary


def sql(i: int) -> str:
    return f"INSERT INTO t SELECT a FROM s -- {i}"


def builtin(name: str, settings: dict, n: int) -> LineageDispatch:
    """The built-in plugin found through the installed entry points, fed ``n`` tiny events."""
    return start_dispatch(
        DispatchSettings(plugin_dir=None, activate_lineage_plugin=(name,), plugin_settings={name: settings}),  # type: ignore[arg-type]
        extract=ListExtract({sql(i): [tiny_event(f"q{i}")] for i in range(1, n + 1)}),
        discovery=discover(None),
    )


def feed(d: LineageDispatch, n: int) -> None:
    for i in range(1, n + 1):
        d.collector.statement_succeeded(sql(i), RunInfo(query_id=f"q{i}"))


def lines(path: Path) -> list[str]:
    return [json.loads(x)["context"]["query_id"] for x in path.read_text().splitlines()]


def test_jsonl_appends_one_event_per_line(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "events.jsonl"
    with builtin("jsonl", {"path": str(path)}, 3) as d:
        feed(d, 3)
    assert lines(path) == ["q1", "q2", "q3"]
    assert event_from_json(path.read_text().splitlines()[0]) == tiny_event("q1")
    with builtin("jsonl", {"path": str(path)}, 1) as d:  # a restart appends
        feed(d, 1)
    assert lines(path) == ["q1", "q2", "q3", "q1"]


@pytest.mark.parametrize(("every", "fsyncs"), [(0, 1), (1, 6), (2, 3), (10, 1)])
def test_jsonl_fsync_policy(tmp_path: Path, every: int, fsyncs: int) -> None:
    with builtin("jsonl", {"path": str(tmp_path / "e.jsonl"), "fsync_every": every}, 5) as d:
        feed(d, 5)
    plugin = d.plugins[0].plugin
    assert isinstance(plugin, JsonlPlugin)
    assert plugin.fsyncs == fsyncs  # every N events, plus one at close


def test_jsonl_rotates_by_size_and_keeps_backup_count(tmp_path: Path) -> None:
    path = tmp_path / "e.jsonl"
    line = len(event_to_json(tiny_event("q1")).encode()) + 1  # q1..q7 lines have the same length
    settings = {"path": str(path), "max_bytes": 2 * line + 1, "backup_count": 2}
    with builtin("jsonl", settings, 7) as d:
        feed(d, 7)
    assert lines(path) == ["q7"]
    assert lines(tmp_path / "e.jsonl.1") == ["q5", "q6"]
    assert lines(tmp_path / "e.jsonl.2") == ["q3", "q4"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["e.jsonl", "e.jsonl.1", "e.jsonl.2"]


def test_jsonl_rotation_without_backups_truncates(tmp_path: Path) -> None:
    path = tmp_path / "e.jsonl"
    line = len(event_to_json(tiny_event("q1")).encode()) + 1
    with builtin("jsonl", {"path": str(path), "max_bytes": line, "backup_count": 0}, 3) as d:
        feed(d, 3)
    assert lines(path) == ["q3"] and [p.name for p in tmp_path.iterdir()] == ["e.jsonl"]


@pytest.mark.parametrize(
    ("settings", "reason"),
    [
        ({}, "PluginNotConfigured: lineage plugin jsonl needs the setting 'path'"),
        (
            {"path": "x", "max_bytes": -1},
            "ValueError: lineage plugin jsonl: setting 'max_bytes' must be an integer >= 0, got -1",
        ),
    ],
)
def test_jsonl_bad_settings_fail_initialize(settings: dict, reason: str) -> None:
    d = builtin("jsonl", settings, 0)
    d.close()
    assert [(s.name, s.state, s.reason) for s in d.activation.statuses if s.name == "jsonl"] == [
        ("jsonl", "failed to create/initialize", reason)
    ]


def test_log_plugin_summary_line(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "headwater.lineage")
    with builtin("log", {}, 2) as d:
        feed(d, 2)
    got = [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "headwater.lineage"]
    assert got == [
        (
            "INFO",
            f"lineage event {tiny_event(q).event_id} query_id={q} InsertIntoTableCommand db.t <- db.s status=COMPLETE",
        )
        for q in ("q1", "q2")
    ]


def test_log_plugin_json_format_on_another_logger(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, "audit")
    with builtin("log", {"format": "json", "level": "WARNING", "logger": "audit"}, 1) as d:
        feed(d, 1)
    [record] = [r for r in caplog.records if r.name == "audit"]
    assert record.levelname == "WARNING"
    assert event_from_json(record.getMessage()) == tiny_event("q1")


def test_summary_of_the_guide_event() -> None:
    assert summary(guide_event("q9")).endswith(
        "query_id=q9 InsertIntoTableCommand lineage_demo.lineage_customer_summary "
        "<- lineage_demo.lineage_orders, lineage_demo.lineage_customers status=COMPLETE"
    )
