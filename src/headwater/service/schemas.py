"""The API's request and response models (pydantic), mirroring ``headwater.store.results``."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from headwater.store.types import ChangeType, NodeType, TransformType

_S = "internal.lineage_demo."


def _cfg(example: dict[str, Any] | None = None) -> ConfigDict:
    extra = {"examples": [example]} if example else None
    return ConfigDict(from_attributes=True, json_schema_extra=extra)


class Node(BaseModel):
    model_config = _cfg(
        {
            "id": 7,
            "type": "FIELD",
            "name": _S + "lineage_orders.amount",
            "short": "lineage_orders.amount",
            "parent_id": 4,
            "depth": -1,
            "properties": {},
        }
    )
    id: int
    type: str = Field(
        description="DATASET, FIELD, JOB, PIPELINE, PIPELINE_STEP, SOURCE_SYSTEM, EXTERNAL, SCHEMA, ENTITY, REASONING, "
        "REPORT, MODEL, DECISION"
    )
    name: str = Field(description="normalised full name, e.g. catalog.db.table.column")
    short: str = Field(description="table, or table.column: what lookups by short name match")
    parent_id: int | None = None
    depth: int | None = Field(None, description="signed distance from the root: negative upstream")
    properties: dict[str, Any] = {}


class Edge(BaseModel):
    model_config = _cfg(
        {
            "id": 31,
            "type": "MAPS_TO",
            "source": 7,
            "target": 12,
            "subtype": "AGGREGATION",
            "dependency": "DIRECT",
            "expression": "SUM(lineage_orders.amount)",
            "labels": ["SUM"],
            "masking": False,
            "job_id": 3,
            "valid_from": "2024-05-01T10:00:00Z",
            "valid_to": None,
        }
    )
    id: int
    type: str = Field(
        description="READ, WRITE, CONTAINS, MAPS_TO, DERIVED_FROM, USED_BY, TRANSFORMED_BY, INFERRED_FROM, "
        "SUPPORTED_BY, TRIGGERED_BY, PRODUCES, CONSUMES"
    )
    source: int = Field(description="upstream node id (edges are in data-flow orientation)")
    target: int = Field(description="downstream node id")
    subtype: str | None = Field(None, description="MAPS_TO: IDENTITY/TRANSFORMATION/AGGREGATION or an indirect type")
    dependency: str | None = Field(None, description="MAPS_TO: DIRECT or INDIRECT")
    expression: str | None = None
    labels: list[str] = []
    masking: bool = False
    job_id: int | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = Field(None, description="null while the edge is valid")


class Bridge(BaseModel):
    model_config = _cfg()
    source: int = Field(description="upstream shown node id")
    target: int = Field(description="downstream shown node id")
    via: list[Node] = Field(description="the hidden nodes between them, in data-flow order")
    dependency: str | None = Field(None, description="field paths: DIRECT when every mapping on it is")


class LineageGraph(BaseModel):
    model_config = _cfg(
        {
            "root": Node.model_config["json_schema_extra"]["examples"][0],  # type: ignore[index]
            "direction": "UPSTREAM",
            "nodes": [],
            "edges": [],
            "total_nodes": 1,
            "total_edges": 0,
            "truncated": False,
            "offset": 0,
            "limit": 500,
        }
    )
    root: Node
    direction: str
    nodes: list[Node]
    edges: list[Edge]
    total_nodes: int
    total_edges: int
    truncated: bool = Field(description="the answer is partial: the depth or the node cap left nodes out (`cut_by`)")
    offset: int = 0
    limit: int | None = None
    cut_by: list[str] = Field([], description="what left nodes out: `depth` (see `more_at_depth`), `max_nodes`")
    more_at_depth: int = Field(0, description="nodes of the asked types beyond `max_depth` (counted up to 1,000)")
    more_by_type: dict[str, int] = Field({}, description="`more_at_depth` by node type")
    depth_needed: int | None = Field(None, description="the depth that reaches every node beyond (null: unknown)")
    hidden_by_type: int = Field(0, description="nodes reached but not of `node_types`, bridged over by `bridges`")
    bridges: list[Bridge] = Field([], description="with `node_types`: paths between shown nodes via hidden ones")


class FieldPath(BaseModel):
    model_config = _cfg()
    field: Node
    depth: int
    path: list[Edge] = Field(description="edges between the two fields, in data-flow order")
    types: list[str] = Field(description="the subtype of each edge on the path")
    dependency: str = Field(
        description="the strongest dependency over every path: DIRECT when some path of DIRECT mappings links the "
        "two fields (the path given is one), else INDIRECT"
    )


class FieldOrigin(BaseModel):
    model_config = _cfg()
    field: Node
    origins: list[FieldPath]
    total: int
    truncated: bool
    include_indirect: bool = Field(description="level is all (the former flag)")
    level: str = Field("field", description="direct, field or all: which mappings were followed")


class FieldImpact(BaseModel):
    model_config = _cfg()
    field: Node
    impacted: list[FieldPath]
    total: int
    direct_count: int
    indirect_count: int
    truncated: bool
    level: str = Field("field", description="direct, field or all: which mappings were followed")


class OriginPath(BaseModel):
    model_config = _cfg()
    origin: Node
    system: Node | None
    depth: int
    path: list[Edge]


class TraceResult(BaseModel):
    model_config = _cfg()
    root: Node
    source_systems: list[Node]
    origins: list[OriginPath]
    total_sources: int
    truncated: bool


class ImpactGroup(BaseModel):
    model_config = _cfg()
    type: str
    count: int
    sample_node_ids: list[str]
    severity: str = Field(description="LOW, MEDIUM, HIGH or CRITICAL")


class ImpactAnalysis(BaseModel):
    model_config = _cfg(
        {
            "analysis_id": "3d7287d6-6bac-429a-b99a-580be66619dc",
            "target": Node.model_config["json_schema_extra"]["examples"][0],  # type: ignore[index]
            "change_type": "SCHEMA_CHANGE",
            "total_affected_count": 11,
            "groups": [
                {
                    "type": "FIELD",
                    "count": 7,
                    "sample_node_ids": [_S + "lineage_customer_summary.customer_id"],
                    "severity": "CRITICAL",
                }
            ],
            "overall_severity": "CRITICAL",
            "risk_level": "critical",
            "truncated": False,
            "details": {"operation": "DROP_COLUMN", "rules": "DESTRUCTIVE"},
        }
    )
    analysis_id: str
    target: Node
    change_type: str
    total_affected_count: int
    groups: list[ImpactGroup]
    overall_severity: str
    risk_level: str
    truncated: bool
    details: dict[str, Any] = {}


class AnalyzeImpactRequest(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "target": "lineage_orders.customer_id",
                    "change_type": "SCHEMA_CHANGE",
                    "details": {"operation": "DROP_COLUMN"},
                }
            ]
        }
    )
    target: str = Field(description="a dataset or field (full name, short name or #id)")
    change_type: ChangeType = ChangeType.SCHEMA_CHANGE
    details: dict[str, Any] = Field(default_factory=dict, description="columns: [...], operation: DROP_COLUMN|...")
    as_of: datetime | None = None
    sample_size: int = Field(5, ge=0, le=100)


class LineageSummary(BaseModel):
    model_config = _cfg(
        {
            "node": Node.model_config["json_schema_extra"]["examples"][0],  # type: ignore[index]
            "upstream_count": 3,
            "downstream_count": 2,
            "field_count": 5,
            "pipeline_count": 2,
            "last_updated": "2024-05-01T10:00:00Z",
            "node_type_counts": {"DATASET": 3, "JOB": 2},
            "truncated": False,
        }
    )
    node: Node
    upstream_count: int
    downstream_count: int
    field_count: int
    pipeline_count: int
    last_updated: datetime | None
    node_type_counts: dict[str, int]
    truncated: bool = False


class LineageStats(BaseModel):
    model_config = _cfg(
        {
            "total_nodes": 20,
            "total_edges": 69,
            "total_field_mappings": 47,
            "nodes_by_type": {"DATASET": 4, "FIELD": 13, "JOB": 2, "SOURCE_SYSTEM": 1},
            "edges_by_type": {"CONTAINS": 17, "MAPS_TO": 47, "READ": 3, "WRITE": 2},
            "events_recorded": 2,
        }
    )
    total_nodes: int
    total_edges: int
    total_field_mappings: int
    nodes_by_type: dict[str, int]
    edges_by_type: dict[str, int]
    events_recorded: int


class DeleteResult(BaseModel):
    model_config = _cfg({"edges_closed": 4, "edges_purged": 0, "events_deleted": 1})
    edges_closed: int
    edges_purged: int
    events_deleted: int


class RecordResult(BaseModel):
    model_config = _cfg(
        {
            "recorded": 1,
            "duplicates": 0,
            "edges_opened": 64,
            "edges_closed": 0,
            "event_ids": ["0f0b5a84-7d55-5b2c-9d7c-3f3a1d4f1c11"],
        }
    )
    recorded: int
    duplicates: int
    edges_opened: int
    edges_closed: int
    event_ids: list[str]


class ExecutionContextIn(BaseModel):
    pipeline_id: str = ""
    execution_id: str = ""
    step_id: str = ""
    step_name: str = ""
    user_id: str = ""
    timestamp: datetime | None = None
    duration_ms: int = -1


class DatasetRefIn(BaseModel):
    name: str = Field(min_length=1)
    namespace: str = "default"
    type: NodeType = NodeType.DATASET
    fields: list[str] = []


class FieldRefIn(BaseModel):
    dataset: DatasetRefIn
    field: str = Field(min_length=1)


class FieldMappingIn(BaseModel):
    source_fields: list[FieldRefIn]
    target_field: FieldRefIn
    transform_expression: str = ""
    transform_type: TransformType = TransformType.DIRECT
    properties: dict[str, str] = {}


class RecordLineageRequest(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "context": {
                        "pipeline_id": "etl",
                        "execution_id": "e-42",
                        "step_id": "load",
                        "timestamp": "2024-06-01T00:00:00Z",
                    },
                    "inputs": [{"name": "raw.orders", "namespace": "pg"}],
                    "outputs": [{"name": "mart.revenue", "namespace": "dw"}],
                    "field_mappings": [
                        {
                            "source_fields": [{"dataset": {"name": "raw.orders", "namespace": "pg"}, "field": "price"}],
                            "target_field": {
                                "dataset": {"name": "mart.revenue", "namespace": "dw"},
                                "field": "revenue",
                            },
                            "transform_expression": "price * qty",
                            "transform_type": "EXPRESSION",
                        }
                    ],
                    "metadata": {"team": "finance"},
                }
            ]
        }
    )
    context: ExecutionContextIn
    inputs: list[DatasetRefIn] = []
    outputs: list[DatasetRefIn] = []
    field_mappings: list[FieldMappingIn] = []
    metadata: dict[str, str] = {}


class ErrorDetail(BaseModel):
    field: str = Field(description="the offending field, e.g. query.node or body.inputs[0].name")
    message: str
    candidates: list[str] | None = None


class ErrorResponse(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={"examples": [{"error": {"field": "query.node", "message": "no node matches 'nope'"}}]}
    )
    error: ErrorDetail


class JobVersion(BaseModel):
    model_config = _cfg()
    version: int = Field(description="1 for the first version")
    fingerprint: str | None = Field(description="the normalised statement (comments, literals, case and blanks aside)")
    valid_from: datetime | None = Field(description="the version's first run")
    valid_to: datetime | None = Field(description="when the next version (or the closing) replaced it; null: current")
    runs: int
    last_seen: datetime | None
    sql: str | None = Field(description="the statement of the version's latest run")
    file: str | None = Field(description="the project file, relative to the project root")
    line: int | None = Field(description="the statement's first line in that file")
    event_id: str = Field(description="the event of the version's latest run")


class JobHistory(BaseModel):
    model_config = _cfg()
    job: Node
    name: str = Field(description="the job's name: file#ordinal, a given name, or the fingerprint fallback")
    first_seen: datetime | None
    last_seen: datetime | None
    runs: int
    file: str | None = Field(description="the project file of its latest statement; null: query log, OpenLineage …")
    line: int | None
    closed: datetime | None = Field(description="when it was closed (removed from its file, or expired); null: current")
    versions: list[JobVersion] = Field(description="oldest first")


class ClosedJobs(BaseModel):
    model_config = _cfg()
    jobs: list[str] = Field(description="names of the jobs closed")
    edges_closed: int
