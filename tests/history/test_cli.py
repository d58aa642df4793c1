"""``headwater ingest-log`` end to end through the CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.history.conftest import MARIADB_URL, guide_mix
from typer.testing import CliRunner

from headwater.cli.main import app
from headwater.store import open_store

runner = CliRunner()


def _figure(output: str, name: str) -> int:
    m = re.search(rf"│ {name}\s+│\s+(\d+) │", output)
    assert m, output
    return int(m.group(1))


def test_ingest_log_audit_table_report_and_rerun(audit_table, tmp_path: Path, sqlite_url: str) -> None:
    table = audit_table(guide_mix())
    report = tmp_path / "problems.jsonl"
    args = ["ingest-log", MARIADB_URL, "--source", "doris-audit-table", "--table", table, "--store", sqlite_url]
    first = runner.invoke(app, [*args, "--report", str(report), "--workers", "2"])
    assert first.exit_code == 0, first.output
    assert (_figure(first.output, "events"), _figure(first.output, "failed to parse")) == (3, 1)
    assert "skipped by rule: LOAD 1, ddl 4, internal-schema 1, select 1, use 1, values-insert 2" in first.output
    assert "query mix-broken: cannot parse statement 1" in first.output
    lines = [json.loads(x) for x in report.read_text().splitlines()]
    assert [x["where"] for x in lines] == ["query mix-broken"]
    again = runner.invoke(app, args)
    assert again.exit_code == 0, again.output
    assert _figure(again.output, "rows read") == 0
    assert open_store(sqlite_url).get_lineage_stats().events_recorded == 3


def test_ingest_log_csv_with_map_and_bad_options(tmp_path: Path, sqlite_url: str) -> None:
    rows = [{**r, "statement": r["stmt"], "id": r["query_id"], "user_name": r["user"]} for r in guide_mix()]
    for r in rows:
        del r["stmt"], r["query_id"], r["user"]
    path = tmp_path / "log.csv"
    import csv

    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows({**r, "time": r["time"].isoformat(sep=" ")} for r in rows)
    ok = runner.invoke(
        app, ["ingest-log", str(path), "--map", "sql=statement,query_id=id,user=user_name", "--store", sqlite_url]
    )
    assert ok.exit_code == 0, ok.output
    assert (_figure(ok.output, "rows read"), _figure(ok.output, "events")) == (16, 3)
    bad = runner.invoke(app, ["ingest-log", str(path), "--map", "sequel=statement", "--store", sqlite_url])
    assert bad.exit_code == 2
    assert "unknown field 'sequel'" in bad.output
