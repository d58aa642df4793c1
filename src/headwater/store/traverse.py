"""Breadth-first walks over the edge table, one set query per level, inside the database.

Each level is ``SELECT … FROM hw_edges WHERE dst_id IN (frontier)`` (upstream) or ``src_id IN
(frontier)`` (downstream), filtered by edge type, dependency and validity at ``as_of``. Python
keeps only the answer: the visited nodes with their depth, the first edge that reached each, and
the edges seen. Cycles stop at visited nodes; ``max_nodes`` caps the answer (``truncated``).

Depth counts only hops into non-process nodes (``up_cost``/``down_cost``), so dataset → job →
dataset is one level.

A walk that follows no dataset-level mapping fetches, instead, every edge it may take in one
statement (``reach_edges``: a ``WITH RECURSIVE`` over the same conditions, bounded by ``max_depth``)
and runs the same levels over them in memory: one round trip instead of one per level, and the same
answer (the statement returns a superset of the edges the level queries would).

A walk over MAPS_TO from fields also follows the dataset-level indirect mappings stored once per
source field (``indirect.py``): each level adds one set query for them, and they take part as
virtual MAPS_TO edges (negative ids), in the order the former cross-product rows had.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from sqlalchemy import BigInteger, ColumnElement, Connection, Integer, and_, any_, bindparam, literal_column, select
from sqlalchemy.dialects.postgresql import ARRAY

from headwater.store import indirect
from headwater.store.direct import rows as fetch_rows
from headwater.store.names import from_us
from headwater.store.results import EdgeInfo
from headwater.store.schema import OPEN, edges, nodes
from headwater.store.types import MAPS_TO_ALL, EdgeType, NodeType
from headwater.store.write import chunks

_E = edges.c
DEFAULT_MAX_NODES = 10_000
EDGE_COLUMNS = (  # the columns of an edge that queries return
    _E.id,
    _E.type,
    _E.src_id,
    _E.dst_id,
    _E.subtype,
    _E.dependency,
    _E.expression,
    _E.labels,
    _E.masking,
    _E.job_id,
    _E.valid_from,
    _E.valid_to,
)


@dataclass(slots=True)
class Walk:
    """The result of a walk. ``parent`` maps a node to the edge id that first reached it."""

    upstream: bool
    depth: dict[int, int] = field(default_factory=dict)
    parent: dict[int, int] = field(default_factory=dict)
    edges: dict[int, Any] = field(default_factory=dict)
    expanded: set[int] = field(default_factory=set)
    truncated: bool = False

    def far(self, row: Any) -> int:
        return row.src_id if self.upstream else row.dst_id

    def near(self, row: Any) -> int:
        return row.dst_id if self.upstream else row.src_id

    def leaves(self) -> list[int]:
        """Expanded nodes with no edge further out."""
        inner = {self.near(r) for r in self.edges.values()}
        return [n for n in self.depth if n in self.expanded and n not in inner]

    def path(self, node: int) -> list[Any]:
        """Edge rows from ``node`` back to a root, in the walk's direction reversed."""
        out = []
        while node in self.parent:
            row = self.edges[self.parent[node]]
            out.append(row)
            node = self.near(row)
        return out


def valid_at(as_of: int | None) -> ColumnElement[bool]:
    """Edges valid at ``as_of`` (µs), or still open when None."""
    if as_of is None:
        return _E.valid_to == OPEN
    return and_(_E.valid_from <= as_of, _E.valid_to > as_of)


