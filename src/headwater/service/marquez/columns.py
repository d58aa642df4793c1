"""Marquez's column lineage graph (``GET /api/v1/column-lineage``): ``DATASET_FIELD`` nodes whose data
lists each input field with its transformation.

Marquez keeps one ``transformationType`` / ``transformationDescription`` per input; headwater gives
there the mapping's subtype (IDENTITY, TRANSFORMATION, AGGREGATION, JOIN, FILTER, GROUP_BY, SORT,
WINDOW, CONDITIONAL; a DIRECT one first) and its expression, and every mapping between the two columns
in an added ``transformations`` list (OpenLineage's ``type`` / ``subtype`` / ``description`` /
``masking``). The edges are Marquez's own: a node's ``inEdges`` go from the node to each input
(``origin`` the node itself), its ``outEdges`` from the node to each field it feeds; its web UI reads
them so."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from headwater.service.marquez import resolve
from headwater.service.marquez import store_reads as reads
from headwater.service.marquez.field_types import field_types
from headwater.service.marquez.names import NodeId, node_id
from headwater.service.marquez.shapes import Shapes
from headwater.store import Direction, LineageStore
from headwater.store.engine import READ
from headwater.store.results import EdgeInfo
from headwater.store.types import EdgeType, NodeType


def _starts(conn: Any, root: reads.Node) -> list[int]:
    """The fields a node id stands for: itself, a dataset's columns, a job's output columns."""
    if root.type == NodeType.FIELD.value:
        return [root.id]
    if root.type == NodeType.DATASET.value:
        return [f.id for f in reads.fields_of(conn, [root.id])[root.id]]
    outputs = reads.process_io(conn, [root.id])[root.id][1]
    return [f.id for fs in reads.fields_of(conn, outputs).values() for f in fs]


def _transformation(e: EdgeInfo) -> dict[str, Any]:
    return {"type": e.dependency or "DIRECT", "subtype": e.subtype, "description": e.expression, "masking": e.masking}


def _input(ref: dict[str, str], mappings: list[EdgeInfo]) -> dict[str, Any]:
    ordered = sorted(mappings, key=lambda e: (e.dependency != "DIRECT", e.subtype or "", e.id))
    first = ordered[0]
    return {
        **ref,
        "transformationDescription": first.expression,
        "transformationType": first.subtype,
        "transformations": [_transformation(e) for e in ordered],
    }


def column_lineage(store: LineageStore, value: str, depth: int, downstream: bool) -> dict[str, Any]:
    with store.engine.connect().execution_options(**READ) as conn:
        root = resolve.node(conn, NodeId.parse(value))
        found: dict[int, Any] = {}
        maps: dict[int, EdgeInfo] = {}
        directions = (Direction.UPSTREAM, Direction.DOWNSTREAM) if downstream else (Direction.UPSTREAM,)
        for start in _starts(conn, root):
            for direction in directions:
                g = store.get_lineage(start, direction, depth, node_types=[NodeType.FIELD.value])
                found.update((n.id, n) for n in g.nodes)
                maps.update((e.id, e) for e in g.edges if e.type == EdgeType.MAPS_TO.value)
        fields = reads.by_ids(conn, found)
        parents = reads.by_ids(conn, {f.parent_id for f in fields.values() if f.parent_id is not None})
        ids = Shapes(conn).dataset_ids([p for p in parents.values() if p.type == NodeType.DATASET.value])
        types = {p: field_types(conn, p, ids[p][1]) for p in ids}
    refs: dict[int, dict[str, str]] = {}
    for f in fields.values():
        if f.parent_id in ids:
            ns, name = ids[f.parent_id]
            refs[f.id] = {"namespace": ns, "dataset": name, "field": f.name.rsplit(".", 1)[-1]}
    by_pair: dict[int, dict[int, list[EdgeInfo]]] = defaultdict(lambda: defaultdict(list))
    for e in maps.values():
        if e.source in refs and e.target in refs:
            by_pair[e.target][e.source].append(e)
    nid = {i: node_id("datasetField", r["namespace"], r["dataset"], r["field"]) for i, r in refs.items()}
    feeds: dict[int, set[int]] = defaultdict(set)
    for target, sources in by_pair.items():
        for source in sources:
            feeds[source].add(target)
    graph = []
    for i, ref in refs.items():
        inputs = [_input(refs[s], es) for s, es in sorted(by_pair[i].items(), key=lambda kv: nid[kv[0]])]
        parent = fields[i].parent_id or 0
        data = {
            **ref,
            "fieldType": types.get(parent, {}).get(ref["field"], ""),
            "transformationDescription": inputs[0]["transformationDescription"] if inputs else None,
            "transformationType": inputs[0]["transformationType"] if inputs else None,
            "inputFields": inputs,
        }
        graph.append(
            {
                "id": nid[i],
                "type": "DATASET_FIELD",
                "data": {k: v for k, v in data.items() if v is not None},
                "inEdges": [{"origin": nid[i], "destination": d} for d in sorted(nid[s] for s in by_pair[i])],
                "outEdges": [{"origin": nid[i], "destination": d} for d in sorted(nid[t] for t in feeds[i])],
            }
        )
    return {"graph": sorted(graph, key=lambda n: n["id"])}
