"""What a destructive change breaks: the statements that read a changed column, whatever the role.

Dropping, renaming or retyping a column (or deleting it with its table) makes every statement that
reads it fail — in its select list, WHERE, ON, GROUP BY, ORDER BY, a window or a CASE alike: each
such read is a MAPS_TO edge (DIRECT, or INDIRECT with its subtype; dataset-level ones stored once
per source field) out of the changed field. A failed statement no longer writes its target, so
the target's every column and everything downstream of it go stale. ``analyze_impact`` raises all
of them to at least HIGH (``impact.py``; the rules with examples are in ``docs/store.md``).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection

from headwater.store.resolve import children, fetch_nodes
from headwater.store.traverse import Walk, walk
from headwater.store.types import FLOW_EDGE_TYPES, EdgeType, NodeType

MAPS_TO = (EdgeType.MAPS_TO.value,)


@dataclass(slots=True)
class Broken:
    """The statements (jobs) that read a changed field, their targets, and what lies downstream."""

    jobs: set[int] = field(default_factory=set)
    targets: set[int] = field(default_factory=set)
    fields: set[int] = field(default_factory=set)
    """Every column of the targets and every field computed from one, at any level."""
    edges: list[Any] = field(default_factory=list)
    """The MAPS_TO edges into those fields (their jobs write stale data)."""
    table_level: set[int] = field(default_factory=set)
    """Datasets, jobs and entities downstream of the targets by table-level lineage."""
    truncated: bool = False


def broken_by(conn: Connection, changed: Walk, roots: Collection[int], as_of: int | None, max_nodes: int) -> Broken:
    """What breaks when the ``roots`` fields are dropped, renamed or retyped; ``changed`` is the
    downstream MAPS_TO walk from them (every level)."""
    out = Broken()
    root_set = set(roots)
    first = [r for r in changed.edges.values() if r.src_id in root_set]
    out.jobs = {r.job_id for r in first if r.job_id is not None}
    reached = {r.dst_id for r in first}
    out.targets = {i.parent_id for i in fetch_nodes(conn, reached).values() if i.parent_id is not None}
    if not out.targets:
        return out
    start = sorted({f.id for t in out.targets for f in children(conn, t, NodeType.FIELD)})
    fw = walk(conn, start, False, MAPS_TO, as_of, None, max_nodes, from_fields=True)
    out.fields = set(fw.depth)
    out.edges = list(fw.edges.values())
    tw = walk(conn, sorted(out.targets), False, FLOW_EDGE_TYPES, as_of, None, max_nodes, from_fields=False)
    out.table_level = set(tw.depth) | out.targets | out.jobs
    out.truncated = fw.truncated or tw.truncated
    return out
