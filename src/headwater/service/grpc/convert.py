"""Between protobuf messages and the REST API's models, for either layer's generated module.

The two layers' messages share field names, so one set of functions serves both; what differs is
the NodeType numbering, which ``Layer`` holds. Answers are built from the REST API's response
models (``headwater.service.schemas``), so both APIs say the same thing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import ModuleType
from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from headwater.service import schemas as m
from headwater.store.levels import Level
from headwater.store.types import NodeType, TransformType


class BadField(Exception):
    """A request field the server refuses before anything reaches the store."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field, self.message = field, message


@dataclass(frozen=True)
class Layer:
    """One service's generated module and its NodeType names (``NODE_TYPE_<name>``) per store type."""

    pb: ModuleType
    aliases: Mapping[str, str] = field(default_factory=dict)

    def node_type(self, store_type: str) -> int:
        """The enum number of a store type (UNSPECIFIED for a type this layer cannot name)."""
        name = "NODE_TYPE_" + self.aliases.get(store_type, store_type)
        try:
            return int(self.pb.NodeType.Value(name))
        except ValueError:
            return 0

    def store_type(self, number: int, path: str) -> str:
        """The store type an enum number names; UNSPECIFIED or an unknown number is ``BadField``."""
        try:
            name = self.pb.NodeType.Name(number)
        except ValueError:
            name = ""
        if not name.startswith("NODE_TYPE_") or number == 0:
            raise BadField(path, f"{number} is not a node type ({', '.join(self.type_names())})")
        short = name.removeprefix("NODE_TYPE_")
        back = {v: k for k, v in self.aliases.items()}
        return back.get(short, short)

    def type_names(self) -> list[str]:
        return [n for n in self.pb.NodeType.keys() if n != "NODE_TYPE_UNSPECIFIED"]  # noqa: SIM118


# ---------------------------------------------------------------- requests


def node_ref(value: str, path: str) -> str:
    if not value.strip():
        raise BadField(path, "missing: give a name, table.column, TYPE:name or #id")
    return value


def as_of(msg: Message, name: str = "as_of_time") -> datetime | None:
    """A Timestamp field as an aware datetime, None when unset."""
    if not msg.HasField(name):
        return None
    return getattr(msg, name).ToDatetime(tzinfo=UTC)  # type: ignore[no-any-return]


def bounded(msg: Message, name: str, default: int | None, low: int, high: int | None) -> int | None:
    """An ``optional int32`` field within the REST API's bounds; ``default`` when unset."""
    if not msg.HasField(name):
        return default
    value = int(getattr(msg, name))
    if value < low or (high is not None and value > high):
        upper = f" and {high}" if high is not None else ""
        raise BadField(name, f"{value} is out of range: give a number between {low}{upper}")
    return value


def offset(msg: Message) -> int:
    value = int(msg.offset)  # type: ignore[attr-defined]
    if value < 0:
        raise BadField("offset", f"{value} is negative")
    return value


def field_level(layer: Layer, value: int) -> Level | None:
    """A ``FieldLevel`` as the REST API's ``level`` (None when unspecified: the REST default)."""
    if value == 0:
        return None
    try:
        name = layer.pb.FieldLevel.Name(value)
    except ValueError:
        raise BadField("level", f"{value} is not a FieldLevel") from None
    return Level(name.removeprefix("FIELD_LEVEL_").lower())


def type_filter(layer: Layer, values: Iterable[int]) -> list[NodeType] | None:
    out = [NodeType(layer.store_type(v, f"node_type_filter[{k}]")) for k, v in enumerate(values)]
    return out or None


def nul_field(msg: Message, prefix: str = "") -> str | None:
    """The path of the first string (or map key) in ``msg`` holding a NUL character.

    No name can hold one and PostgreSQL cannot store or compare one: the REST API refuses them too.
    """
    for fd, value in msg.ListFields():
        path = f"{prefix}{fd.name}"
        if fd.message_type is not None and fd.message_type.GetOptions().map_entry:
            vfd = fd.message_type.fields_by_name["value"]
            for key, item in value.items():
                if "\x00" in str(key):
                    return f"{path}[{key!r}]"
                if vfd.type == FieldDescriptor.TYPE_STRING and "\x00" in item:
                    return f"{path}[{key!r}]"
                if vfd.type == FieldDescriptor.TYPE_MESSAGE and (found := nul_field(item, f"{path}[{key!r}].")):
                    return found
            continue
        items = list(value) if fd.is_repeated else [value]
        for k, item in enumerate(items):
            at = f"{path}[{k}]" if fd.is_repeated else path
            if fd.type == FieldDescriptor.TYPE_STRING and "\x00" in item:
                return at
            if fd.type == FieldDescriptor.TYPE_MESSAGE and (found := nul_field(item, at + ".")):
                return found
    return None


