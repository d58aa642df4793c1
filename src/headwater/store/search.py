"""Read queries for the explorer: search by name, a node's children, a dataset's column edges,
a field's whole upstream and downstream subgraph, and the statement behind an edge or a job.

Everything runs as set queries in the database (no graph is loaded into Python) and every answer
is capped, with a flag saying when a cap was hit.

>>> from headwater.store import open_store
>>> from headwater.dispatch.sample import tiny_event
>>> store = open_store("sqlite://")
>>> _ = store.record(tiny_event("q1"))
>>> with store.engine.connect() as conn:
...     hits = search_nodes(conn, "s.a")
...     [(h.node.type, h.node.short, h.match) for h in hits.hits]
[('FIELD', 's.a', 'exact')]
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, case, func, or_, select

from headwater.model.ol_restore import headwater_facet
from headwater.store.aliases import present as aliases_present
from headwater.store.errors import InvalidInput, NodeNotFound, StoreError
from headwater.store.fields import field_walk
from headwater.store.levels import Level, parse_level
from headwater.store.names import from_us
from headwater.store.resolve import fetch_nodes, resolve
from headwater.store.results import EdgeInfo, NodeInfo
from headwater.store.schema import aliases, edges, event_document, events, nodes
from headwater.store.traverse import EDGE_COLUMNS, edge_info, valid_at
from headwater.store.types import MAPS_TO_ALL, WRITES_FIELD, EdgeType, NodeType
from headwater.store.write import chunks

_N = nodes.c
_A = aliases.c
_E = edges.c
_EV = events.c
MAPS_TO = (EdgeType.MAPS_TO.value,)
_TYPE_ORDER = [t.value for t in NodeType]
_SHOWN_EDGE_TYPES = tuple(t.value for t in EdgeType)
_DATASET_FLOW = tuple(t.value for t in EdgeType if t not in (EdgeType.CONTAINS, EdgeType.MAPS_TO))
MATCHES = ("exact", "prefix", "part", "substring")
"""How a search hit matched, best first: the whole short name or full name; the start of the short
name; the start of a dotted part of the full name (a column, a database); anywhere. (``browse`` for
an empty query.)"""


# ---------------------------------------------------------------------------- virtual edges
#
# A store that keeps a statement's dataset-level JOIN / FILTER / GROUP_BY / SORT mapping once per
# source field (``headwater.store.indirect``) answers with *virtual* MAPS_TO edges for it: one per
# target column, with a negative id. The explorer shows them like stored edges.


def _indirect() -> Any:
    try:
        from headwater.store import indirect
    except ImportError:  # a store version that writes every such edge per column
        return None
    return indirect


def _virtual_touching(conn: Connection, fields: Sequence[int], as_of: int | None) -> list[Any]:
    mod = _indirect()
    return list(mod.touching(conn, fields, as_of)) if mod else []


def _virtual_edge(conn: Connection, edge_id: int) -> Any:
    mod = _indirect()
    return mod.fetch(conn, edge_id) if mod else None


def _edge_order(row: Any) -> Any:
    """Stored edges by id; a virtual one where the stored edges it stands for would be."""
    mod = _indirect()
    return mod.order(row) if mod else (row.id, 0)


# ---------------------------------------------------------------------------- search


class EdgeNotFound(StoreError):
    def __init__(self, edge_id: int) -> None:
        super().__init__(f"no edge #{edge_id}")


@dataclass(frozen=True, slots=True)
class SearchHit:
    node: NodeInfo
    match: str
    parent: NodeInfo | None = None
    alias: str | None = None
    """The node's other name that matched (``aliases.py``), when its own names did not match as well."""


@dataclass(frozen=True, slots=True)
class SearchResult:
    query: str
    hits: list[SearchHit]
    truncated: bool


