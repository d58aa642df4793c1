"""What the queries return: plain, immutable dataclasses (the service mirrors them in pydantic)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


@dataclass(frozen=True, slots=True)
class NodeInfo:
    """A node; ``depth`` is signed in lineage answers (negative upstream, positive downstream)."""

    id: int
    type: str
    name: str
    short: str
    parent_id: int | None = None
    depth: int | None = None
    properties: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class EdgeInfo:
    """An edge in data-flow orientation: ``source`` upstream of ``target``."""

    id: int
    type: str
    source: int
    target: int
    subtype: str | None = None
    dependency: str | None = None
    expression: str | None = None
    labels: tuple[str, ...] = ()
    masking: bool = False
    job_id: int | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None


@dataclass(frozen=True, slots=True)
class Bridge:
    """A path between two shown nodes through nodes a type filter hides (``via``, in flow order)."""

    source: int
    target: int
    via: list[NodeInfo]
    dependency: str | None = None


@dataclass(frozen=True, slots=True)
class LineageGraph:
    """The graph around ``root``. ``truncated``: the answer is partial, cut by ``max_depth`` (then
    ``more_at_depth`` nodes of the asked types lie beyond it, all within ``depth_needed`` when known)
    or by the node cap; ``cut_by`` says which. ``hidden_by_type``: nodes reached but not of the asked
    types, bridged over by ``bridges``."""

    root: NodeInfo
    direction: str
    nodes: list[NodeInfo]
    edges: list[EdgeInfo]
    total_nodes: int
    total_edges: int
    truncated: bool
    offset: int = 0
    limit: int | None = None
    cut_by: list[str] = field(default_factory=list)
    more_at_depth: int = 0
    more_by_type: dict[str, int] = field(default_factory=dict)
    depth_needed: int | None = None
    hidden_by_type: int = 0
    bridges: list[Bridge] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class FieldPath:
    """A field reached from the queried one, with the edges between them in data-flow order."""

    field: NodeInfo
    depth: int
    path: list[EdgeInfo]
    types: list[str]
    dependency: str = "DIRECT"


@dataclass(frozen=True, slots=True)
class FieldOrigin:
    field: NodeInfo
    origins: list[FieldPath]
    total: int
    truncated: bool
    include_indirect: bool = False
    level: str = "field"


@dataclass(frozen=True, slots=True)
class FieldImpact:
    field: NodeInfo
    impacted: list[FieldPath]
    total: int
    direct_count: int
    indirect_count: int
    truncated: bool
    level: str = "field"


@dataclass(frozen=True, slots=True)
class OriginPath:
    """A root reached upstream, the source system that holds it, and the edges to it."""

    origin: NodeInfo
    system: NodeInfo | None
    depth: int
    path: list[EdgeInfo]


@dataclass(frozen=True, slots=True)
class TraceResult:
    root: NodeInfo
    source_systems: list[NodeInfo]
    origins: list[OriginPath]
    total_sources: int
    truncated: bool


@dataclass(frozen=True, slots=True)
class ImpactGroup:
    type: str
    count: int
    sample_node_ids: list[str]
    severity: str


@dataclass(frozen=True, slots=True)
class ImpactAnalysis:
    analysis_id: str
    target: NodeInfo
    change_type: str
    total_affected_count: int
    groups: list[ImpactGroup]
    overall_severity: str
    risk_level: str
    truncated: bool
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class LineageSummary:
    node: NodeInfo
    upstream_count: int
    downstream_count: int
    field_count: int
    pipeline_count: int
    last_updated: datetime | None
    node_type_counts: dict[str, int]
    truncated: bool = False


@dataclass(frozen=True, slots=True)
class LineageStats:
    total_nodes: int
    total_edges: int
    total_field_mappings: int
    nodes_by_type: dict[str, int]
    edges_by_type: dict[str, int]
    events_recorded: int


@dataclass(frozen=True, slots=True)
class DeleteResult:
    edges_closed: int
    edges_purged: int
    events_deleted: int
