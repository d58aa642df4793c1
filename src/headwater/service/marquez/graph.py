"""Marquez's lineage graph (``GET /api/v1/lineage?nodeId=``): the datasets and jobs around a dataset or
a job, each node ``{id, type, data, inEdges, outEdges}`` with edges ``{origin, destination}`` in data-flow
order (an input dataset → its job → the job's output). Depth as headwater counts it: a dataset → job →
dataset hop is one level; both directions."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from headwater.service.marquez import resolve
from headwater.service.marquez import store_reads as reads
from headwater.service.marquez.names import NodeId, job_id, node_id
from headwater.service.marquez.shapes import Shapes
from headwater.store import Direction, LineageStore
from headwater.store.engine import READ
from headwater.store.types import EdgeType, NodeType

_TYPES = [NodeType.DATASET.value, *reads.PROCESS]
_FLOW = (EdgeType.READ.value, EdgeType.WRITE.value)


def lineage(store: LineageStore, value: str, depth: int) -> dict[str, Any]:
    with store.engine.connect().execution_options(**READ) as conn:
        root = resolve.node(conn, NodeId.parse(value, kinds=("dataset", "job")))
        g = store.get_lineage(root.id, Direction.BOTH, depth, node_types=_TYPES)
        found = reads.by_ids(conn, [n.id for n in g.nodes])
        shapes = Shapes(conn)
        ds = [n for n in found.values() if n.type == NodeType.DATASET.value]
        js = [n for n in found.values() if n.type in reads.PROCESS]
        data: dict[int, tuple[str, str, dict[str, Any]]] = {}
        for d, shaped in zip(ds, shapes.datasets(ds), strict=True):
            data[d.id] = ("DATASET", node_id("dataset", shaped["namespace"], shaped["name"]), shaped)
        for j, shaped in zip(js, shapes.jobs(js), strict=True):
            ns, name = job_id(j.name, j.properties)
            data[j.id] = ("JOB", node_id("job", ns, name), shaped)
    ins: dict[int, set[tuple[str, str]]] = defaultdict(set)
    outs: dict[int, set[tuple[str, str]]] = defaultdict(set)
    for e in g.edges:
        if e.type in _FLOW and e.source in data and e.target in data:
            pair = (data[e.source][1], data[e.target][1])
            outs[e.source].add(pair)
            ins[e.target].add(pair)
    graph = [
        {
            "id": nid,
            "type": kind,
            "data": shaped,
            "inEdges": [{"origin": a, "destination": b} for a, b in sorted(ins[i])],
            "outEdges": [{"origin": a, "destination": b} for a, b in sorted(outs[i])],
        }
        for i, (kind, nid, shaped) in data.items()
    ]
    return {"graph": sorted(graph, key=lambda n: n["id"])}
