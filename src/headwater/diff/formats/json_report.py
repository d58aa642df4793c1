"""A ``DiffReport`` as a JSON document (the API's answer and ``--format json``): plain data, keys in a
fixed order, no times or ids, so that the same change gives the same document."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from headwater.diff.changes import DiffReport


def report_dict(report: DiffReport) -> dict[str, Any]:
    """The report as JSON-ready data (enums as their values, tuples as lists)."""
    data = asdict(report)
    data["counts"] = counts(report)
    return json.loads(json.dumps(data))


def counts(report: DiffReport) -> dict[str, int]:
    """How many changes of each verdict, and how many statements no longer extract."""
    out = {v: 0 for v in ("BREAKING", "POSSIBLY_BREAKING", "SAFE")}
    for c in report.columns:
        out[c.verdict.value] += 1
    out["problems"] = len(report.problems)
    return out


def render_json(report: DiffReport) -> str:
    return json.dumps(report_dict(report), indent=2, ensure_ascii=False) + "\n"
