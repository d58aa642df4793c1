"""A diff from end to end: two sides (a store at a time, or a version of a project's SQL), compared,
with the downstream of each change read from the deployed store (or the old side).

>>> old = project_side({"a.sql": "CREATE TABLE m.t AS SELECT x, y FROM s.r"}, label="main")
>>> new = project_side({"a.sql": "CREATE TABLE m.t AS SELECT x FROM s.r"}, label="HEAD")
>>> report = diff(old, new)
>>> [(c.column, c.kind.value, c.verdict.value) for c in report.columns], report.verdict.value
([('internal.m.t.y', 'removed', 'SAFE')], 'SAFE')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from headwater.diff.changes import DiffReport, Problem
from headwater.diff.compare import compare
from headwater.diff.dbt_graph import extract_dbt_graph
from headwater.diff.impact import assess, new_problems
from headwater.diff.project_graph import ProjectOptions, extract_project
from headwater.diff.snapshot import Snapshot, read_snapshot
from headwater.project.dbt import Artifacts
from headwater.store import LineageStore
from headwater.store.names import to_us


@dataclass(slots=True)
class Side:
    """One state of lineage: its snapshot, the store it was read from and at which time."""

    label: str
    snapshot: Snapshot
    store: LineageStore
    as_of: int | None = None
    problems: list[Problem] = field(default_factory=list)


def store_side(store: LineageStore, at: str | int | None, label: str | None = None) -> Side:
    """The store at ``at`` (an ISO time, microseconds, or None / ``now``: what is current)."""
    as_of = None if at in (None, "now") else to_us(at)
    with store.engine.connect() as conn:
        snapshot = read_snapshot(conn, as_of)
    return Side(label or str(at or "now"), snapshot, store, as_of)


def project_side(files: Mapping[str, str], options: ProjectOptions | None = None, label: str = "") -> Side:
    """A version of a project's SQL (relative path → text), extracted into an in-memory store."""
    graph = extract_project(files, options)
    return Side(label, graph.snapshot, graph.store, None, graph.problems)


def dbt_side(artifacts: Artifacts, options: ProjectOptions | None = None, label: str = "") -> Side:
    """A dbt project's compiled state (its artifacts), extracted as ``ingest --dbt`` extracts it."""
    graph = extract_dbt_graph(artifacts, options)
    return Side(label, graph.snapshot, graph.store, None, graph.problems)


def diff(old: Side, new: Side, deployed: LineageStore | None = None, deployed_label: str = "") -> DiffReport:
    """``old`` compared with ``new``; each change's downstream read from ``deployed`` (current), else
    from the old side at its time."""
    report = compare(old.snapshot, new.snapshot, old.label, new.label)
    store, as_of = (deployed, None) if deployed is not None else (old.store, old.as_of)
    report.impact_from = deployed_label if deployed is not None else old.label
    with store.engine.connect() as conn:
        assess(report, conn, as_of, old.snapshot, new.snapshot, new_problems(old.problems, new.problems))
    return report
