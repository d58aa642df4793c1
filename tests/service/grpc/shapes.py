"""gRPC answers in the REST API's JSON shape, so that tests compare the two APIs field by field."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from google.protobuf.json_format import MessageToDict


def _id(ref: str) -> int | None:
    assert ref == "" or ref.startswith("#"), ref
    return int(ref[1:]) if ref else None


def _time(msg: Any, name: str) -> str | None:
    if not msg.HasField(name):
        return None
    return getattr(msg, name).ToDatetime(tzinfo=UTC).isoformat()


def rest_time(value: str | None) -> str | None:
    return None if value is None else datetime.fromisoformat(value.replace("Z", "+00:00")).isoformat()


def node(n: Any) -> dict[str, Any]:
    return {
        "id": _id(n.node_id),
        "type": n.headwater_type,
        "name": n.name,
        "short": n.short_name,
        "parent_id": _id(n.parent_id),
        "depth": n.depth if n.HasField("depth") else None,
        "properties": MessageToDict(n.properties),
    }


def edge(e: Any) -> dict[str, Any]:
    return {
        "id": int(e.edge_id),
        "type": e.DESCRIPTOR.fields_by_name["type"].enum_type.values_by_number[e.type].name.removeprefix("EDGE_TYPE_"),
        "source": _id(e.source_id),
        "target": _id(e.target_id),
        "subtype": e.subtype or None,
        "dependency": e.dependency or None,
        "expression": e.expression or None,
        "labels": list(e.labels),
        "masking": e.masking,
        "job_id": _id(e.job_id),
        "valid_from": _time(e, "valid_from"),
        "valid_to": _time(e, "valid_to"),
    }


def rest_edge(e: dict[str, Any]) -> dict[str, Any]:
    return {**e, "valid_from": rest_time(e["valid_from"]), "valid_to": rest_time(e["valid_to"])}


def graph(g: Any) -> dict[str, Any]:
    return {
        "root": node(g.nodes[0]) if g.offset == 0 and g.nodes else None,
        "nodes": [node(n) for n in g.nodes],
        "edges": [edge(e) for e in g.edges],
        "total_nodes": g.total_nodes,
        "total_edges": g.total_edges,
        "truncated": g.truncated,
        "offset": g.offset,
        "limit": g.limit,
        **cut(g),
    }


def cut(g: Any) -> dict[str, Any]:
    """What a cut left out, in the REST API's names."""
    return {
        "cut_by": list(g.cut_by),
        "more_at_depth": g.more_at_depth,
        "more_by_type": dict(g.more_by_type),
        "depth_needed": g.depth_needed if g.HasField("depth_needed") else None,
        "hidden_by_type": g.hidden_by_type,
        "bridges": [
            {
                "source": _id(b.source_id),
                "target": _id(b.target_id),
                "via": [node(v) for v in b.via],
                "dependency": b.dependency or None,
            }
            for b in g.bridges
        ],
    }


def rest_graph(r: dict[str, Any]) -> dict[str, Any]:
    return {
        "root": r["root"] if r["offset"] == 0 and r["nodes"] else None,
        "nodes": r["nodes"],
        "edges": [rest_edge(e) for e in r["edges"]],
        "total_nodes": r["total_nodes"],
        "total_edges": r["total_edges"],
        "truncated": r["truncated"],
        "offset": r["offset"],
        "limit": r["limit"],
        **{k: r[k] for k in ("cut_by", "more_at_depth", "more_by_type", "depth_needed", "hidden_by_type", "bridges")},
    }


def paths(items: Any) -> list[dict[str, Any]]:
    return [
        {
            "field": node(p.field),
            "depth": p.depth,
            "path": [edge(e) for e in p.path],
            "types": list(p.types),
            "dependency": p.dependency,
        }
        for p in items
    ]


def rest_paths(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**p, "path": [rest_edge(e) for e in p["path"]]} for p in items]
