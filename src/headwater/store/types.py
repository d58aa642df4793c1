"""Vocabulary of the lineage graph and the inputs of ``record_lineage``.

``NodeType`` and ``EdgeType`` follow the two LineageService designs the store is modelled on;
``TransformType`` is their field-mapping vocabulary, translated to headwater's direct and
indirect types by ``TRANSFORM_TYPES``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum


class NodeType(StrEnum):
    DATASET = "DATASET"
    FIELD = "FIELD"
    JOB = "JOB"
    STEP = "STEP"
    SOURCE_SYSTEM = "SOURCE_SYSTEM"
    EXTERNAL = "EXTERNAL"
    ENTITY = "ENTITY"
    REPORT = "REPORT"
    MODEL = "MODEL"
    DECISION = "DECISION"


PROCESS_TYPES = frozenset({NodeType.JOB, NodeType.STEP})
"""Nodes that do not count as a level of depth: a dataset → job → dataset hop is depth 1."""

ENTITY_TYPES = frozenset({NodeType.ENTITY, NodeType.REPORT, NodeType.MODEL, NodeType.DECISION})


class EdgeType(StrEnum):
    READ = "READ"
    WRITE = "WRITE"
    CONTAINS = "CONTAINS"
    MAPS_TO = "MAPS_TO"
    DERIVED_FROM = "DERIVED_FROM"
    USED_BY = "USED_BY"
    PRODUCES = "PRODUCES"
    CONSUMES = "CONSUMES"


FLOW_EDGE_TYPES = tuple(t.value for t in EdgeType if t is not EdgeType.CONTAINS)
"""Edges that carry data; CONTAINS is structure and is never followed by lineage queries."""

MAPS_TO_ALL = "MAPS_TO_ALL"
"""Stored edge type, never shown: source field → target dataset, a dataset-level INDIRECT mapping (JOIN,
FILTER, GROUP_BY, SORT) of a job. It stands for one INDIRECT ``MAPS_TO`` from the source field to every
column the same job writes into that dataset (``indirect.py`` expands it in every query)."""

WRITES_FIELD = "WRITES_FIELD"
"""Stored edge type, never shown: target dataset → column, "the job writes this column" for a column no
column-level mapping of the job reaches (a constant), so that its ``MAPS_TO_ALL`` edges reach it too."""

STORAGE_EDGE_TYPES = (MAPS_TO_ALL, WRITES_FIELD)


class Direction(StrEnum):
    UPSTREAM = "UPSTREAM"
    DOWNSTREAM = "DOWNSTREAM"
    BOTH = "BOTH"


class ChangeType(StrEnum):
    SCHEMA_CHANGE = "SCHEMA_CHANGE"
    DATA_UPDATE = "DATA_UPDATE"
    DELETE = "DELETE"


class ImpactSeverity(StrEnum):
    LOW = "LOW"
    MEDIUM = "MEDIUM"
    HIGH = "HIGH"
    CRITICAL = "CRITICAL"

    @property
    def rank(self) -> int:
        return _SEVERITY_RANK[self]


_SEVERITY_RANK = {
    ImpactSeverity.LOW: 1,
    ImpactSeverity.MEDIUM: 2,
    ImpactSeverity.HIGH: 3,
    ImpactSeverity.CRITICAL: 4,
}


class TransformType(StrEnum):
    """The seed design's field-mapping types."""

    DIRECT = "DIRECT"
    AGGREGATE = "AGGREGATE"
    JOIN = "JOIN"
    FILTER = "FILTER"
    UDF = "UDF"
    EXPRESSION = "EXPRESSION"


TRANSFORM_TYPES: Mapping[TransformType, tuple[str, str]] = {
    TransformType.DIRECT: ("IDENTITY", "DIRECT"),
    TransformType.AGGREGATE: ("AGGREGATION", "DIRECT"),
    TransformType.EXPRESSION: ("TRANSFORMATION", "DIRECT"),
    TransformType.UDF: ("TRANSFORMATION", "DIRECT"),
    TransformType.JOIN: ("JOIN", "INDIRECT"),
    TransformType.FILTER: ("FILTER", "INDIRECT"),
}
"""TransformType → (MAPS_TO subtype, dependency). UDF also adds the label ``UDF``."""


@dataclass(frozen=True, slots=True)
class ExecutionContext:
    """Who ran what, for lineage another tool reports (the seed's ExecutionContext)."""

    pipeline_id: str
    execution_id: str = ""
    step_id: str = ""
    step_name: str = ""
    user_id: str = ""
    timestamp: datetime | str | None = None
    duration_ms: int = -1


@dataclass(frozen=True, slots=True)
class DatasetRef:
    """A dataset (or entity-side node) by name, in a namespace (its source system).

    ``type`` is one of DATASET, EXTERNAL, ENTITY, REPORT, MODEL, DECISION.
    """

    name: str
    namespace: str = "default"
    type: NodeType = NodeType.DATASET
    fields: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class FieldRef:
    dataset: DatasetRef
    field: str


@dataclass(frozen=True, slots=True)
class FieldMapping:
    """Many source fields → one target field (the seed's FieldMapping)."""

    source_fields: tuple[FieldRef, ...]
    target_field: FieldRef
    transform_expression: str = ""
    transform_type: TransformType = TransformType.DIRECT
    properties: Mapping[str, str] = field(default_factory=dict)
