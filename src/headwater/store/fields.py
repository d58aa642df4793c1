"""Field-level questions over MAPS_TO edges: where a field's value comes from, what it feeds."""

from __future__ import annotations

from collections import deque
from typing import Any

from sqlalchemy import Connection

from headwater.store.indirect import order
from headwater.store.resolve import fetch_nodes, resolve
from headwater.store.results import FieldImpact, FieldOrigin, FieldPath, NodeInfo
from headwater.store.traverse import DEFAULT_MAX_NODES, Walk, edge_info, walk
from headwater.store.types import EdgeType, NodeType

MAPS_TO = (EdgeType.MAPS_TO.value,)


def field_node(conn: Connection, field: str | int) -> NodeInfo:
    return resolve(conn, field, types=(NodeType.FIELD,))


def _path(rows: list[Any], upstream: bool) -> tuple[list[Any], list[str]]:
    """Rows in data-flow order, and the types along them."""
    ordered = rows if upstream else list(reversed(rows))
    return [edge_info(r) for r in ordered], [r.subtype or r.type for r in ordered]


def get_field_origin(
    conn: Connection,
    field: str | int,
    include_indirect: bool = False,
    as_of: int | None = None,
    max_depth: int | None = None,
    limit: int | None = None,
    offset: int = 0,
    max_nodes: int = DEFAULT_MAX_NODES,
) -> FieldOrigin:
    """The ultimate source fields of ``field`` across statements, each with one shortest path.

    Only DIRECT mappings are followed unless ``include_indirect``. A field with no upstream is its
    own origin (depth 0, empty path).
    """
    root = field_node(conn, field)
    w = walk(
        conn,
        [root.id],
        True,
        MAPS_TO,
        as_of,
        max_depth,
        max_nodes,
        dependency=None if include_indirect else "DIRECT",
        from_fields=True,
    )
    leaves = w.leaves()
    infos = fetch_nodes(conn, leaves, w.depth)
    entries = []
    for n in leaves:
        edges, types = _path(w.path(n), upstream=True)
        dep = "INDIRECT" if any(e.dependency == "INDIRECT" for e in edges) else "DIRECT"
        entries.append(FieldPath(infos[n], w.depth[n], edges, types, dep))
    entries.sort(key=lambda e: (e.depth, e.field.name))
    page = entries[offset : offset + limit if limit is not None else None]
    return FieldOrigin(root, page, len(entries), w.truncated or _cut(w, max_depth), include_indirect)


def _cut(w: Walk, max_depth: int | None) -> bool:
    return max_depth is not None and any(n not in w.expanded for n in w.depth)


def get_field_impact(
    conn: Connection,
    field: str | int,
    as_of: int | None = None,
    max_depth: int | None = None,
    limit: int | None = None,
    offset: int = 0,
    max_nodes: int = DEFAULT_MAX_NODES,
) -> FieldImpact:
    """Every field downstream of ``field``: DIRECT when some path of DIRECT mappings reaches it
    (that path is returned), INDIRECT otherwise (with its shortest path)."""
    root = field_node(conn, field)
    w = walk(conn, [root.id], False, MAPS_TO, as_of, max_depth, max_nodes, from_fields=True)
    direct_parent = direct_reach(w, [root.id])
    infos = fetch_nodes(conn, w.depth, w.depth)
    entries = []
    for n, d in w.depth.items():
        if n == root.id:
            continue
        if n in direct_parent:
            rows, node = [], n
            while node in direct_parent and direct_parent[node] is not None:
                row = w.edges[direct_parent[node]]
                rows.append(row)
                node = row.src_id
            edges, types = _path(rows, upstream=False)
            entries.append(FieldPath(infos[n], len(rows), edges, types, "DIRECT"))
        else:
            edges, types = _path(w.path(n), upstream=False)
            entries.append(FieldPath(infos[n], d, edges, types, "INDIRECT"))
    entries.sort(key=lambda e: (e.dependency != "DIRECT", e.depth, e.field.name))
    direct = sum(1 for e in entries if e.dependency == "DIRECT")
    page = entries[offset : offset + limit if limit is not None else None]
    return FieldImpact(root, page, len(entries), direct, len(entries) - direct, w.truncated)


def direct_reach(w: Walk, roots: list[int], accept: Any = None) -> dict[int, int | None]:
    """Nodes reachable from ``roots`` over the walk's edges that pass ``accept`` (default: DIRECT
    dependency), breadth first, mapped to the edge id that reached them (None for roots)."""
    accept = accept or (lambda r: r.dependency == "DIRECT")
    out_edges: dict[int, list[Any]] = {}
    for row in w.edges.values():
        if accept(row):
            out_edges.setdefault(row.src_id, []).append(row)
    parent: dict[int, int | None] = {r: None for r in roots}
    queue = deque(roots)
    while queue:
        n = queue.popleft()
        for row in sorted(out_edges.get(n, ()), key=order):
            if row.dst_id not in parent:
                parent[row.dst_id] = row.id
                queue.append(row.dst_id)
    for r in roots:
        parent.pop(r, None)
    return parent
