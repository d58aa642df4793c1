"""Renames: a column whose every edge moved to a new name in the same statement.

Among the columns one table lost and those it gained, a lost column is renamed to a gained one
when the same job writes both and the gained column's edges are the lost one's (source,
dependency, transformation type, expression without qualifiers). A column without edges (a
constant) or with several candidates is no rename: it stays a drop plus an add.

>>> from headwater.diff.snapshot import ColumnEdge, Snapshot
>>> old, new = Snapshot(), Snapshot()
>>> old.edges["t.a"] = [ColumnEdge("t.a", "s.x", "DIRECT", "IDENTITY", "s.x", "j")]
>>> new.edges["t.b"] = [ColumnEdge("t.b", "s.x", "DIRECT", "IDENTITY", "x", "j")]
>>> old.writers, new.writers = {"t.a": ["j"]}, {"t.b": ["j"]}
>>> find_renames(old, new, ["t.a"], ["t.b"])
{'t.a': 't.b'}
"""

from __future__ import annotations

from collections.abc import Sequence

from headwater.diff.expressions import normalise
from headwater.diff.snapshot import Snapshot


def signature(snap: Snapshot, column: str) -> frozenset[tuple[str, str, str, str]]:
    """The edges into ``column`` without its name: (source, dependency, type, normalised expression)."""
    return frozenset((e.source, e.dependency, e.subtype, normalise(e.expression)) for e in snap.edges_into(column))


def find_renames(old: Snapshot, new: Snapshot, lost: Sequence[str], gained: Sequence[str]) -> dict[str, str]:
    """Lost column → the gained column it was renamed to (the columns of one table)."""
    candidates: dict[str, list[str]] = {}
    wanted: dict[str, list[str]] = {}
    for a in lost:
        sig = signature(old, a)
        if not sig:
            continue
        jobs = set(old.writers.get(a, ()))
        for b in gained:
            if jobs & set(new.writers.get(b, ())) and signature(new, b) == sig:
                candidates.setdefault(a, []).append(b)
                wanted.setdefault(b, []).append(a)
    return {a: bs[0] for a, bs in sorted(candidates.items()) if len(bs) == 1 and len(wanted[bs[0]]) == 1}
