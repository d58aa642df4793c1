"""Downstream of each change, read from a store, and the verdict on it.

The store is the deployed catalog (``--store``), else the old state itself. Each changed column is
analysed there with ``analyze_impact`` (``store/impact.py``, whose severity rules apply as
documented in ``docs/store.md``) and its readers listed with ``get_field_impact`` at level ``all``
(with their paths). The change types:

=====================  =======================================  =================================
change                 analysed as                              verdict
=====================  =======================================  =================================
removed, renamed,      SCHEMA_CHANGE (DROP_COLUMN,               BREAKING when a reader still reads
retyped                RENAME_COLUMN, CHANGE_TYPE)               it after the change, else SAFE
expression, indirect   DATA_UPDATE                               POSSIBLY_BREAKING when anything
                                                                 reads it, else SAFE
added                  —                                         SAFE
=====================  =======================================  =================================

A reader (a column that reads the changed one directly) *changes with it* when, in the new state,
it no longer reads the changed column and its statement extracts completely, or when the change
removes it too; any other reader breaks, and so does everything downstream of it. A statement of
the new state that reads a column or table that is not there (``Problem``) is BREAKING too.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection, select

from headwater.diff.changes import ColumnChange, ColumnKind, DiffReport, Impact, Problem, Reader, Verdict, strongest
from headwater.diff.snapshot import Snapshot
from headwater.store.fields import get_field_impact
from headwater.store.impact import analyze_impact
from headwater.store.resolve import fetch_nodes
from headwater.store.schema import nodes
from headwater.store.types import ChangeType, NodeType

DESTRUCTIVE = {
    ColumnKind.REMOVED: "DROP_COLUMN",
    ColumnKind.RENAMED: "RENAME_COLUMN",
    ColumnKind.RETYPED: "CHANGE_TYPE",
}
MAX_NAMED = 5


def _field_id(conn: Connection, name: str) -> int | None:
    q = select(nodes.c.id).where(nodes.c.name == name, nodes.c.type == NodeType.FIELD.value)
    return conn.execute(q).scalar_one_or_none()


def _complete(snap: Snapshot, jobs: list[str]) -> bool:
    return all(snap.jobs[j].status in (None, "COMPLETE") for j in jobs if j in snap.jobs)


def _changes_with(reader: str, column: str, old: Snapshot, new: Snapshot) -> bool:
    """Whether ``reader`` (reading ``column`` before) is changed along with it (module docstring)."""
    if not _complete(new, old.writers.get(reader, [])):
        return False  # its statement no longer extracts: it still reads what is gone
    if reader not in new.columns:
        return reader in old.columns  # the change removes it too; else it is outside what changed
    if any(e.source == column for e in new.edges_into(reader)):
        return False
    return _complete(new, new.writers.get(reader, []))


def impact_of(conn: Connection, change: ColumnChange, as_of: int | None, old: Snapshot, new: Snapshot) -> Impact | None:
    """What ``change`` affects downstream in the store at ``conn`` (None: the store has no such column)."""
    if change.kind is ColumnKind.ADDED:
        return None
    fid = _field_id(conn, change.column)
    if fid is None:
        return None
    operation = DESTRUCTIVE.get(change.kind)
    change_type = ChangeType.SCHEMA_CHANGE if operation else ChangeType.DATA_UPDATE
    analysis = analyze_impact(conn, fid, change_type, {"operation": operation} if operation else {}, as_of)
    fi = get_field_impact(conn, fid, as_of, level="all")
    ids = {i for p in fi.impacted for e in p.path for i in (e.source, e.target)}
    names = {i: n.name for i, n in fetch_nodes(conn, ids).items()}
    broken_first: set[str] = set()
    readers = []
    for p in fi.impacted:
        path = (change.column, *(names.get(e.target, str(e.target)) for e in p.path))
        first = path[1] if len(path) > 1 else p.field.name
        if p.depth == 1 and operation and not _changes_with(p.field.name, change.column, old, new):
            broken_first.add(p.field.name)
        readers.append((p, path, first))
    out = Impact(
        change_type.value + (f" {operation}" if operation else ""),
        analysis.overall_severity,
        [Reader(p.field.name, p.depth, p.dependency, path, first in broken_first) for p, path, first in readers],
        list(analysis.groups),
        analysis.truncated or fi.truncated,
    )
    return out


def _named(columns: list[str]) -> str:
    more = f" and {len(columns) - MAX_NAMED} more" if len(columns) > MAX_NAMED else ""
    return ", ".join(columns[:MAX_NAMED]) + more


def _what(change: ColumnChange) -> str:
    if change.kind is ColumnKind.RENAMED:
        return f"renamed to {change.renamed_to}"
    if change.kind is ColumnKind.RETYPED:
        c = next(c for c in change.changed)
        return f"retyped ({c.old_expression} → {c.new_expression})"
    if change.kind is ColumnKind.EXPRESSION:
        c = next((c for c in change.changed if c.dependency == "DIRECT"), None)
        if c is not None:
            return f"computed otherwise ({c.old_expression} → {c.new_expression})"
        lost = [e.source for e in change.removed if e.dependency == "DIRECT"]
        came = [e.source for e in change.added if e.dependency == "DIRECT"]
        parts = ([f"no longer from {_named(lost)}"] if lost else []) + (
            [f"now also from {_named(came)}"] if came else []
        )
        return "computed otherwise (" + "; ".join(parts) + ")"
    if change.kind is ColumnKind.INDIRECT:
        return "other rows (a join, filter or grouping changed)"
    return {ColumnKind.REMOVED: "dropped", ColumnKind.ADDED: "new column"}[change.kind]


def judge(change: ColumnChange) -> None:
    """Set ``change.verdict`` and ``change.reason`` from its kind and impact."""
    what = _what(change)
    impact = change.impact
    readers = impact.readers if impact else []
    entities = [g for g in (impact.groups if impact else []) if g.type not in ("FIELD", "DATASET", "JOB")]
    if change.kind is ColumnKind.ADDED:
        change.verdict, change.reason = Verdict.SAFE, what
    elif change.kind in DESTRUCTIVE:
        broken = [r.column for r in readers if r.broken and r.depth == 1]
        downstream = [r.column for r in readers if r.broken and r.depth > 1]
        if broken:
            more = f", {len(downstream)} more downstream" if downstream else ""
            change.verdict = Verdict.BREAKING
            change.reason = f"{what}; breaks {len(broken)} reader(s): {_named(broken)}{more}"
        elif readers:
            change.verdict, change.reason = Verdict.SAFE, f"{what}; its readers change with it"
        else:
            change.verdict, change.reason = Verdict.SAFE, f"{what}; nothing downstream reads it"
    elif readers or entities:
        severity = impact.severity if impact else "LOW"
        extra = "".join(f", {g.count} {g.type}" for g in entities)
        change.verdict = Verdict.POSSIBLY_BREAKING
        change.reason = (
            f"{what}; values change for {len(readers)} column(s) downstream{extra} (DATA_UPDATE, {severity})"
        )
    else:
        change.verdict, change.reason = Verdict.SAFE, f"{what}; nothing downstream reads it"


def new_problems(old: list[Problem], new: list[Problem]) -> list[Problem]:
    """The problems of the new state that the old one did not have (same job, code and message)."""
    seen = {(p.job, p.code, p.message) for p in old}
    return [p for p in new if (p.job, p.code, p.message) not in seen]


def assess(
    report: DiffReport,
    conn: Connection,
    as_of: int | None,
    old: Snapshot,
    new: Snapshot,
    problems: Sequence[Problem] = (),
) -> DiffReport:
    """Fill each change's impact and verdict, and the report's verdict with its reasons."""
    broken_jobs = {p.job: p for p in problems if p.job}
    for change in report.columns:
        change.impact = impact_of(conn, change, as_of, old, new)
        judge(change)
        problem = broken_jobs.get(change.job)
        if problem is not None:
            change.verdict = Verdict.BREAKING
            change.reason = f"its statement no longer extracts ({problem.code}: {problem.message})"
    report.problems = list(problems)
    report.reasons = [f"{c.column}: {c.reason}" for c in report.columns if c.verdict is not Verdict.SAFE]
    for p in report.problems:
        where = ":".join(str(x) for x in (p.file, p.line) if x is not None)
        report.reasons.append(f"{where}: {p.message}" if where else p.message)
    verdicts = [c.verdict for c in report.columns] + [Verdict.BREAKING for _ in report.problems]
    report.verdict = strongest(verdicts)
    return report
