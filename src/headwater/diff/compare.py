"""Two snapshots compared per written column: edges added, removed and changed; columns, tables and
jobs added or removed; renames (``renames.py``).

An edge is *changed* when the same source feeds the column in both states (DIRECT; or INDIRECT of
the same kind, a FILTER for a FILTER) with another transformation type or expression. A column
whose DIRECT edges changed is an ``EXPRESSION`` change (``RETYPED`` when the outer CAST gives
another type); one whose only changes are INDIRECT (a filter or a join) is an ``INDIRECT`` change.
A job with the same edges under another file is *moved*, not removed and added.

>>> from headwater.diff.snapshot import ColumnEdge, Snapshot
>>> old, new = Snapshot(), Snapshot()
>>> old.edges["m.t.rev"] = [ColumnEdge("m.t.rev", "s.o.paid", "DIRECT", "AGGREGATION", "SUM(o.paid)", "j")]
>>> new.edges["m.t.rev"] = [ColumnEdge("m.t.rev", "s.o.paid", "DIRECT", "AGGREGATION", "AVG(o.paid)", "j")]
>>> old.tables = new.tables = {"m.t": ("m.t.rev",)}
>>> [(c.column, c.kind.value, c.changed[0].new_expression) for c in compare(old, new).columns]
[('m.t.rev', 'expression', 'AVG(o.paid)')]
"""

from __future__ import annotations

from headwater.diff.changes import ColumnChange, ColumnKind, DiffReport, EdgeChange, JobChange, TableChange
from headwater.diff.expressions import cast_type, normalise
from headwater.diff.renames import find_renames
from headwater.diff.snapshot import ColumnEdge, Snapshot

_Key = tuple[str, str, str, str]


def _key(e: ColumnEdge) -> _Key:
    return (e.source, e.dependency, e.subtype, normalise(e.expression))


def _pairing(e: ColumnEdge) -> tuple[str, str, str]:
    """Edges of two states with the same pairing are one edge changed, not one removed and one added."""
    return (e.source, e.dependency, "" if e.dependency == "DIRECT" else e.subtype)


def _edge_changes(old: list[ColumnEdge], new: list[ColumnEdge]) -> tuple[list, list, list[EdgeChange]]:
    old_keys, new_keys = {_key(e): e for e in old}, {_key(e): e for e in new}
    gone = [old_keys[k] for k in sorted(set(old_keys) - set(new_keys))]
    came = [new_keys[k] for k in sorted(set(new_keys) - set(old_keys))]
    changed: list[EdgeChange] = []
    for o in list(gone):
        match = next((n for n in came if _pairing(n) == _pairing(o)), None)
        if match is not None:
            gone.remove(o)
            came.remove(match)
            changed.append(EdgeChange(o.source, o.dependency, o.subtype, match.subtype, o.expression, match.expression))
    return came, gone, changed


def _kind(added: list[ColumnEdge], removed: list[ColumnEdge], changed: list[EdgeChange]) -> ColumnKind:
    for c in changed:
        before, after = cast_type(c.old_expression), cast_type(c.new_expression)
        if before is not None and after is not None and before != after:
            return ColumnKind.RETYPED
    direct = [e for e in [*added, *removed] if e.dependency == "DIRECT"] + [
        c for c in changed if c.dependency == "DIRECT"
    ]
    return ColumnKind.EXPRESSION if direct else ColumnKind.INDIRECT


def _where(snap: Snapshot, column: str, later: Snapshot | None) -> tuple[str | None, str | None, int | None]:
    """The job writing ``column`` in ``snap``, and where its statement is (in ``later`` when that
    still has the job: a column removed is shown at the statement that no longer writes it)."""
    for name in snap.writers.get(column, ()):
        job = (later.jobs.get(name) if later else None) or snap.jobs.get(name)
        if job is not None:
            return name, job.file, job.line
    return None, None, None


def _change(
    snap: Snapshot, column: str, table: str, kind: ColumnKind, later: Snapshot | None = None, **kw: object
) -> ColumnChange:
    job, file, line = _where(snap, column, later)
    return ColumnChange(column, table, kind, job=job, file=file, line=line, **kw)  # type: ignore[arg-type]


def compare(old: Snapshot, new: Snapshot, old_label: str = "old", new_label: str = "new") -> DiffReport:
    """The changes from ``old`` to ``new`` (no impact yet: ``impact.assess`` adds it)."""
    report = DiffReport(old_label, new_label)
    for table in sorted(set(old.tables) | set(new.tables)):
        before, after = old.tables.get(table), new.tables.get(table)
        if before is None and after is not None:
            report.tables.append(TableChange(table, "added", after))
        elif after is None and before is not None:
            report.tables.append(TableChange(table, "removed", before))
        lost = sorted(set(before or ()) - set(after or ()))
        gained = sorted(set(after or ()) - set(before or ()))
        renamed = find_renames(old, new, lost, gained)
        for column in sorted(set(before or ()) | set(after or ())):
            if column in renamed:
                report.columns.append(
                    _change(
                        new,
                        renamed[column],
                        table,
                        ColumnKind.RENAMED,
                        renamed_to=renamed[column],
                        removed=old.edges_into(column),
                        added=new.edges_into(renamed[column]),
                    )
                )
                report.columns[-1].column = column
            elif column in renamed.values():
                continue
            elif column in lost:
                report.columns.append(
                    _change(old, column, table, ColumnKind.REMOVED, new, removed=old.edges_into(column))
                )
            elif column in gained:
                report.columns.append(_change(new, column, table, ColumnKind.ADDED, added=new.edges_into(column)))
            else:
                added, removed, changed = _edge_changes(old.edges_into(column), new.edges_into(column))
                if added or removed or changed:
                    kind = _kind(added, removed, changed)
                    report.columns.append(
                        _change(new, column, table, kind, added=added, removed=removed, changed=changed)
                    )
    report.jobs = compare_jobs(old, new)
    return report


def compare_jobs(old: Snapshot, new: Snapshot) -> list[JobChange]:
    """Jobs added, removed, changed (other edges) or moved (same edges, another file or name)."""
    out: list[JobChange] = []
    gone = sorted(set(old.jobs) - set(new.jobs))
    came = sorted(set(new.jobs) - set(old.jobs))
    for name in sorted(set(old.jobs) & set(new.jobs)):
        a, b = old.jobs[name], new.jobs[name]
        kind = "changed" if a.edges != b.edges else "moved" if a.file != b.file else None
        if kind:
            out.append(JobChange(name, kind, a.file, a.line, b.file, b.line))
    for name in list(gone):
        a = old.jobs[name]
        twin = next((n for n in came if a.edges and new.jobs[n].edges == a.edges), None)
        if twin is not None:
            b = new.jobs[twin]
            came.remove(twin)
            gone.remove(name)
            out.append(JobChange(twin, "moved", a.file, a.line, b.file, b.line, moved_from=name))
    out += [JobChange(n, "removed", old.jobs[n].file, old.jobs[n].line) for n in gone]
    out += [JobChange(n, "added", new_file=new.jobs[n].file, new_line=new.jobs[n].line) for n in came]
    return sorted(out, key=lambda j: (j.job, j.kind))