def _like_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def search_nodes(
    conn: Connection,
    query: str,
    types: Collection[str] | None = None,
    limit: int = 20,
) -> SearchResult:
    """Nodes whose short or full name contains ``query`` (case-insensitive, quotes ignored), best
    matches first (``MATCHES``), then datasets before fields before jobs, shorter names first. An
    empty query lists nodes by type and name (browsing).

    ``truncated`` says more nodes matched than ``limit``.
    """
    q = query.strip().strip("`\"'").lower()
    if limit < 1:
        raise InvalidInput("limit", "must be at least 1")
    if len(q) > _N.name.type.length:  # in no name: and never a LIKE pattern past SQLite's bound
        return SearchResult(query, [], False)
    e = _like_escape(q)
    rank = _rank(_N, q, e)
    type_rank = case(*((_N.type == t, k) for k, t in enumerate(_TYPE_ORDER)), else_=len(_TYPE_ORDER))
    stmt = select(_N.id, rank)
    if q:
        stmt = stmt.where(or_(_N.short.like(f"%{e}%", escape="\\"), _N.name.like(f"%{e}%", escape="\\")))
    if types:
        stmt = stmt.where(_N.type.in_(sorted(types)))
    order = (rank, type_rank, func.length(_N.short), _N.name) if q else (type_rank, _N.short, _N.name)
    stmt = stmt.order_by(*order).limit(limit + 1)
    rows = conn.execute(stmt).all()
    truncated = len(rows) > limit
    best: dict[int, tuple[int, str | None]] = {r.id: (r.rank, None) for r in rows[:limit]}
    aliased = False
    if q and (not types or NodeType.DATASET in types) and aliases_present(conn):
        for node_id, name, arank in _alias_hits(q, e, limit, conn):
            if node_id not in best or arank < best[node_id][0]:
                aliased = True
                best[node_id] = (arank, name)
    infos = fetch_nodes(conn, best)
    if types:
        best = {i: b for i, b in best.items() if i in infos and infos[i].type in types}
    type_of = {t: k for k, t in enumerate(_TYPE_ORDER)}
    order = [i for i in best if i in infos]  # the database's order, unless an alias matched
    if aliased:
        order = sorted(
            order,
            key=lambda i: (
                best[i][0],
                type_of.get(infos[i].type, len(_TYPE_ORDER)),
                len(infos[i].short),
                infos[i].name,
            ),
        )
    truncated = truncated or len(order) > limit
    order = order[:limit]
    parents = fetch_nodes(conn, [p for i in order if (p := infos[i].parent_id) is not None])
    hits = [
        SearchHit(infos[i], MATCHES[best[i][0]] if q else "browse", parents.get(infos[i].parent_id or -1), best[i][1])
        for i in order
    ]
    return SearchResult(query, hits, truncated)


def _rank(table: Any, q: str, e: str) -> Any:
    """0 for a name or short name equal to ``q``, 1 for a short name starting with it, 2 for a dotted
    part starting with it, else 3 (``e``: ``q`` escaped for LIKE); ``table`` has ``name`` and ``short``."""
    return case(
        (or_(table.short == q, table.name == q), 0),
        (table.short.like(f"{e}%", escape="\\"), 1),
        (table.name.like(f"%.{e}%", escape="\\"), 2),
        else_=3,
    ).label("rank")


def _alias_hits(q: str, e: str, limit: int, conn: Connection) -> list[tuple[int, str, int]]:
    """(node id, alias, rank) of the other names (``hw_aliases``) that contain ``q``, ranked as names are."""
    rank = _rank(_A, q, e)
    stmt = (
        select(_A.node_id, _A.name, rank)
        .where(or_(_A.short.like(f"%{e}%", escape="\\"), _A.name.like(f"%{e}%", escape="\\")))
        .order_by(rank, func.length(_A.short), _A.name)
        .limit(limit + 1)
    )
    return [(r.node_id, r.name, r.rank) for r in conn.execute(stmt)]


# ---------------------------------------------------------------------------- children, columns


@dataclass(frozen=True, slots=True)
class Children:
    node: NodeInfo
    children: list[NodeInfo]
    total: int
    truncated: bool


def node_children(
    conn: Connection,
    node: str | int,
    types: Collection[str] | None = None,
    as_of: int | None = None,
    limit: int = 1000,
) -> Children:
    """What ``node`` CONTAINS at ``as_of``: a system's datasets by name, a dataset's fields in the
    table's order (see ``table_order``)."""
    root = resolve(conn, node)
    stmt = (
        select(_N.id)
        .select_from(edges.join(nodes, _N.id == _E.dst_id))
        .where(_E.src_id == root.id, _E.type == EdgeType.CONTAINS.value, valid_at(as_of))
    )
    if types:
        stmt = stmt.where(_N.type.in_(sorted(types)))
    ids = list(dict.fromkeys(conn.execute(stmt.order_by(_N.name)).scalars()))
    infos = fetch_nodes(conn, ids[:limit])
    fields = [n for n in infos.values() if n.type == NodeType.FIELD]
    others = sorted((n for n in infos.values() if n.type != NodeType.FIELD), key=lambda n: n.name)
    kids = table_order(fields, _written(conn, [f.id for f in fields], as_of)) + others
    return Children(root, kids, len(ids), len(ids) > limit)


