"""``headwater ingest`` / ``query`` / ``db upgrade`` through the real command line app."""

from __future__ import annotations

import json
from pathlib import Path

from tests.store.conftest import copy_event, guide
from typer.testing import CliRunner

from headwater.cli.main import app
from headwater.dispatch.spi import PluginContext
from headwater.model import event_to_json
from headwater.plugins.jsonl import JsonlPluginFactory

runner = CliRunner()


def test_db_upgrade_ingest_sql_and_query(tmp_path: Path) -> None:
    from headwater.cli.extract_cmd import guide_script

    store = str(tmp_path / "l.db")
    r = runner.invoke(app, ["db", "upgrade", "--store", store])
    assert r.exit_code == 0 and "0002" in r.output
    sql = tmp_path / "guide.sql"
    sql.write_text(guide_script())
    r = runner.invoke(app, ["ingest", str(sql), "--store", store])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["query", "stats", "--store", store, "--format", "json"])
    assert json.loads(r.output)["events_recorded"] == 1
    r = runner.invoke(
        app, ["query", "origin", "lineage_customer_summary.total_amount", "--store", store, "--format", "json"]
    )
    assert r.exit_code == 0
    assert [o["field"]["short"] for o in json.loads(r.output)["origins"]] == ["lineage_orders.amount"]
    r = runner.invoke(app, ["ingest", str(sql), "--store", store])  # replay
    assert r.exit_code == 0 and "│     1 │          9 │      1 │        0 │          1 │" in r.output


def test_ingest_jsonl_reports_bad_lines(tmp_path: Path) -> None:
    store = str(tmp_path / "l.db")
    good = event_to_json(guide())
    other = event_to_json(copy_event("report", {"amt": [("lineage_customer_summary", "total_amount")]}))
    f = tmp_path / "events.jsonl"
    f.write_text(f"{good}\n{{broken\n{other}\n")
    r = runner.invoke(app, ["ingest", str(f), "--store", store])
    assert r.exit_code == 1
    assert "events.jsonl:2: not JSON" in r.output
    for cmd in (
        ["upstream", "report"],
        ["downstream", "lineage_orders", "--depth", "1"],
        ["impact", "lineage_orders.amount"],
        ["trace", "report.amt"],
        ["summary", "report"],
        ["analyze", "lineage_orders", "--column", "amount"],
        ["stats"],
    ):
        r = runner.invoke(app, ["query", *cmd, "--store", store])
        assert r.exit_code == 0, (cmd, r.output)
    r = runner.invoke(app, ["query", "upstream", "report", "--store", store, "--format", "json"])
    assert {n["short"] for n in json.loads(r.output)["nodes"] if n["type"] == "DATASET"} == {
        "report",
        "lineage_customer_summary",
        "lineage_orders",
        "lineage_customers",
    }
    r = runner.invoke(app, ["query", "summary", "nope", "--store", store])
    assert r.exit_code == 2 and "no node matches" in r.output


def test_ingest_reads_the_jsonl_plugins_rotated_files_as_events(tmp_path: Path) -> None:
    path = tmp_path / "log" / "lineage.jsonl"
    context = PluginContext("jsonl", None, {"path": str(path), "max_bytes": 1})  # rotate before every event
    plugin = JsonlPluginFactory().create(context)
    plugin.initialize(context)
    for target in ("a", "b", "c"):
        plugin.exec(copy_event(target, {"x": [("lineage_orders", "amount")]}))
    plugin.close()
    assert sorted(p.name for p in path.parent.iterdir()) == ["lineage.jsonl", "lineage.jsonl.1", "lineage.jsonl.2"]
    store = str(tmp_path / "l.db")
    r = runner.invoke(app, ["ingest", str(path) + ".2", str(path) + ".1", "--store", store])
    assert r.exit_code == 0, r.output
    assert "│     2 │          0 │      2 │        2 │          0 │       0 │      0 │" in r.output
    r = runner.invoke(app, ["ingest", str(path), str(path) + ".1", "--store", store])
    assert r.exit_code == 0, r.output
    assert "│     2 │          0 │      2 │        1 │          1 │       0 │      0 │" in r.output
    r = runner.invoke(app, ["query", "impact", "lineage_orders.amount", "--store", store, "--format", "json"])
    assert r.exit_code == 0, r.output
    assert {"a.x", "b.x", "c.x"} <= {f["field"]["short"] for f in json.loads(r.output)["impacted"]}


def test_ingest_reads_a_rotated_json_array_as_events_and_a_numbered_sql_file_as_sql(tmp_path: Path) -> None:
    store = str(tmp_path / "l.db")
    events = tmp_path / "events.json.3"
    events.write_text("[" + event_to_json(guide()) + "]\n")
    script = tmp_path / "nightly.2"
    script.write_text("INSERT INTO lineage_demo.t2 SELECT a FROM lineage_demo.t1;\n")
    r = runner.invoke(app, ["ingest", str(events), str(script), "--store", store])
    assert r.exit_code == 0, r.output
    assert "│     2 │          1 │      2 │        2 │          0 │       0 │      0 │" in r.output


def test_serve_refuses_public_bind_without_tokens(tmp_path: Path) -> None:
    r = runner.invoke(app, ["serve", "--store", str(tmp_path / "l.db"), "--host", "0.0.0.0"])
    assert r.exit_code == 2 and "refusing" in r.output
