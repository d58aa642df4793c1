"""The column-level edges touching some datasets' fields, as columns of ids: the explorer's index of
a view, from which the page walks a selected column's paths itself at a click.

It holds what a field walk (``traverse.walk`` over MAPS_TO) follows, as stored:

- ``edges``: the MAPS_TO edges valid at ``as_of`` with an end among the fields, each with its job
  and a ``kind`` saying which levels follow it (0 DIRECT: every level; 1 INDIRECT CONDITIONAL or
  WINDOW: ``field`` and ``all``; 2 any other INDIRECT: ``all``);
- ``all``: the dataset-level mappings (``MAPS_TO_ALL``, source field → target dataset, followed at
  ``all``) out of those fields or into those datasets, and ``written``: the witnesses of their
  jobs (job, dataset, column written), so that each stands for one virtual MAPS_TO per witnessed
  column of its target dataset, as ``indirect`` reads them (id ``indirect.virtual_id``);
- ``fields``: the dataset of every field named above (ids ascending, sent as differences; null
  for a field in none).

A walk from a field of ``datasets`` is exact while every field it expands belongs to one of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, and_, or_, select

from headwater.store.indirect import WITNESS_TYPES
from headwater.store.levels import FIELD_INDIRECT_SUBTYPES
from headwater.store.schema import OPEN, edges, nodes
from headwater.store.traverse import valid_at
from headwater.store.types import MAPS_TO_ALL, EdgeType
from headwater.store.write import chunks

_E = edges.c
_SRC = nodes.alias("s")
_DST = nodes.alias("d")
_FIELD_SUBTYPES = frozenset(FIELD_INDIRECT_SUBTYPES)


def kind(dependency: str | None, subtype: str | None) -> int:
    """Which levels follow a stored MAPS_TO edge: 0 every level, 1 field and all, 2 all only."""
    if dependency == "DIRECT":
        return 0
    return 1 if subtype in _FIELD_SUBTYPES else 2


def _deltas(values: list[int]) -> list[int]:
    return [v - (values[k - 1] if k else 0) for k, v in enumerate(values)]


def column_index(conn: Connection, datasets: Sequence[int], as_of: int | None, max_edges: int) -> dict[str, Any]:
    """The index of the fields of ``datasets`` at ``as_of`` (None: now); ``truncated`` when it
    would hold more than ``max_edges`` MAPS_TO edges (then it holds none)."""
    ids = sorted(set(datasets))
    parent: dict[int, int | None] = {}
    joined = edges.join(_SRC, _SRC.c.id == _E.src_id).join(_DST, _DST.c.id == _E.dst_id)
    cols = (_E.id, _E.src_id, _E.dst_id, _E.job_id, _E.dependency, _E.subtype, _SRC.c.parent_id, _DST.c.parent_id)
    stored = select(*cols).select_from(joined).where(_E.type == EdgeType.MAPS_TO.value, valid_at(as_of))
    rows: dict[int, tuple[int, int, int, int | None, int]] = {}
    # into the datasets' fields, then out of them to fields of other datasets (each edge once)
    elsewhere = or_(_DST.c.parent_id.is_(None), _DST.c.parent_id.not_in(ids))
    for side in (_DST.c.parent_id.in_, lambda part: and_(_SRC.c.parent_id.in_(part), elsewhere)):
        for part in chunks(ids):
            for e, s, d, job, dep, sub, ps, pd in conn.execute(stored.where(side(part))):
                rows[e] = (e, s, d, job, kind(dep, sub))
                parent[s] = ps
                parent[d] = pd
    truncated = len(rows) > max_edges
    total = len(rows)
    if truncated:
        rows = {}
    # the dataset-level mappings into the datasets and out of their fields
    acols = (_E.id, _E.src_id, _E.dst_id, _E.job_id, _SRC.c.parent_id)
    mapped = select(*acols).select_from(edges.join(_SRC, _SRC.c.id == _E.src_id))
    mapped = mapped.where(_E.type == MAPS_TO_ALL, valid_at(as_of), _E.job_id.is_not(None))
    alls: dict[int, tuple[int, int, int, int]] = {}
    for side in (_E.dst_id, _SRC.c.parent_id):
        for part in chunks(ids):
            for e, s, d, job, ps in conn.execute(mapped.where(side.in_(part))):
                alls[e] = (e, s, d, job)
                parent[s] = ps
    written = _witnesses(conn, {(job, d) for _, _, d, job in alls.values()}, as_of)
    for _, ds, f in written:
        parent[f] = ds
    edge_rows = sorted(rows.values())
    all_rows = sorted(alls.values())
    fields = sorted(parent)
    return {
        "datasets": ids,
        "fields": {"id": _deltas(fields), "dataset": [parent[f] for f in fields]},
        "edges": dict(zip(("id", "source", "target", "job", "kind"), _columns(edge_rows, 5), strict=True)),
        "all": dict(zip(("id", "source", "dataset", "job"), _columns(all_rows, 4), strict=True)),
        "written": dict(zip(("job", "dataset", "field"), _columns(sorted(written), 3), strict=True)),
        "total_edges": total,
        "truncated": truncated,
    }


def _columns(rows: list[tuple[Any, ...]], n: int) -> list[list[Any]]:
    return [list(c) for c in zip(*rows, strict=True)] if rows else [[] for _ in range(n)]


def _witnesses(conn: Connection, pairs: set[tuple[int, int]], as_of: int | None) -> set[tuple[int, int, int]]:
    """(job, dataset, column) of the witnesses (``indirect.WITNESS_TYPES``) valid at ``as_of`` of
    each (job, dataset) in ``pairs``: the columns the job wrote there."""
    if not pairs:
        return set()
    w = edges.alias("w")
    q = (
        select(w.c.job_id, _DST.c.parent_id, w.c.dst_id)
        .distinct()
        .select_from(w.join(_DST, _DST.c.id == w.c.dst_id))
        .where(w.c.type.in_(WITNESS_TYPES), _valid(w, as_of))
    )
    out: set[tuple[int, int, int]] = set()
    for part in chunks(sorted({job for job, _ in pairs})):
        for job, ds, f in conn.execute(q.where(w.c.job_id.in_(part))):
            if (job, ds) in pairs:
                out.add((job, ds, f))
    return out


def _valid(t: Any, as_of: int | None) -> Any:
    if as_of is None:
        return t.c.valid_to == OPEN
    return (t.c.valid_from <= as_of) & (t.c.valid_to > as_of)