def table_order(fields: Sequence[NodeInfo], written: Collection[int]) -> list[NodeInfo]:
    """A dataset's fields in the table's order where the store knows it: a table that statements
    write has its fields made in the order of its columns (the first event's target columns), so
    their ids are that order; a table only read is known by the columns statements happened to
    read, in no order of its own: by name."""
    if any(f.id in written for f in fields):
        return sorted(fields, key=lambda n: n.id)
    return sorted(fields, key=lambda n: n.name)


def _written(conn: Connection, fields: Sequence[int], as_of: int | None) -> set[int]:
    """The fields among ``fields`` that some mapping writes at ``as_of``."""
    out: set[int] = set()
    for part in chunks(sorted(fields)):
        stmt = select(_E.dst_id).where(
            _E.dst_id.in_(part), _E.type.in_((EdgeType.MAPS_TO.value, WRITES_FIELD)), valid_at(as_of)
        )
        out.update(conn.execute(stmt.distinct()).scalars())
    return out


@dataclass(frozen=True, slots=True)
class DatasetColumns:
    dataset: NodeInfo
    fields: list[NodeInfo]


@dataclass(frozen=True, slots=True)
class ColumnEdges:
    """Fields of some datasets and the MAPS_TO edges touching them; ``peers`` are the other ends."""

    datasets: list[DatasetColumns]
    edges: list[EdgeInfo]
    peers: list[NodeInfo]
    total_edges: int
    truncated: bool


def dataset_columns(
    conn: Connection,
    datasets: Sequence[int],
    as_of: int | None = None,
    max_edges: int = 5000,
) -> ColumnEdges:
    """For each dataset id: its fields at ``as_of``; and every MAPS_TO edge valid at ``as_of`` with an
    end among those fields (at most ``max_edges``, lowest ids first; ``truncated`` says so)."""
    roots = fetch_nodes(conn, datasets)
    missing = [d for d in datasets if d not in roots]
    if missing:
        raise NodeNotFound(f"#{missing[0]}")
    members: dict[int, list[int]] = {d: [] for d in roots}
    for part in chunks(sorted(roots)):
        stmt = select(_E.src_id, _E.dst_id).where(
            _E.src_id.in_(part), _E.type == EdgeType.CONTAINS.value, valid_at(as_of)
        )
        for src, dst in conn.execute(stmt):
            members[src].append(dst)
    field_infos = fetch_nodes(conn, [f for fs in members.values() for f in fs])
    field_ids = sorted(i for i, n in field_infos.items() if n.type == NodeType.FIELD)
    found: dict[int, Any] = {}
    for part in chunks(field_ids):
        for near in (_E.src_id, _E.dst_id):
            stmt = select(*EDGE_COLUMNS).where(near.in_(part), _E.type == EdgeType.MAPS_TO.value, valid_at(as_of))
            for row in conn.execute(stmt):
                found[row.id] = row
    for row in _virtual_touching(conn, field_ids, as_of):
        found[row.id] = row
    ordered = sorted(found.values(), key=_edge_order)
    kept = ordered[:max_edges]
    own = set(field_ids)
    peer_ids = {r.src_id for r in kept if r.src_id not in own} | {r.dst_id for r in kept if r.dst_id not in own}
    peers = sorted(fetch_nodes(conn, peer_ids).values(), key=lambda n: n.name)
    written = _written(conn, field_ids, as_of)
    cols = [
        DatasetColumns(
            roots[d],
            table_order(
                [field_infos[f] for f in members[d] if f in field_infos and field_infos[f].type == "FIELD"], written
            ),
        )
        for d in datasets
        if d in roots
    ]
    return ColumnEdges(cols, [edge_info(r) for r in kept], peers, len(ordered), len(ordered) > max_edges)


# ---------------------------------------------------------------------------- field paths


@dataclass(frozen=True, slots=True)
class Subgraph:
    nodes: list[NodeInfo]
    edges: list[EdgeInfo]
    truncated: bool


