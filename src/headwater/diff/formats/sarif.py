"""A ``DiffReport`` as SARIF 2.1.0: each breaking change (and each statement that no longer
extracts) an ``error`` result, each possibly-breaking one a ``warning``, located at the statement's
file and line (relative to the project root, ``%SRCROOT%``) when the change has one."""

from __future__ import annotations

import json
from typing import Any

from headwater.diff.changes import ColumnChange, DiffReport, Problem, Verdict

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
RULES = {
    "HW-DIFF-BREAKING": "A change that breaks what reads the column downstream",
    "HW-DIFF-POSSIBLY-BREAKING": "A change to the values of a column that is read downstream",
    "HW-DIFF-BROKEN-STATEMENT": "A statement that reads a column or table the change removed",
}


def _location(file: str | None, line: int | None, column: int | None = None) -> list[dict[str, Any]]:
    if not file:
        return []
    region: dict[str, int] = {"startLine": max(line or 1, 1)}
    if column:
        region["startColumn"] = column
    return [{"physicalLocation": {"artifactLocation": {"uri": file, "uriBaseId": "%SRCROOT%"}, "region": region}}]


def _change_result(c: ColumnChange) -> dict[str, Any]:
    breaking = c.verdict is Verdict.BREAKING
    return {
        "ruleId": "HW-DIFF-BREAKING" if breaking else "HW-DIFF-POSSIBLY-BREAKING",
        "level": "error" if breaking else "warning",
        "message": {"text": f"{c.column}: {c.reason}"},
        "locations": _location(c.file, c.line),
        "properties": {"column": c.column, "change": c.kind.value, "verdict": c.verdict.value},
    }


def _problem_result(p: Problem) -> dict[str, Any]:
    return {
        "ruleId": "HW-DIFF-BROKEN-STATEMENT",
        "level": "error",
        "message": {"text": f"{p.code}: {p.message}"},
        "locations": _location(p.file, p.line, p.column),
        "properties": {"job": p.job, "code": p.code},
    }


def sarif_dict(report: DiffReport) -> dict[str, Any]:
    results = [_change_result(c) for c in report.columns if c.verdict is not Verdict.SAFE]
    results += [_problem_result(p) for p in report.problems]
    rules = [{"id": k, "shortDescription": {"text": v}} for k, v in RULES.items()]
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "headwater diff", "rules": rules}},
                "results": results,
                "properties": {"old": report.old, "new": report.new, "verdict": report.verdict.value},
            }
        ],
    }


def render_sarif(report: DiffReport) -> str:
    return json.dumps(sarif_dict(report), indent=2, ensure_ascii=False) + "\n"