def walk(
    conn: Connection,
    roots: Iterable[int],
    upstream: bool,
    types: Collection[str],
    as_of: int | None = None,
    max_depth: int | None = None,
    max_nodes: int = DEFAULT_MAX_NODES,
    dependency: str | None = None,
    from_fields: bool | None = None,
    where: ColumnElement[bool] | None = None,
    dataset_level: bool = True,
    hidden_jobs: Collection[int] = (),
) -> Walk:
    """Walk from ``roots`` along ``types`` edges, up or down, to ``max_depth`` (None: no limit).

    ``from_fields``: whether the roots are fields (None: look it up), i.e. whether the walk follows
    dataset-level mappings (MAPS_TO only connects fields); ``dataset_level=False`` never follows
    them. ``where`` further filters the stored edges (``levels.edge_filter``); edges owned by a job
    of ``hidden_jobs`` are not followed (``ageing.hidden_jobs``)."""
    w = Walk(upstream)
    roots = list(dict.fromkeys(roots))
    virtual = dataset_level and dependency != "DIRECT" and EdgeType.MAPS_TO.value in types
    if virtual and from_fields is not None:  # the caller knows whether it walks from fields
        virtual = from_fields
    elif virtual:
        virtual = _has_field(conn, roots)
    # downstream, the MAPS_TO_ALL rows out of the frontier come with the level's query
    queried = tuple(sorted(types)) + ((MAPS_TO_ALL,) if virtual and not upstream else ())
    array = conn.dialect.name == "postgresql"
    level_q, reach_q = _statements(upstream, queried, as_of is None, dependency, where, max_depth is None, array)
    bound: dict[str, Any] = {} if as_of is None else {"as_of": as_of}
    if max_depth is not None:
        bound["max_depth"] = max_depth
    hidden = frozenset(hidden_jobs)
    ahead: dict[int, list[Any]] | None = None
    if not virtual and len(roots) <= RECURSIVE_ROOTS:
        cap = max(RECURSIVE_MIN_ROWS, RECURSIVE_ROWS_PER_NODE * max_nodes)
        fetched = fetch_rows(conn, reach_q, {**bound, "roots": roots, "cap": cap + 1})
        if len(fetched) <= cap:  # else the walk is cut by max_nodes long before: level by level
            ahead = {}
            for row in fetched:
                ahead.setdefault(row.dst_id if upstream else row.src_id, []).append(row)

    def expand(frontier: list[int]) -> tuple[list[int], list[int]]:
        same: list[int] = []
        nxt: list[int] = []
        if max_depth is not None:
            frontier = [n for n in frontier if w.depth[n] < max_depth]
        rows: list[Any]
        if ahead is not None:
            rows = [row for n in frontier for row in ahead.get(n, ())]
        else:
            rows = [row for part in chunks(frontier) for row in fetch_rows(conn, level_q, {**bound, "frontier": part})]
        if virtual and upstream:
            rows.extend(indirect.into(conn, frontier, as_of))
        elif virtual:
            stored = [r for r in rows if r.type == MAPS_TO_ALL]
            if stored:
                rows = [r for r in rows if r.type != MAPS_TO_ALL]
                rows.extend(indirect.expand(conn, stored, as_of))
        if hidden:
            rows = [r for r in rows if r.job_id not in hidden]
        rows.sort(key=indirect.order)  # deterministic first-reached edges on every backend
        for row in rows:
            far = w.far(row)
            d = w.depth[w.near(row)] + row.cost
            if max_depth is not None and d > max_depth:
                continue
            if far not in w.depth:
                if len(w.depth) >= max_nodes:
                    w.truncated = True
                    continue
                w.depth[far] = d
                w.parent[far] = row.id
                (same if row.cost == 0 else nxt).append(far)
            w.edges[row.id] = row
        w.expanded.update(frontier)
        return same, nxt

    frontier = roots
    for r in frontier:
        w.depth[r] = 0
    while frontier and not w.truncated:
        same, nxt = expand(frontier)
        while same and not w.truncated:  # zero-cost hops (into jobs) stay on this level
            same, more = expand(same)
            nxt.extend(more)
        frontier = nxt
    return w


RECURSIVE_ROOTS = 500
"""Walks from at most this many roots fetch their edges in one recursive statement."""
RECURSIVE_ROWS_PER_NODE = 20
RECURSIVE_MIN_ROWS = 5_000
"""The recursive statement fetches at most ``max(RECURSIVE_MIN_ROWS, RECURSIVE_ROWS_PER_NODE *
max_nodes)`` edges: past that (a walk that ``max_nodes`` will cut, on a large store) the walk goes
level by level, stopping where the cap stops it, instead of reading everything reachable."""