@dataclass(frozen=True, slots=True)
class FieldPaths:
    """Every field upstream (origin side) and downstream (impact side) of ``field``, with every
    MAPS_TO edge between them, and the datasets that hold those fields."""

    field: NodeInfo
    include_indirect: bool
    upstream: Subgraph
    downstream: Subgraph
    datasets: list[NodeInfo] = field(default_factory=list)
    level: str = "all"


def field_paths(
    conn: Connection,
    node: str | int,
    include_indirect: bool = True,
    as_of: int | None = None,
    max_depth: int | None = None,
    max_nodes: int = 2000,
    level: str | None = None,
    hidden_jobs: Collection[int] = (),
) -> FieldPaths:
    """The field's origin subgraph and impact subgraph (all paths, not only one per end field).

    ``level`` (``levels``) says which mappings are followed, both ways; without one,
    ``include_indirect`` picks ``all`` (True) or ``direct`` (False). The mappings of ``hidden_jobs``
    (``jobs.hidden_jobs``: ``seen_since``) are left out.
    """
    lvl = parse_level(level, include_indirect)
    root = resolve(conn, node, types=(NodeType.FIELD,))
    sides = []
    all_ids: set[int] = set()
    for upstream in (True, False):
        w = field_walk(conn, root.id, upstream, lvl, as_of, max_depth, max_nodes, hidden_jobs)
        cut = w.truncated
        if max_depth is not None and not cut and any(d == max_depth for d in w.depth.values()):
            # no silent cut: one level more tells whether max_depth left fields out
            deeper = field_walk(conn, root.id, upstream, lvl, as_of, max_depth + 1, max_nodes, hidden_jobs)
            cut = len(deeper.depth) > len(w.depth)
        depth = {n: (-d if upstream else d) for n, d in w.depth.items() if n != root.id}
        # An edge belongs to the path when both its ends were reached (a capped walk may see edges
        # to nodes it did not keep).
        kept = [r for r in w.edges.values() if r.src_id in w.depth and r.dst_id in w.depth]
        infos = fetch_nodes(conn, depth, depth)
        sides.append(
            Subgraph(
                sorted(infos.values(), key=lambda n: (abs(n.depth or 0), n.name)),
                [edge_info(r) for r in sorted(kept, key=lambda r: r.id)],
                cut,
            )
        )
        all_ids.update(depth)
    parents = {n.parent_id for s in sides for n in s.nodes if n.parent_id is not None}
    if root.parent_id is not None:
        parents.add(root.parent_id)
    datasets = sorted(fetch_nodes(conn, parents).values(), key=lambda n: n.name)
    return FieldPaths(root, lvl == Level.ALL, sides[0], sides[1], datasets, lvl.value)


# ---------------------------------------------------------------------------- statements


@dataclass(frozen=True, slots=True)
class Statement:
    """One recorded event as the explorer shows it: the SQL (when the producer sent any) and the
    query context (who ran it, where, when)."""

    event_id: str
    kind: str
    event_time: Any
    recorded_time: Any
    status: str | None
    sql: str | None
    context: dict[str, Any]
    deleted: bool = False


@dataclass(frozen=True, slots=True)
class EdgeDetail:
    edge: EdgeInfo
    source: NodeInfo
    target: NodeInfo
    job: NodeInfo | None
    statement: Statement | None


@dataclass(frozen=True, slots=True)
class JobDetail:
    job: NodeInfo
    statements: list[Statement]
    total_statements: int
    inputs: list[NodeInfo]
    outputs: list[NodeInfo]
    columns_read: int = 0
    columns_written: int = 0


