"""``headwater extract --project``: the files as one project, the events ``headwater ingest`` records."""

from __future__ import annotations

import gc
import json
import weakref

import pytest
from typer.testing import CliRunner

from headwater.cli.extract_cmd import StatementPrinter
from headwater.cli.main import app
from headwater.extract import StatementResult
from headwater.model import LineageInfo
from tests.project.conftest import FILES, WAREHOUSE
from tests.project.test_warehouse import JOBS

runner = CliRunner()
SCHEMA = str(WAREHOUSE / "raw_schema.json")


def test_project_events_are_the_ingest_events() -> None:
    files = [str(WAREHOUSE / f) for f in reversed(FILES)]  # dependency order, whatever the command line
    result = runner.invoke(
        app, ["extract", *files, "--project", "--dialect", "spark", "--schema", SCHEMA, "--format", "jsonl"]
    )
    assert result.exit_code == 0, result.output
    events = [json.loads(x) for x in result.stdout.splitlines()]
    assert {e["status"] for e in events} == {"COMPLETE"} and len(events) == 13
    names = sorted(e["context"]["external_catalog_properties"]["headwater.job"] for e in events)
    assert names == JOBS
    view = [e for e in events if e["source_command"] == "CreateViewCommand"]
    assert [v["target"]["table"]["name"] for v in view] == ["v_customer_360"]
    # without --project each file is its own session: file 2's SELECT * over file 1's CTAS is unknown
    apart = runner.invoke(app, ["extract", *files, "--dialect", "spark", "--schema", SCHEMA, "--format", "jsonl"])
    assert {json.loads(x)["status"] for x in apart.stdout.splitlines()} != {"COMPLETE"}


def test_project_needs_files() -> None:
    result = runner.invoke(app, ["extract", "--project"], env={"COLUMNS": "100"})
    assert result.exit_code == 2
    assert "--project needs SQL files or directories (not standard input)" in result.output


def test_block_headers_name_the_file_and_the_job() -> None:
    """Each block says which file and line, and the job's one name (issue 36: ``statement 6, line 1``
    of which file?); a statement that made no event is numbered within its file; json has the file."""
    files = [str(WAREHOUSE / f) for f in FILES]
    args = ["extract", *files, "--project", "--dialect", "spark", "--schema", SCHEMA]
    table = runner.invoke(app, [*args, "--explain-skips"], env={"COLUMNS": "160"})
    assert table.exit_code == 0, table.output
    heads = [ln for ln in table.stdout.splitlines() if "COMPLETE" in ln]
    assert len(heads) == 13
    assert any("(02_marts.sql:25, job 02_marts.sql#2)" in h for h in heads), heads
    assert any("(02_marts.sql:16, job fct_sales)" in h for h in heads), heads
    assert all("statement" not in h for h in heads)
    assert "02_marts.sql: no event statement 1 (line 3): CREATE DATABASE" in table.stdout
    events = [json.loads(x) for x in runner.invoke(app, [*args, "--format", "jsonl"]).stdout.splitlines()]
    props = [e["context"]["external_catalog_properties"] for e in events]
    assert {(p["headwater.job.file"], p["headwater.job.line"]) for p in props} >= {("02_marts.sql", "25")}
    assert all(p["headwater.job.file"] in FILES for p in props)
    whole = json.loads(runner.invoke(app, [*args, "--format", "json"]).stdout)
    assert [e["context"]["external_catalog_properties"] for e in whole] == props


def test_headers_of_several_files_without_project_name_the_file(tmp_path) -> None:
    a, b = tmp_path / "a.sql", tmp_path / "b.sql"
    a.write_text("INSERT INTO t SELECT x FROM s;\n")
    b.write_text("\nINSERT INTO u SELECT y FROM s;\n")
    r = runner.invoke(app, ["extract", str(a), str(b)], env={"COLUMNS": "160"})
    assert r.exit_code == 0, r.output
    assert f"({a}:1, statement 1)" in r.stdout and f"({b}:2, statement 1)" in r.stdout
    whole = runner.invoke(app, ["extract", str(a), str(b), "--format", "json"])
    assert [e["target"]["table"]["name"] for e in json.loads(whole.stdout)] == ["t", "u"]  # one array


@pytest.mark.parametrize("fmt", ["jsonl", "json", "openlineage", "table"])
def test_project_keeps_no_statement_once_printed(tmp_path, monkeypatch, fmt) -> None:
    """Issue 35: each statement is printed as it is extracted and then let go (as plain ``extract``
    does), not a whole file's results held until the file is printed: when a statement is printed,
    the events of every statement before it are garbage."""
    for name in ("a.sql", "b.sql"):
        (tmp_path / name).write_text("".join(f"INSERT INTO t{k} SELECT x FROM s;\n" for k in range(12)))
    printed: list[list[weakref.ref[LineageInfo]]] = []
    kept: list[int] = []  # per statement: how many events of the statements before it are still alive
    original = StatementPrinter.statement

    def statement(self: StatementPrinter, s: StatementResult) -> None:
        gc.collect()
        kept.append(sum(r() is not None for refs in printed for r in refs))
        printed.append([weakref.ref(e) for e in s.events])
        original(self, s)

    monkeypatch.setattr(StatementPrinter, "statement", statement)
    r = runner.invoke(app, ["extract", str(tmp_path), "--project", "--format", fmt], env={"COLUMNS": "160"})
    assert r.exit_code == 0, r.output
    assert len(printed) == 24 and all(len(refs) == 1 for refs in printed)
    assert kept == [0] * 24


def test_a_cycle_is_reported_and_the_files_run_in_name_order(tmp_path) -> None:
    (tmp_path / "a.sql").write_text("CREATE TABLE db.x AS SELECT id FROM db.y;\n")
    (tmp_path / "b.sql").write_text("CREATE TABLE db.y AS SELECT id FROM db.x;\n")
    files = [str(tmp_path / "b.sql"), str(tmp_path / "a.sql")]
    r = runner.invoke(app, ["extract", *files, "--project", "--format", "jsonl"], env={"COLUMNS": "200"})
    assert "the files a.sql, b.sql read tables one another writes (a cycle): they run in name order" in r.output
    lines = r.stdout.splitlines()
    assert len(lines) == 2 and "a.sql#1" in lines[0] and "b.sql#1" in lines[1]  # name order, not as given
