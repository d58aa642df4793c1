"""Edges bridged over the nodes a type filter hides: ``--type DATASET`` keeps the datasets, and each
path between two of them through hidden nodes only (the jobs) becomes one edge ``via`` those nodes.

Without them a type-filtered answer would list datasets with no link between them; with them, every
format (the CLI's table, its JSON, the REST and gRPC answers) carries the same links.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from headwater.store.results import Bridge, EdgeInfo, NodeInfo

MAX_HIDDEN = 4
"""Hidden nodes one bridged edge may pass through."""


def _dependency(path: list[EdgeInfo]) -> str | None:
    deps = [e.dependency for e in path if e.type == "MAPS_TO"]
    if not deps:
        return None
    return "DIRECT" if all(d == "DIRECT" for d in deps) else "INDIRECT"


def bridges(edges: Collection[EdgeInfo], nodes: Mapping[int, NodeInfo], keep: Collection[int]) -> list[Bridge]:
    """One ``Bridge`` per path between two ``keep`` nodes whose inner nodes (at most ``MAX_HIDDEN``)
    are all hidden, i.e. in ``nodes`` but not in ``keep``; in the order of ``edges``, no duplicates.

    >>> N = lambda i, t: NodeInfo(i, t, f"n{i}", f"n{i}")
    >>> E = lambda i, a, b: EdgeInfo(i, "READ" if i == 10 else "WRITE", a, b)
    >>> nodes = {1: N(1, "DATASET"), 2: N(2, "JOB"), 3: N(3, "DATASET")}
    >>> [(b.source, [v.id for v in b.via], b.target) for b in bridges([E(10, 3, 2), E(11, 2, 1)], nodes, {1, 3})]
    [(3, [2], 1)]
    """
    keep = set(keep)
    out_edges: dict[int, list[EdgeInfo]] = {}
    for e in edges:
        out_edges.setdefault(e.source, []).append(e)
    result: list[Bridge] = []
    seen: set[tuple[int, tuple[int, ...], int]] = set()
    for start in dict.fromkeys(e.source for e in edges):
        if start not in keep:
            continue
        stack: list[tuple[int, list[EdgeInfo]]] = [
            (e.target, [e]) for e in reversed(out_edges.get(start, ())) if e.target not in keep
        ]
        while stack:
            at, path = stack.pop()
            if at in keep or at not in nodes:
                continue
            for e in out_edges.get(at, ()):
                if e.target in keep:
                    via = tuple(x.target for x in path)
                    key = (start, via, e.target)
                    if key not in seen:
                        seen.add(key)
                        result.append(Bridge(start, e.target, [_bare(nodes[v]) for v in via], _dependency([*path, e])))
                elif len(path) < MAX_HIDDEN and e.target not in {x.target for x in path}:
                    stack.append((e.target, [*path, e]))
    return result


def _bare(n: NodeInfo) -> NodeInfo:
    """A hidden node as a bridge names it: without its properties (a job's SQL)."""
    return NodeInfo(n.id, n.type, n.name, n.short, n.parent_id, n.depth)