def _statement(row: Any) -> Statement:
    """Pull the SQL and the context out of an event payload of any producer format."""
    try:
        document = event_document(row.payload, row.payload_zlib)
        payload = json.loads(document) if document else {}
    except ValueError:
        payload = {}
    sql: str | None = None
    context: dict[str, Any] = {}
    facet = headwater_facet(payload) if row.kind == "openlineage" and isinstance(payload, dict) else None
    if facet is not None:  # a RunEvent headwater produced: the headwater event it carries
        payload = dict(facet["event"])
    if row.kind == "headwater" or facet is not None:
        context = dict(payload.get("context") or {})
        sql = context.pop("sql", None)
        for key in ("source_command", "status"):
            if key in payload:
                context.setdefault(f"event.{key}", payload[key])
        diagnostics = payload.get("diagnostics") or []
        if diagnostics:
            context["event.diagnostics"] = diagnostics
    elif row.kind == "openlineage":
        job = payload.get("job") or {}
        facets = job.get("facets") or {}
        sql = ((facets.get("sql") or {}).get("query")) or None
        context = {
            "eventType": payload.get("eventType"),
            "eventTime": payload.get("eventTime"),
            "runId": (payload.get("run") or {}).get("runId"),
            "job": f"{job.get('namespace')}/{job.get('name')}",
            "producer": payload.get("producer"),
        }
    else:
        context = dict(payload.get("context") or {})
        meta = payload.get("metadata") or {}
        sql = meta.get("sql") or None
        if meta:
            context["metadata"] = meta
    return Statement(
        event_id=row.event_id,
        kind=row.kind,
        event_time=from_us(row.event_us),
        recorded_time=from_us(row.recorded_us),
        status=row.status,
        sql=sql,
        context={k: v for k, v in context.items() if v not in (None, "", {}, [])},
        deleted=row.deleted_us is not None,
    )


_EVENT_COLS = (
    _EV.id,
    _EV.event_id,
    _EV.kind,
    _EV.event_us,
    _EV.recorded_us,
    _EV.status,
    _EV.payload,
    _EV.payload_zlib,
    _EV.deleted_us,
)


def edge_detail(conn: Connection, edge_id: int) -> EdgeDetail:
    """An edge with its two ends, the job (statement or pipeline) that asserted it and the recorded
    event that made it."""
    if edge_id < 0:
        row = _virtual_edge(conn, edge_id)
    else:
        row = conn.execute(
            select(*EDGE_COLUMNS, _E.event_pk).where(_E.id == edge_id, _E.type.in_(_SHOWN_EDGE_TYPES))
        ).first()
    if row is None:
        raise EdgeNotFound(edge_id)
    infos = fetch_nodes(conn, [i for i in (row.src_id, row.dst_id, row.job_id) if i is not None])
    statement = None
    if row.event_pk is not None:
        ev = conn.execute(select(*_EVENT_COLS).where(_EV.id == row.event_pk)).first()
        statement = _statement(ev) if ev is not None else None
    return EdgeDetail(
        edge_info(row),
        infos[row.src_id],
        infos[row.dst_id],
        infos.get(row.job_id) if row.job_id is not None else None,
        statement,
    )


def job_detail(conn: Connection, job: str | int, as_of: int | None = None, limit: int = 20) -> JobDetail:
    """A job (or step, or any node that owns edges) with its recorded statements, latest first, and
    the datasets it reads and writes at ``as_of``."""
    node = resolve(conn, job)
    stmt = select(*_EVENT_COLS).where(_EV.job_id == node.id)
    if as_of is not None:
        stmt = stmt.where(_EV.event_us <= as_of)
    total = conn.execute(select(func.count()).select_from(stmt.subquery())).scalar_one()
    rows = conn.execute(stmt.order_by(_EV.event_us.desc(), _EV.id.desc()).limit(limit)).all()
    ins: list[int] = []
    outs: list[int] = []
    flow = select(_E.src_id, _E.dst_id).where(
        or_(_E.dst_id == node.id, _E.src_id == node.id), _E.type.in_(_DATASET_FLOW), valid_at(as_of)
    )
    for src, dst in conn.execute(flow):
        (ins if dst == node.id else outs).append(src if dst == node.id else dst)
    infos = fetch_nodes(conn, [*ins, *outs])
    read: set[int] = set()
    written: set[int] = set()
    mapped = select(_E.src_id, _E.dst_id, _E.type).where(
        _E.job_id == node.id, _E.type.in_((EdgeType.MAPS_TO.value, MAPS_TO_ALL, WRITES_FIELD)), valid_at(as_of)
    )
    for src, dst, typ in conn.execute(mapped):
        if typ != WRITES_FIELD:
            read.add(src)
        if typ != MAPS_TO_ALL:
            written.add(dst)
    return JobDetail(
        node,
        [_statement(r) for r in rows],
        total,
        sorted((infos[i] for i in set(ins) if i in infos), key=lambda n: n.name),
        sorted((infos[i] for i in set(outs) if i in infos), key=lambda n: n.name),
        len(read),
        len(written),
    )
