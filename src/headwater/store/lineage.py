"""``get_lineage``: the graph around a node, up, down or both, to a depth, as of a time, paged."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from sqlalchemy import Connection

from headwater.store.indirect import order
from headwater.store.resolve import fetch_nodes, resolve
from headwater.store.results import LineageGraph, NodeInfo
from headwater.store.traverse import DEFAULT_MAX_NODES, Walk, edge_info, walk
from headwater.store.types import FLOW_EDGE_TYPES, Direction, NodeType


def get_lineage(
    conn: Connection,
    node: str | int,
    direction: Direction | str = Direction.BOTH,
    max_depth: int | None = 3,
    as_of: int | None = None,
    node_types: Collection[str] | None = None,
    limit: int | None = None,
    offset: int = 0,
    max_nodes: int = DEFAULT_MAX_NODES,
    hidden_jobs: Collection[int] = (),
) -> LineageGraph:
    """Nodes (root first, then by distance, type and name) and the edges that reach them.

    Depths are signed: negative upstream, positive downstream. ``node_types`` keeps only nodes of
    those types (the root is always returned as ``root``); an edge is kept when both its ends are.
    A page (``offset``/``limit``) carries the edges by which its nodes were reached. Edges of
    ``hidden_jobs`` are not followed (``jobs.hidden_jobs``).
    """
    direction = Direction(direction)
    root = resolve(conn, node)
    isf = root.type == NodeType.FIELD
    walks: list[Walk] = []
    for upstream, side in ((True, Direction.UPSTREAM), (False, Direction.DOWNSTREAM)):
        if direction in (side, Direction.BOTH):
            w = walk(
                conn,
                [root.id],
                upstream,
                FLOW_EDGE_TYPES,
                as_of,
                max_depth,
                max_nodes,
                from_fields=isf,
                hidden_jobs=hidden_jobs,
            )
            walks.append(w)
    depth: dict[int, int] = {root.id: 0}
    edge_rows: dict[int, tuple[Any, int, int]] = {}  # id -> (row, far, near)
    for w in walks:
        sign = -1 if w.upstream else 1
        for n, d in w.depth.items():
            if n not in depth or abs(sign * d) < abs(depth[n]):
                depth[n] = sign * d
        for eid, row in w.edges.items():
            edge_rows.setdefault(eid, (row, w.far(row), w.near(row)))
    infos = fetch_nodes(conn, depth, depth)
    kept = [n for n in infos.values() if not node_types or n.type in node_types or n.id == root.id]
    kept.sort(key=lambda n: (n.id != root.id, abs(n.depth or 0), n.depth or 0, n.type, n.name))
    kept_ids = {n.id for n in kept}
    if node_types:
        kept = [n for n in kept if n.type in node_types]
    page = kept[offset : offset + limit if limit is not None else None]
    page_ids = {n.id for n in page}
    all_edges = [(row, far, near) for row, far, near in edge_rows.values() if far in kept_ids and near in kept_ids]
    page_edges = [edge_info(row) for row, far, _ in sorted(all_edges, key=lambda x: order(x[0])) if far in page_ids]
    return LineageGraph(
        root=NodeInfo(root.id, root.type, root.name, root.short, root.parent_id, 0, root.properties),
        direction=direction.value,
        nodes=page,
        edges=page_edges,
        total_nodes=len(kept),
        total_edges=len(all_edges),
        truncated=any(w.truncated for w in walks),
        offset=offset,
        limit=limit,
    )
