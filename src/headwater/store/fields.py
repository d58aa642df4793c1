"""Field-level questions over MAPS_TO edges: where a field's value comes from, what it feeds."""

from __future__ import annotations

from collections import deque
from collections.abc import Collection
from typing import Any

from sqlalchemy import Connection

from headwater.store.indirect import order
from headwater.store.levels import Level, edge_filter, follows_dataset_level, parse_level, path_to, strongest_reach
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


def field_walk(
    conn: Connection,
    root: int,
    upstream: bool,
    level: Level,
    as_of: int | None,
    max_depth: int | None,
    max_nodes: int,
    hidden_jobs: Collection[int] = (),
) -> Walk:
    """The fields reached from the field ``root`` one way, following the mappings ``level`` keeps."""
    return walk(
        conn,
        [root],
        upstream,
        MAPS_TO,
        as_of,
        max_depth,
        max_nodes,
        from_fields=True,
        where=edge_filter(level),
        dataset_level=follows_dataset_level(level),
        hidden_jobs=hidden_jobs,
    )


def _labelled(w: Walk, root: int, nodes: list[int], infos: dict[int, NodeInfo], upstream: bool) -> list[FieldPath]:
    """Each of ``nodes`` with its strongest dependency: DIRECT with a DIRECT path when one links it
    to ``root`` among the walk's edges, else INDIRECT with the walk's shortest path."""
    direct = strongest_reach(w.edges.values(), [root], upstream)
    out = []
    for n in nodes:
        if n in direct:
            rows, dep = path_to(direct, w.edges, n, upstream), "DIRECT"
        else:
            rows = w.path(n)
            dep = "INDIRECT" if any(r.dependency != "DIRECT" for r in rows) else "DIRECT"
        edges, types = _path(rows, upstream)
        out.append(FieldPath(infos[n], len(rows) if n in direct else w.depth[n], edges, types, dep))
    return out


def get_field_origin(
    conn: Connection,
    field: str | int,
    include_indirect: bool | None = None,
    as_of: int | None = None,
    max_depth: int | None = None,
    limit: int | None = None,
    offset: int = 0,
    max_nodes: int = DEFAULT_MAX_NODES,
    level: Level | str | None = None,
    hidden_jobs: Collection[int] = (),
) -> FieldOrigin:
    """The ultimate source fields of ``field`` across statements, each labelled by its strongest
    dependency (``levels``) with a path of that strength.

    ``level`` says which mappings are followed (default ``field``; ``include_indirect`` is the
    former flag: True = ``all``, False = ``direct``). A field with no upstream at that level is its
    own origin (depth 0, empty path).
    """
    lvl = parse_level(level, include_indirect)
    root = field_node(conn, field)
    w = field_walk(conn, root.id, True, lvl, as_of, max_depth, max_nodes, hidden_jobs)
    leaves = w.leaves()
    infos = fetch_nodes(conn, leaves, w.depth)
    entries = _labelled(w, root.id, leaves, infos, upstream=True)
    entries.sort(key=lambda e: (e.dependency != "DIRECT", e.depth, e.field.name))
    page = entries[offset : offset + limit if limit is not None else None]
    truncated = w.truncated or _cut(w, max_depth)
    return FieldOrigin(root, page, len(entries), truncated, lvl == Level.ALL, lvl.value)


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
    level: Level | str | None = None,
    hidden_jobs: Collection[int] = (),
) -> FieldImpact:
    """Every field downstream of ``field`` at ``level`` (default ``field``), each labelled by its
    strongest dependency: DIRECT when some path of DIRECT mappings reaches it (that path is
    returned), INDIRECT otherwise (with its shortest path)."""
    lvl = parse_level(level)
    root = field_node(conn, field)
    w = field_walk(conn, root.id, False, lvl, as_of, max_depth, max_nodes, hidden_jobs)
    reached = [n for n in w.depth if n != root.id]
    infos = fetch_nodes(conn, reached, w.depth)
    entries = _labelled(w, root.id, reached, infos, upstream=False)
    entries.sort(key=lambda e: (e.dependency != "DIRECT", e.depth, e.field.name))
    direct = sum(1 for e in entries if e.dependency == "DIRECT")
    page = entries[offset : offset + limit if limit is not None else None]
    return FieldImpact(root, page, len(entries), direct, len(entries) - direct, w.truncated, lvl.value)


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
