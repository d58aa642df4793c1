"""The edges of a lineage graph as the CLI lists them: labelled, and bridged over hidden nodes.

With ``--type DATASET`` the jobs between datasets are not shown; their READ and WRITE edges would
vanish with them, leaving datasets without a link. The store keeps each such path as one bridge
(``store/bridges.py``), listed as an edge ``via`` the hidden nodes, as in the JSON and the explorer.
"""

from __future__ import annotations

from headwater.service import schemas as m


def edge_label(e: m.Edge) -> str:
    """``READ``, ``WRITE``, or for a field mapping its dependency and type (``DIRECT AGGREGATION``)."""
    if e.type == "MAPS_TO":
        return " ".join(p for p in (e.dependency, e.subtype) if p) or e.type
    return e.type


def bridge_label(b: m.Bridge) -> str:
    """``via JOB j``, with the path's dependency first when it maps fields (``DIRECT via JOB j``)."""
    via = ", ".join(f"{h.type} {h.short or h.name}" for h in b.via)
    return f"{b.dependency + ' ' if b.dependency else ''}via {via}"


def graph_edges(g: m.LineageGraph) -> list[tuple[int, str, int]]:
    """``(from id, label, to id)`` for every edge of ``g``, then every bridge.

    >>> N = lambda i, t, n: m.Node(id=i, type=t, name=n, short=n)
    >>> E = lambda i, t, a, b: m.Edge(id=i, type=t, source=a, target=b)
    >>> g = m.LineageGraph(root=N(1, "DATASET", "t"), direction="UPSTREAM", nodes=[N(3, "DATASET", "s")],
    ...     edges=[], total_nodes=1, total_edges=0, truncated=False,
    ...     bridges=[m.Bridge(source=3, target=1, via=[N(2, "JOB", "j")])])
    >>> graph_edges(g)
    [(3, 'via JOB j', 1)]
    """
    out = [(e.source, edge_label(e), e.target) for e in g.edges]
    return list(dict.fromkeys(out + [(b.source, bridge_label(b), b.target) for b in g.bridges]))
