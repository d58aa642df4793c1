"""Dataset-level indirect mappings, stored once and read as one MAPS_TO per target column.

A statement's JOIN / FILTER / GROUP_BY / SORT affects every column it writes. Such a mapping is
stored as one ``MAPS_TO_ALL`` edge (source field → target dataset, owned by the job, with subtype,
dependency INDIRECT and expression) instead of one MAPS_TO per target column. It applies to a column
``F`` of that dataset at time ``T`` when, at ``T``, the same job also has a *witness* into ``F``: a
column-level MAPS_TO edge, or a ``WRITES_FIELD`` edge (recorded for written columns that no
column-level mapping reaches). That is exactly the set of columns the job's recording valid at ``T``
wrote, so every query answers as if the cross product had been stored.

The functions here return those *virtual* MAPS_TO edges (``VEdge``) so that walks, counts and the
explorer treat them like stored ones. A virtual edge's id is negative and encodes the stored edge
and the target column (``virtual_id``); its validity is the stored edge's intersected with its
witness's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from sqlalchemy import ColumnElement, Connection, and_, func, select

from headwater.store.schema import OPEN, edges, nodes
from headwater.store.types import MAPS_TO_ALL, WRITES_FIELD, EdgeType
from headwater.store.write import chunks

_SHIFT = 31
_MASK = (1 << _SHIFT) - 1
WITNESS_TYPES = (EdgeType.MAPS_TO.value, WRITES_FIELD)
_MAPS_TO = EdgeType.MAPS_TO.value


class VEdge(NamedTuple):
    """A virtual MAPS_TO edge, with the attributes of an edge row."""

    id: int
    type: str
    src_id: int
    dst_id: int
    subtype: str | None
    dependency: str | None
    expression: str | None
    labels: str | None
    masking: bool
    job_id: int | None
    valid_from: int
    valid_to: int
    cost: int
    event_pk: int | None


def virtual_id(stored: int, field: int) -> int:
    """The id of the virtual edge from a stored MAPS_TO_ALL edge to one column: negative, unique."""
    return -((stored << _SHIFT) | field)


def split_id(edge_id: int) -> tuple[int, int]:
    """(stored MAPS_TO_ALL edge id, target column id) of a virtual edge id."""
    n = -edge_id
    return n >> _SHIFT, n & _MASK


def order(row: Any) -> tuple[int, int]:
    """Sort key putting a virtual edge where its row of the former cross product would have been:
    after the stored edges recorded before its MAPS_TO_ALL edge, by target column."""
    i = row.id
    return (i, 0) if i > 0 else split_id(i)


def _valid(t: Any, as_of: int | None) -> ColumnElement[bool]:
    if as_of is None:
        return t.c.valid_to == OPEN
    return and_(t.c.valid_from <= as_of, t.c.valid_to > as_of)


_C = edges.alias("c")
_W = edges.alias("w")
_N = nodes.alias("n")


def _vedge(c: Any, field: int, w_from: int, w_to: int) -> VEdge:
    return VEdge(
        virtual_id(c.id, field),
        _MAPS_TO,
        c.src_id,
        field,
        c.subtype,
        c.dependency,
        c.expression,
        c.labels,
        bool(c.masking),
        c.job_id,
        max(c.valid_from, w_from),
        min(c.valid_to, w_to),
        1,
        getattr(c, "event_pk", None),
    )


_STORED = (
    edges.c.id,
    edges.c.src_id,
    edges.c.dst_id,
    edges.c.subtype,
    edges.c.dependency,
    edges.c.expression,
    edges.c.labels,
    edges.c.masking,
    edges.c.job_id,
    edges.c.valid_from,
    edges.c.valid_to,
    edges.c.event_pk,
)


def _witnesses(
    conn: Connection, where: ColumnElement[bool], values: Sequence[int], column: Any, as_of: int | None
) -> dict[tuple[int, int], dict[int, tuple[int, int]]]:
    """(job, dataset) → {written column: (valid_from, valid_to)} of the witnesses matching ``where``
    with ``column`` in ``values`` (several witnesses of one column: their union, all being valid at
    ``as_of``)."""
    q = (
        select(_W.c.job_id, _N.c.parent_id, _W.c.dst_id, _W.c.valid_from, _W.c.valid_to)
        .select_from(_W.join(_N, _N.c.id == _W.c.dst_id))
        .where(_W.c.type.in_(WITNESS_TYPES), _W.c.job_id.is_not(None), _valid(_W, as_of), where)
    )
    out: dict[tuple[int, int], dict[int, tuple[int, int]]] = {}
    for part in chunks(sorted(set(values))):
        for job, ds, f, start, end in conn.execute(q.where(column.in_(part))):
            per = out.setdefault((job, ds), {})
            prev = per.get(f)
            per[f] = (start, end) if prev is None else (min(start, prev[0]), max(end, prev[1]))
    return out


def into(conn: Connection, fields: Sequence[int], as_of: int | None = None) -> list[VEdge]:
    """Virtual edges whose target is one of ``fields`` (the dataset-level mappings that apply to them).

    Two indexed set queries: the witnesses into ``fields`` (with their datasets), then the
    MAPS_TO_ALL edges of those jobs into those datasets."""
    if not fields:
        return []
    written = _witnesses(conn, _W.c.dst_id.is_not(None), fields, _W.c.dst_id, as_of)
    if not written:
        return []
    datasets = sorted({ds for _, ds in written})
    q = select(*_STORED).where(edges.c.type == MAPS_TO_ALL, _valid(edges, as_of))
    out = []
    for part in chunks(datasets):
        for c in conn.execute(q.where(edges.c.dst_id.in_(part))):
            for f, (start, end) in written.get((c.job_id, c.dst_id), {}).items():
                out.append(_vedge(c, f, start, end))
    return out


def out_of(conn: Connection, fields: Sequence[int], as_of: int | None = None) -> list[VEdge]:
    """Virtual edges whose source is one of ``fields``, expanded to every column they apply to.

    Two indexed set queries: the MAPS_TO_ALL edges out of ``fields``, then their jobs' witnesses."""
    if not fields:
        return []
    q = select(*_STORED).where(edges.c.type == MAPS_TO_ALL, _valid(edges, as_of))
    stored = [c for part in chunks(list(fields)) for c in conn.execute(q.where(edges.c.src_id.in_(part)))]
    return expand(conn, stored, as_of)