@lru_cache(maxsize=128)
def _statements(
    upstream: bool,
    types: tuple[str, ...],
    now: bool,
    dependency: str | None,
    where: ColumnElement[bool] | None,
    unbounded: bool,
    array: bool = False,
) -> tuple[Any, Any]:
    """A walk's two statements (built, and their cache keys computed, once): the edges out of a
    frontier (``frontier``), and ``reach_edges``'s (``roots``); bound: ``as_of`` unless ``now``,
    ``max_depth`` unless ``unbounded``. With ``array`` (PostgreSQL) a list of ids is one array
    parameter (``= ANY``), so that the statement's text is the same whatever the list."""
    near_col = _E.dst_id if upstream else _E.src_id
    cost_col = _E.up_cost if upstream else _E.down_cost
    as_of = bindparam("as_of", type_=BigInteger)
    valid = _E.valid_to == OPEN if now else and_(_E.valid_from <= as_of, _E.valid_to > as_of)
    base = select(*EDGE_COLUMNS, cost_col.label("cost")).where(_E.type.in_(types), valid)
    if dependency:
        base = base.where(_E.dependency == dependency)
    if where is not None:
        base = base.where(where)
    level_q = base.where(_ids_in(near_col, "frontier", array))
    max_depth = None if unbounded else bindparam("max_depth", type_=Integer)
    return level_q, reach_edges(upstream, base, max_depth, array).limit(bindparam("cap", type_=Integer))


def _ids_in(col: Any, name: str, array: bool) -> ColumnElement[bool]:
    """``col IN (:name…)``, an expanding list; with ``array``, ``col = ANY(:name)``, one array."""
    if array:
        return col == any_(bindparam(name, type_=ARRAY(BigInteger)))  # type: ignore[no-any-return]
    return col.in_(bindparam(name, expanding=True))  # type: ignore[no-any-return]


def reach_edges(upstream: bool, base: Any, max_depth: Any, array: bool = False) -> Any:
    """The rows of ``base`` (edges with their ``cost``) out of every node a walk from the bound
    ``roots`` can expand: one ``WITH RECURSIVE`` statement. ``reach`` holds each node reachable over
    ``base``'s edges with every distance of at most ``max_depth`` (None: no bound; hence the
    distance the walk gives it, whatever edges it later leaves out), so the rows out of the nodes
    within the bound are a superset of those the walk's level queries would return."""
    near_col = _E.dst_id if upstream else _E.src_id
    far_col = _E.src_id if upstream else _E.dst_id
    cost_col = _E.up_cost if upstream else _E.down_cost
    conds = base.whereclause
    roots = _ids_in(near_col, "roots", array)
    if max_depth is None:
        reach = select(near_col.label("node")).where(roots, conds).cte("reach", recursive=True)
        step = select(far_col).join_from(reach, edges, near_col == reach.c.node).where(conds)
        reach = reach.union(step)
        inner = select(reach.c.node)
    else:
        zero = literal_column("0", Integer)
        seed = select(near_col.label("node"), zero.label("dist")).where(roots, conds)
        reach = seed.cte("reach", recursive=True)
        dist = reach.c.dist + cost_col
        step = (
            select(far_col, dist)
            .join_from(reach, edges, near_col == reach.c.node)
            .where(conds, reach.c.dist < max_depth, dist <= max_depth)
        )
        reach = reach.union(step)
        inner = select(reach.c.node).where(reach.c.dist < max_depth)
    return base.where(near_col.in_(inner))


def _has_field(conn: Connection, ids: list[int]) -> bool:
    for part in chunks(ids):
        q = select(nodes.c.id).where(nodes.c.id.in_(part), nodes.c.type == NodeType.FIELD.value).limit(1)
        if conn.execute(q).first() is not None:
            return True
    return False


def edge_info(row: Any) -> EdgeInfo:
    return EdgeInfo(
        id=row.id,
        type=row.type,
        source=row.src_id,
        target=row.dst_id,
        subtype=row.subtype,
        dependency=row.dependency,
        expression=row.expression,
        labels=tuple(row.labels.split(",")) if row.labels else (),
        masking=bool(row.masking),
        job_id=row.job_id,
        valid_from=from_us(row.valid_from),
        valid_to=None if row.valid_to == OPEN else from_us(row.valid_to),
    )