def _dataset_ref(layer: Layer, ref: Message, path: str) -> dict[str, Any]:
    typ = NodeType.DATASET.value if ref.type == 0 else layer.store_type(ref.type, f"{path}.type")  # type: ignore[attr-defined]
    return {
        "name": ref.name,  # type: ignore[attr-defined]
        "namespace": ref.namespace or "default",  # type: ignore[attr-defined]
        "type": typ,
        "fields": list(ref.fields),  # type: ignore[attr-defined]
    }


def _field_ref(layer: Layer, ref: Message, path: str) -> dict[str, Any]:
    return {"dataset": _dataset_ref(layer, ref.dataset, f"{path}.dataset"), "field": ref.field}  # type: ignore[attr-defined]


def _transform(layer: Layer, number: int, path: str) -> str:
    if number == 0:
        return TransformType.DIRECT.value
    try:
        return str(layer.pb.TransformType.Name(number)).removeprefix("TRANSFORM_TYPE_")
    except ValueError:
        names = ", ".join(n for n in layer.pb.TransformType.keys() if n != "TRANSFORM_TYPE_UNSPECIFIED")  # noqa: SIM118
        raise BadField(path, f"{number} is not a transform type ({names})") from None


def record_request(layer: Layer, req: Message) -> dict[str, Any]:
    """A RecordLineageRequest as the REST API's ``POST /record`` body."""
    c = req.context  # type: ignore[attr-defined]
    duration = -1
    if c.HasField("duration"):
        duration = c.duration.ToMilliseconds()
    context = {
        "pipeline_id": c.pipeline_id,
        "execution_id": c.execution_id,
        "step_id": c.step_id,
        "step_name": c.step_name,
        "user_id": c.user_id,
        "timestamp": as_of(c, "timestamp"),
        "duration_ms": duration,
    }
    maps = []
    for k, f in enumerate(req.field_mappings):  # type: ignore[attr-defined]
        path = f"field_mappings[{k}]"
        maps.append(
            {
                "source_fields": [
                    _field_ref(layer, s, f"{path}.source_fields[{j}]") for j, s in enumerate(f.source_fields)
                ],
                "target_field": _field_ref(layer, f.target_field, f"{path}.target_field"),
                "transform_expression": f.transform_expression,
                "transform_type": _transform(layer, f.transform_type, f"{path}.transform_type"),
                "properties": dict(f.properties),
            }
        )
    return {
        "context": context,
        "inputs": [_dataset_ref(layer, r, f"inputs[{k}]") for k, r in enumerate(req.inputs)],  # type: ignore[attr-defined]
        "outputs": [_dataset_ref(layer, r, f"outputs[{k}]") for k, r in enumerate(req.outputs)],  # type: ignore[attr-defined]
        "field_mappings": maps,
        "metadata": dict(req.metadata),  # type: ignore[attr-defined]
    }


# ---------------------------------------------------------------- answers


def ref(node_id: int | None) -> str:
    """How an answer names a node: ``#id``, which every request field takes back."""
    return "" if node_id is None else f"#{node_id}"


def _time(target: Any, value: datetime | None) -> None:
    if value is not None:
        target.FromDatetime(value if value.tzinfo else value.replace(tzinfo=UTC))


def node(layer: Layer, n: m.Node, out: Any = None) -> Any:
    out = layer.pb.LineageNode() if out is None else out
    out.node_id = ref(n.id)
    out.type = layer.node_type(n.type)
    out.name = n.name
    out.short_name = n.short
    out.parent_id = ref(n.parent_id)
    if n.depth is not None:
        out.depth = n.depth
    out.properties.update(n.properties)
    out.headwater_type = n.type
    return out


def edge(layer: Layer, e: m.Edge, out: Any = None) -> Any:
    out = layer.pb.LineageEdge() if out is None else out
    out.edge_id = str(e.id)
    try:
        out.type = layer.pb.EdgeType.Value("EDGE_TYPE_" + e.type)
    except ValueError:
        out.type = 0
    out.source_id = ref(e.source)
    out.target_id = ref(e.target)
    out.subtype = e.subtype or ""
    out.dependency = e.dependency or ""
    out.expression = e.expression or ""
    out.labels.extend(e.labels)
    out.masking = e.masking
    out.job_id = ref(e.job_id)
    _time(out.valid_from, e.valid_from)
    _time(out.valid_to, e.valid_to)
    return out


