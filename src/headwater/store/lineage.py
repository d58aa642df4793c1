"""``get_lineage``: the graph around a node, up, down or both, to a depth, as of a time, paged."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from sqlalchemy import Connection, select

from headwater.store.bridges import bridges
from headwater.store.indirect import order
from headwater.store.resolve import fetch_nodes, resolve
from headwater.store.resolve import node_types as types_of
from headwater.store.results import LineageGraph, NodeInfo
from headwater.store.schema import nodes as _nodes
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
    those types (the root is always returned as ``root``); an edge is kept when both its ends are;
    ``SOURCE_SYSTEM`` among them keeps the systems holding the nodes reached from the root (at the
    depth of the nearest). A page (``offset``/``limit``) carries the edges by which its nodes were reached. Edges of
    ``hidden_jobs`` are not followed (``jobs.hidden_jobs``). ``as_of`` before the root existed on the
    graph's timeline (the earliest event naming it) is an empty graph.

    Nothing is left out silently: when ``max_depth`` stops a walk before its end, a second walk from
    the nodes at that depth (capped at ``PROBE_MAX_NODES``) counts what lies beyond
    (``more_at_depth``, ``more_by_type``) and how deep it goes (``depth_needed``), and ``truncated``
    is set; with ``node_types``, paths through the hidden nodes are kept as ``bridges``.
    """
    direction = Direction(direction)
    root = resolve(conn, node)
    root_info = NodeInfo(root.id, root.type, root.name, root.short, root.parent_id, 0, root.properties)
    if as_of is not None and not _existed(conn, root.id, as_of):
        return LineageGraph(root_info, direction.value, [], [], 0, 0, False, offset, limit)
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
    beyond: dict[int, int] = {}  # node past max_depth -> its distance from the root
    exact = True
    for w in walks:
        if max_depth is not None and not w.truncated:
            far, known = _beyond(conn, w, max_depth, as_of, isf, hidden_jobs)
            exact = exact and known
            for n, d in far.items():
                if n not in depth and (n not in beyond or d < beyond[n]):
                    beyond[n] = d
    infos = fetch_nodes(conn, depth, depth)
    if node_types and NodeType.SOURCE_SYSTEM.value in node_types:
        infos.update(_systems(conn, {i: n for i, n in infos.items() if i != root.id}))
    more_by_type: dict[str, int] = {}
    if beyond:
        for t in types_of(conn, beyond).values():
            if not node_types or t in node_types:
                more_by_type[t] = more_by_type.get(t, 0) + 1
    more = sum(more_by_type.values())
    capped = any(w.truncated for w in walks)
    cut_by = (["depth"] if more else []) + (["max_nodes"] if capped else [])
    kept = [n for n in infos.values() if not node_types or n.type in node_types or n.id == root.id]
    kept.sort(key=lambda n: (n.id != root.id, abs(n.depth or 0), n.depth or 0, n.type, n.name))
    kept_ids = {n.id for n in kept}
    if node_types:
        kept = [n for n in kept if n.type in node_types]
    page = kept[offset : offset + limit if limit is not None else None]
    page_ids = {n.id for n in page}
    all_edges = [(row, far, near) for row, far, near in edge_rows.values() if far in kept_ids and near in kept_ids]
    page_edges = [edge_info(row) for row, far, _ in sorted(all_edges, key=lambda x: order(x[0])) if far in page_ids]
    bridged = []
    if node_types:
        reached = [edge_info(row) for row, _, _ in sorted(edge_rows.values(), key=lambda x: order(x[0]))]
        bridged = [b for b in bridges(reached, infos, kept_ids) if _far_end(b.source, b.target, infos) in page_ids]
    return LineageGraph(
        root=root_info,
        direction=direction.value,
        nodes=page,
        edges=page_edges,
        total_nodes=len(kept),
        total_edges=len(all_edges),
        truncated=bool(cut_by),
        offset=offset,
        limit=limit,
        cut_by=cut_by,
        more_at_depth=more,
        more_by_type=dict(sorted(more_by_type.items())),
        depth_needed=max(beyond.values()) if more and exact else None,
        hidden_by_type=len(infos) - len(kept_ids),
        bridges=bridged,
    )


def _existed(conn: Connection, node_id: int, as_of: int) -> bool:
    """Whether the node was on the graph by ``as_of`` (its ``created_us``: the earliest event naming it)."""
    created = conn.execute(select(_nodes.c.created_us).where(_nodes.c.id == node_id)).scalar()
    return created is None or created <= as_of


def _systems(conn: Connection, reached: dict[int, NodeInfo]) -> dict[int, NodeInfo]:
    """The SOURCE_SYSTEM nodes holding the reached nodes (field → dataset → system), each at the
    signed depth of the nearest node it holds."""
    depth: dict[int, int] = {}  # system id -> depth
    level = {n.id: n for n in reached.values() if n.type != NodeType.SOURCE_SYSTEM}
    origin = {n.id: n.depth or 0 for n in level.values()}  # node id -> depth of the reached node under it
    for _ in range(3):
        parents = fetch_nodes(conn, {n.parent_id for n in level.values() if n.parent_id is not None})
        nxt: dict[int, NodeInfo] = {}
        for n in level.values():
            p = parents.get(n.parent_id) if n.parent_id is not None else None
            if p is None:
                continue
            d = origin[n.id]
            if p.type == NodeType.SOURCE_SYSTEM:
                if p.id not in depth or abs(d) < abs(depth[p.id]):
                    depth[p.id] = d
            elif p.id not in origin or abs(d) < abs(origin[p.id]):
                origin[p.id] = d
                nxt[p.id] = p
        level = nxt
        if not level:
            break
    found = fetch_nodes(conn, depth, depth)
    return {i: n for i, n in found.items() if i not in reached}


PROBE_MAX_NODES = 1_000
"""Nodes the walk past ``max_depth`` counts at most (past it, ``depth_needed`` is unknown)."""


def _beyond(
    conn: Connection, w: Walk, max_depth: int, as_of: int | None, isf: bool, hidden_jobs: Collection[int]
) -> tuple[dict[int, int], bool]:
    """The nodes past ``max_depth`` in ``w``'s direction, with their distance from the root, and
    whether the count is complete. Each lies past a node at depth ``max_depth`` (a hop adds at most
    one level), so a walk from those nodes, at ``max_depth`` plus its own depth, finds them all."""
    edge = [n for n, d in w.depth.items() if d == max_depth]
    if not edge:
        return {}, True
    probe = walk(
        conn,
        edge,
        w.upstream,
        FLOW_EDGE_TYPES,
        as_of,
        None,
        PROBE_MAX_NODES,
        from_fields=isf,
        hidden_jobs=hidden_jobs,
    )
    far = {n: max_depth + d for n, d in probe.depth.items() if n not in w.depth}
    return far, not probe.truncated


def _far_end(a: int, b: int, infos: dict[int, NodeInfo]) -> int:
    """The end of an edge or bridge farther from the root (its ``depth``), as edges are paged."""
    da, db = abs(infos[a].depth or 0) if a in infos else 0, abs(infos[b].depth or 0) if b in infos else 0
    return a if da > db else b