def expand(conn: Connection, stored: Sequence[Any], as_of: int | None = None) -> list[VEdge]:
    """The virtual edges of some stored MAPS_TO_ALL rows valid at ``as_of`` (one query: their jobs'
    witnesses)."""
    if not stored:
        return []
    written = _witnesses(conn, _W.c.job_id.is_not(None), [c.job_id for c in stored], _W.c.job_id, as_of)
    out = []
    for c in stored:
        for f, (start, end) in written.get((c.job_id, c.dst_id), {}).items():
            out.append(_vedge(c, f, start, end))
    return out


def touching(conn: Connection, fields: Sequence[int], as_of: int | None = None) -> list[VEdge]:
    """Virtual edges with an end among ``fields``."""
    found = {e.id: e for e in into(conn, fields, as_of)}
    found.update((e.id, e) for e in out_of(conn, fields, as_of))
    return sorted(found.values(), key=order)


def fetch(conn: Connection, edge_id: int) -> VEdge | None:
    """The virtual edge with this (negative) id, whatever its validity; None if there is none."""
    stored, field = split_id(edge_id)
    c = conn.execute(select(*_STORED).where(edges.c.id == stored, edges.c.type == MAPS_TO_ALL)).first()
    if c is None:
        return None
    q = (
        select(func.min(_W.c.valid_from), func.max(_W.c.valid_to))
        .select_from(_W.join(_N, _N.c.id == _W.c.dst_id))
        .where(_W.c.type.in_(WITNESS_TYPES), _W.c.job_id == c.job_id, _W.c.dst_id == field, _N.c.parent_id == c.dst_id)
    )
    start, end = conn.execute(q).one()
    return None if start is None else _vedge(c, field, start, end)


def count(conn: Connection, as_of: int | None = None, jobs: Sequence[int] | None = None) -> int:
    """How many virtual edges are valid at ``as_of`` (open when None), of ``jobs`` (None: all): for
    every (job, dataset), its MAPS_TO_ALL edges times the distinct columns it has a witness into."""
    if jobs is not None:
        return sum(count_jobs(conn, part, as_of) for part in chunks(sorted(set(jobs))))
    return count_jobs(conn, None, as_of)


def count_jobs(conn: Connection, jobs: Sequence[int] | None, as_of: int | None) -> int:
    cq = select(_C.c.job_id, _C.c.dst_id.label("ds"), func.count().label("n")).where(
        _C.c.type == MAPS_TO_ALL, _valid(_C, as_of)
    )
    owners = select(_C.c.job_id).where(_C.c.type == MAPS_TO_ALL, _valid(_C, as_of))
    if jobs is not None:
        if not jobs:
            return 0
        cq = cq.where(_C.c.job_id.in_(jobs))
        owners = owners.where(_C.c.job_id.in_(jobs))
    c = cq.group_by(_C.c.job_id, _C.c.dst_id).subquery("cc")
    f = (
        select(_W.c.job_id, _N.c.parent_id.label("ds"), func.count(func.distinct(_W.c.dst_id)).label("n"))
        .select_from(_W.join(_N, _N.c.id == _W.c.dst_id))
        .where(_W.c.type.in_(WITNESS_TYPES), _valid(_W, as_of), _W.c.job_id.in_(owners))
        .group_by(_W.c.job_id, _N.c.parent_id)
        .subquery("ff")
    )
    q = select(func.coalesce(func.sum(c.c.n * f.c.n), 0)).select_from(
        c.join(f, and_(f.c.job_id == c.c.job_id, f.c.ds == c.c.ds))
    )
    return int(conn.execute(q).scalar_one())
