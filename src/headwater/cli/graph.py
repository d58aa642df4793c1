"""The edges of a lineage graph as the CLI lists them: labelled, and bridged over hidden nodes.

With ``--type DATASET`` the jobs between datasets are not shown; their READ and WRITE edges would
vanish with them, leaving datasets without a link. As in the explorer, such a path becomes one edge
``via`` the hidden nodes.
"""

from __future__ import annotations

from headwater.service import schemas as m

MAX_HIDDEN = 4
"""Hidden nodes one bridged edge may pass through."""


def edge_label(e: m.Edge) -> str:
    """``READ``, ``WRITE``, or for a field mapping its dependency and type (``DIRECT AGGREGATION``)."""
    if e.type == "MAPS_TO":
        return " ".join(p for p in (e.dependency, e.subtype) if p) or e.type
    return e.type


def _dependency(path: list[m.Edge]) -> str | None:
    deps = [e.dependency for e in path if e.type == "MAPS_TO"]
    if not deps:
        return None
    return "DIRECT" if all(d == "DIRECT" for d in deps) else "INDIRECT"


def bridged_edges(g: m.LineageGraph, keep: set[int]) -> list[tuple[int, str, int]]:
    """``(from id, label, to id)`` for every edge between kept nodes, and one per path between kept
    nodes whose inner nodes are all hidden (labelled ``via`` those nodes).

    >>> N = lambda i, t, n: m.Node(id=i, type=t, name=n, short=n)
    >>> E = lambda i, t, a, b: m.Edge(id=i, type=t, source=a, target=b)
    >>> g = m.LineageGraph(root=N(1, "DATASET", "t"), direction="UPSTREAM",
    ...     nodes=[N(1, "DATASET", "t"), N(2, "JOB", "j"), N(3, "DATASET", "s")],
    ...     edges=[E(10, "READ", 3, 2), E(11, "WRITE", 2, 1)], total_nodes=3, total_edges=2,
    ...     truncated=False, offset=0, limit=None)
    >>> bridged_edges(g, {1, 3})
    [(3, 'via JOB j', 1)]
    >>> bridged_edges(g, {1, 2, 3})
    [(3, 'READ', 2), (2, 'WRITE', 1)]
    """
    nodes = {n.id: n for n in g.nodes} | {g.root.id: g.root}
    out_edges: dict[int, list[m.Edge]] = {}
    for e in g.edges:
        out_edges.setdefault(e.source, []).append(e)
    result: list[tuple[int, str, int]] = []
    seen: set[tuple[int, str, int]] = set()

    def add(item: tuple[int, str, int]) -> None:
        if item not in seen:
            seen.add(item)
            result.append(item)

    for e in g.edges:
        if e.source in keep and e.target in keep:
            add((e.source, edge_label(e), e.target))
    for start in [n for n in nodes if n in keep]:
        stack: list[tuple[int, list[m.Edge]]] = [
            (e.target, [e]) for e in out_edges.get(start, ()) if e.target not in keep
        ]
        while stack:
            at, path = stack.pop()
            if at in keep or at not in nodes:
                continue
            for e in out_edges.get(at, ()):
                if e.target in keep:
                    hidden = [nodes[x.target] for x in path]
                    via = ", ".join(f"{h.type} {h.short or h.name}" for h in hidden)
                    dep = _dependency([*path, e])
                    add((start, f"{dep + ' ' if dep else ''}via {via}", e.target))
                elif len(path) < MAX_HIDDEN and e.target not in {x.target for x in path}:
                    stack.append((e.target, [*path, e]))
    return result
