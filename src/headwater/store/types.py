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
    """What a node is (``docs/store.md`` maps them to the seed design's numbered enums)."""

    DATASET = "DATASET"
    """A table or view."""
    FIELD = "FIELD"
    """A column of a dataset (or of an entity-side node recorded with fields)."""
    JOB = "JOB"
    """One SQL statement, or an OpenLineage job."""
    PIPELINE = "PIPELINE"
    """An orchestrated pipeline another tool reports (``record_lineage`` with ``pipeline_id``)."""
    PIPELINE_STEP = "PIPELINE_STEP"
    """A step of a pipeline (``record_lineage`` with ``step_id``), contained in its PIPELINE."""
    SOURCE_SYSTEM = "SOURCE_SYSTEM"
    """A catalog, cluster or namespace holding datasets."""
    EXTERNAL = "EXTERNAL"
    """A data source outside the warehouse (a file drop, an API)."""
    SCHEMA = "SCHEMA"
    """A schema definition: a registry subject, a data contract, a DDL file."""
    ENTITY = "ENTITY"
    """An instance of a business entity (a customer, an account)."""
    REASONING = "REASONING"
    """An inference over entities or data: a score, a rule evaluation, a model's output."""
    REPORT = "REPORT"
    """A report or dashboard."""
    MODEL = "MODEL"
    """A model (machine learning or semantic)."""
    DECISION = "DECISION"
    """A decision taken on the data (an approval, an offer, a block)."""


PROCESS_TYPES = frozenset({NodeType.JOB, NodeType.PIPELINE, NodeType.PIPELINE_STEP})
"""Nodes that do not count as a level of depth: a dataset → job → dataset hop is depth 1."""

ENTITY_TYPES = frozenset({NodeType.ENTITY, NodeType.REASONING, NodeType.REPORT, NodeType.MODEL, NodeType.DECISION})
"""Entity-side nodes: connected to a pipeline by CONSUMES / PRODUCES rather than READ / WRITE."""

RECORDABLE_TYPES = frozenset({NodeType.DATASET, NodeType.EXTERNAL, NodeType.SCHEMA, *ENTITY_TYPES})
"""The types a ``DatasetRef`` may have (an input or output of ``record_lineage``)."""


class EdgeType(StrEnum):
    """What an edge says; every edge is stored upstream → downstream whatever its verb."""

    READ = "READ"
    """dataset → job, pipeline or step."""
    WRITE = "WRITE"
    """job, pipeline or step → dataset."""
    CONTAINS = "CONTAINS"
    """Structure: system → dataset → field, pipeline → step."""
    MAPS_TO = "MAPS_TO"
    """field → field."""
    DERIVED_FROM = "DERIVED_FROM"
    """input → the output derived from it."""
    USED_BY = "USED_BY"
    """input → the REPORT or DECISION using it."""
    TRANSFORMED_BY = "TRANSFORMED_BY"
    """input → the output it was transformed into by a process the recording does not name."""
    INFERRED_FROM = "INFERRED_FROM"
    """evidence → the REASONING inferred from it."""
    SUPPORTED_BY = "SUPPORTED_BY"
    """REASONING → the DECISION it supports."""
    TRIGGERED_BY = "TRIGGERED_BY"
    """a trigger (an event, a decision) → what it set off."""
    PRODUCES = "PRODUCES"
    """pipeline, step or job → the entity-side node it produces."""
    CONSUMES = "CONSUMES"
    """entity-side node → the pipeline, step or job consuming it."""


DIRECT_EDGE_TYPES = frozenset(
    {
        EdgeType.DERIVED_FROM,
        EdgeType.USED_BY,
        EdgeType.TRANSFORMED_BY,
        EdgeType.INFERRED_FROM,
        EdgeType.SUPPORTED_BY,
        EdgeType.TRIGGERED_BY,
    }
)
"""Edges ``record_lineage`` draws straight from an input to an output when no pipeline is named."""


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

    ``type`` is one of ``RECORDABLE_TYPES``: DATASET, EXTERNAL, SCHEMA, ENTITY, REASONING, REPORT,
    MODEL, DECISION.
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
