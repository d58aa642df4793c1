"""``get_lineage_summary`` (one node at a glance) and ``get_lineage_stats`` (the whole store)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from sqlalchemy import BigInteger, Connection, and_, bindparam, func, select, union_all

from headwater.store import indirect
from headwater.store.direct import rows
from headwater.store.from_ddl import DDL_KIND
from headwater.store.names import from_us
from headwater.store.resolve import node_types, resolve
from headwater.store.results import LineageStats, LineageSummary
from headwater.store.schema import OPEN, edges, events, nodes
from headwater.store.traverse import DEFAULT_MAX_NODES, valid_at, walk
from headwater.store.types import FLOW_EDGE_TYPES, MAPS_TO_ALL, PROCESS_TYPES, WRITES_FIELD, EdgeType, NodeType

_E = edges.c


def get_lineage_summary(
    conn: Connection, node: str | int, as_of: int | None = None, max_nodes: int = DEFAULT_MAX_NODES
) -> LineageSummary:
    """Counts over the node's whole upstream and downstream (capped at ``max_nodes``).

    ``field_count``: fields the node contains; ``pipeline_count``: jobs and steps in its lineage
    (for a field, the jobs of the mappings around it); ``last_updated``: the latest start of an
    edge touching the node or its fields.
    """
    root = resolve(conn, node)
    isf = root.type == NodeType.FIELD
    up = walk(conn, [root.id], True, FLOW_EDGE_TYPES, as_of, None, max_nodes, from_fields=isf)
    down = walk(conn, [root.id], False, FLOW_EDGE_TYPES, as_of, None, max_nodes, from_fields=isf)
    around = (set(up.depth) | set(down.depth)) - {root.id}
    types = node_types(conn, around)
    counts = Counter(types.values())
    jobs = {n for n in around if types[n] in PROCESS_TYPES}
    jobs.update(
        r.job_id for w in (up, down) for r in w.edges.values() if r.job_id is not None and r.type == EdgeType.MAPS_TO
    )
    bound = {"root": root.id} if as_of is None else {"root": root.id, "as_of": as_of}
    field_count, last = rows(conn, _COUNTS[as_of is None], bound)[0]
    return LineageSummary(
        node=root,
        upstream_count=len(set(up.depth) - {root.id}),
        downstream_count=len(set(down.depth) - {root.id}),
        field_count=field_count,
        pipeline_count=len(jobs),
        last_updated=from_us(last),
        node_type_counts=dict(sorted(counts.items())),
        truncated=up.truncated or down.truncated,
    )


def _field_count(now: bool) -> Any:
    """How many fields ``root`` contains (CONTAINS edges valid now, or at ``as_of``)."""
    root, as_of = bindparam("root"), bindparam("as_of", type_=BigInteger)
    valid = _E.valid_to == OPEN if now else and_(_E.valid_from <= as_of, _E.valid_to > as_of)
    fields = select(nodes.c.id).where(nodes.c.type == NodeType.FIELD.value, nodes.c.parent_id == root)
    where = (_E.type == EdgeType.CONTAINS.value, _E.src_id == root, valid, _E.dst_id.in_(fields))
    return select(func.count()).select_from(edges).where(*where)


def _last_update(now: bool) -> Any:
    """The latest start (by ``as_of`` unless ``now``) of an edge (not CONTAINS) with an end at
    ``root`` or at one of its members: the largest of four indexed maxima (one ``OR`` of the four
    conditions made PostgreSQL scan every edge)."""
    root, as_of = bindparam("root"), bindparam("as_of", type_=BigInteger)
    members = select(nodes.c.id).where(nodes.c.parent_id == root)
    touches = (_E.src_id == root, _E.dst_id == root, _E.dst_id.in_(members), _E.src_id.in_(members))
    parts = []
    for touch in touches:
        q = select(func.max(_E.valid_from).label("m")).where(touch, _E.type != EdgeType.CONTAINS.value)
        parts.append(q if now else q.where(_E.valid_from <= as_of))
    each = union_all(*parts).subquery("each")
    return select(func.max(each.c.m))


_COUNTS = {
    now: select(_field_count(now).scalar_subquery(), _last_update(now).scalar_subquery()) for now in (True, False)
}
"""The field count and the last update in one statement (one round trip)."""


def get_lineage_stats(conn: Connection, as_of: int | None = None) -> LineageStats:
    """Nodes by type, edges valid at ``as_of`` (now: open) by type, MAPS_TO count, events recorded;
    with ``as_of``, the nodes and events of the graph's timeline by then (a node exists from the
    earliest event that mentions it, an event at its own time), as for edges.

    A dataset-level mapping counts once per column it applies to, as a MAPS_TO edge."""
    nq = select(nodes.c.type, func.count()).group_by(nodes.c.type)
    eq = select(_E.type, func.count()).where(valid_at(as_of)).group_by(_E.type)
    evq = select(func.count()).select_from(events).where(events.c.kind != DDL_KIND)  # lineage events only
    if as_of is not None:
        nq = nq.where(nodes.c.created_us <= as_of)
        evq = evq.where(events.c.event_us <= as_of)
    by_node = {t: c for t, c in conn.execute(nq)}
    by_edge = {t: c for t, c in conn.execute(eq)}
    if by_edge.pop(MAPS_TO_ALL, 0):  # each stands for one MAPS_TO per column it applies to
        maps_to = by_edge.get(EdgeType.MAPS_TO.value, 0) + indirect.count(conn, as_of)
        if maps_to:
            by_edge[EdgeType.MAPS_TO.value] = maps_to
    by_edge.pop(WRITES_FIELD, None)
    return LineageStats(
        total_nodes=sum(by_node.values()),
        total_edges=sum(by_edge.values()),
        total_field_mappings=by_edge.get(EdgeType.MAPS_TO.value, 0),
        nodes_by_type=dict(sorted(by_node.items())),
        edges_by_type=dict(sorted(by_edge.items())),
        events_recorded=conn.execute(evq).scalar_one(),
    )
