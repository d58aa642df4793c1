"""``trace_origin``: the roots upstream of a node and the source systems that hold them."""

from __future__ import annotations

from sqlalchemy import Connection

from headwater.store.resolve import fetch_nodes, resolve
from headwater.store.results import NodeInfo, OriginPath, TraceResult
from headwater.store.traverse import DEFAULT_MAX_NODES, edge_info, walk
from headwater.store.types import FLOW_EDGE_TYPES, NodeType


def _system(node: NodeInfo, nodes: dict[int, NodeInfo]) -> NodeInfo | None:
    seen = 0
    while node.type != NodeType.SOURCE_SYSTEM and node.parent_id is not None and seen < 4:
        parent = nodes.get(node.parent_id)
        if parent is None:
            return None
        node, seen = parent, seen + 1
    return node if node.type == NodeType.SOURCE_SYSTEM else None


def trace_origin(
    conn: Connection,
    node: str | int,
    max_depth: int | None = None,
    as_of: int | None = None,
    max_nodes: int = DEFAULT_MAX_NODES,
) -> TraceResult:
    """Walk upstream over every flow edge (fields over MAPS_TO) to the roots — nodes with nothing
    further upstream — and to SOURCE_SYSTEM nodes; each root comes with its system (through
    CONTAINS: field → dataset → system) and the path of edges from it to ``node``."""
    root = resolve(conn, node)
    isf = root.type == NodeType.FIELD
    w = walk(conn, [root.id], True, FLOW_EDGE_TYPES, as_of, max_depth, max_nodes, from_fields=isf)
    leaves = set(w.leaves())
    reached = fetch_nodes(conn, w.depth, w.depth)
    parents: dict[int, NodeInfo] = {}
    pending = {n.parent_id for n in reached.values() if n.id in leaves and n.parent_id}
    for _ in range(3):  # field → dataset → system
        got = fetch_nodes(conn, [p for p in pending if p not in parents])
        parents.update(got)
        pending = {n.parent_id for n in got.values() if n.parent_id}
        if not pending:
            break
    lookup = {**parents, **reached}
    origins = []
    for n in sorted(leaves, key=lambda i: (w.depth[i], reached[i].name)):
        info = reached[n]
        path = [edge_info(r) for r in w.path(n)]
        origins.append(OriginPath(info, _system(info, lookup), w.depth[n], path))
    systems = {o.system.id: o.system for o in origins if o.system is not None}
    systems.update({n.id: n for n in reached.values() if n.type == NodeType.SOURCE_SYSTEM})
    ordered = sorted(systems.values(), key=lambda s: s.name)
    return TraceResult(root, ordered, origins, len(ordered), w.truncated)