def graph(layer: Layer, g: m.LineageGraph, cls: type[Any]) -> Any:
    out = cls(
        root_node_id=ref(g.root.id),
        total_nodes=g.total_nodes,
        total_edges=g.total_edges,
        truncated=g.truncated,
        offset=g.offset,
        limit=g.limit or 0,
        cut_by=g.cut_by,
        more_at_depth=g.more_at_depth,
        more_by_type=g.more_by_type,
        hidden_by_type=g.hidden_by_type,
    )
    if g.depth_needed is not None:
        out.depth_needed = g.depth_needed
    for n in g.nodes:
        node(layer, n, out.nodes.add())
    for e in g.edges:
        edge(layer, e, out.edges.add())
    for b in g.bridges:
        item = out.bridges.add(source_id=ref(b.source), target_id=ref(b.target), dependency=b.dependency or "")
        for v in b.via:
            node(layer, v, item.via.add())
    return out


def _paths(layer: Layer, paths: Iterable[m.FieldPath], into: Any) -> None:
    for p in paths:
        item = into.add()
        node(layer, p.field, item.field)
        item.depth = p.depth
        for e in p.path:
            edge(layer, e, item.path.add())
        item.types.extend(p.types)
        item.dependency = p.dependency


def field_origin(layer: Layer, r: m.FieldOrigin, cls: type[Any]) -> Any:
    out = cls(total=r.total, truncated=r.truncated, include_indirect=r.include_indirect, level=r.level)
    node(layer, r.field, out.field)
    _paths(layer, r.origins, out.origins)
    return out


def field_impact(layer: Layer, r: m.FieldImpact, cls: type[Any]) -> Any:
    out = cls(
        total=r.total,
        direct_count=r.direct_count,
        indirect_count=r.indirect_count,
        truncated=r.truncated,
        level=r.level,
    )
    node(layer, r.field, out.field)
    _paths(layer, r.impacted, out.impacted)
    return out


def trace(layer: Layer, r: m.TraceResult, cls: type[Any]) -> Any:
    out = cls(total_sources=r.total_sources, truncated=r.truncated)
    node(layer, r.root, out.root)
    for s in r.source_systems:
        node(layer, s, out.source_systems.add())
    seen: set[int] = set()
    for o in r.origins:
        item = out.origins.add()
        node(layer, o.origin, item.origin)
        if o.system is not None:
            node(layer, o.system, item.system)
        item.depth = o.depth
        for e in o.path:
            edge(layer, e, item.path.add())
            if e.id not in seen:
                seen.add(e.id)
                edge(layer, e, out.paths.add())
    return out


def _severity(layer: Layer, name: str) -> int:
    return int(layer.pb.ImpactSeverity.Value("IMPACT_SEVERITY_" + name))


def impact(layer: Layer, r: m.ImpactAnalysis, cls: type[Any]) -> Any:
    out = cls(
        analysis_id=r.analysis_id,
        total_affected_count=r.total_affected_count,
        overall_severity=_severity(layer, r.overall_severity),
        risk_level=r.risk_level,
        change_type=r.change_type,
        truncated=r.truncated,
    )
    node(layer, r.target, out.target)
    for g in r.groups:
        out.groups.add(
            type=layer.node_type(g.type),
            count=g.count,
            sample_node_ids=g.sample_node_ids,
            severity=_severity(layer, g.severity),
            headwater_type=g.type,
        )
    out.details.update(r.details)
    return out


def summary(layer: Layer, r: m.LineageSummary, cls: type[Any]) -> Any:
    out = cls(
        entity_id=ref(r.node.id),
        upstream_count=r.upstream_count,
        downstream_count=r.downstream_count,
        field_count=r.field_count,
        pipeline_count=r.pipeline_count,
        node_type_counts=r.node_type_counts,
        truncated=r.truncated,
    )
    _time(out.last_updated, r.last_updated)
    node(layer, r.node, out.node)
    return out


def stats(r: m.LineageStats, cls: type[Any]) -> Any:
    return cls(**r.model_dump())


def record_result(r: m.RecordResult, cls: type[Any]) -> Any:
    return cls(**r.model_dump())


def delete_result(r: m.DeleteResult, cls: type[Any]) -> Any:
    return cls(**r.model_dump())
