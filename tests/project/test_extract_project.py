"""``headwater extract --project``: the files as one project, the events ``headwater ingest`` records."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from headwater.cli.main import app
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
