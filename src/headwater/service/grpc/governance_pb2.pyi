import datetime

from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class NodeType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    NODE_TYPE_UNSPECIFIED: _ClassVar[NodeType]
    NODE_TYPE_ENTITY: _ClassVar[NodeType]
    NODE_TYPE_REASONING: _ClassVar[NodeType]
    NODE_TYPE_DECISION: _ClassVar[NodeType]
    NODE_TYPE_PIPELINE: _ClassVar[NodeType]
    NODE_TYPE_SOURCE_SYSTEM: _ClassVar[NodeType]
    NODE_TYPE_SCHEMA: _ClassVar[NodeType]
    NODE_TYPE_REPORT: _ClassVar[NodeType]
    NODE_TYPE_MODEL: _ClassVar[NodeType]
    NODE_TYPE_DATASET: _ClassVar[NodeType]
    NODE_TYPE_PIPELINE_STEP: _ClassVar[NodeType]
    NODE_TYPE_FIELD: _ClassVar[NodeType]
    NODE_TYPE_EXTERNAL: _ClassVar[NodeType]
    NODE_TYPE_JOB: _ClassVar[NodeType]

class EdgeType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EDGE_TYPE_UNSPECIFIED: _ClassVar[EdgeType]
    EDGE_TYPE_DERIVED_FROM: _ClassVar[EdgeType]
    EDGE_TYPE_USED_BY: _ClassVar[EdgeType]
    EDGE_TYPE_TRANSFORMED_BY: _ClassVar[EdgeType]
    EDGE_TYPE_INFERRED_FROM: _ClassVar[EdgeType]
    EDGE_TYPE_SUPPORTED_BY: _ClassVar[EdgeType]
    EDGE_TYPE_TRIGGERED_BY: _ClassVar[EdgeType]
    EDGE_TYPE_READ: _ClassVar[EdgeType]
    EDGE_TYPE_WRITE: _ClassVar[EdgeType]
    EDGE_TYPE_MAPS_TO: _ClassVar[EdgeType]
    EDGE_TYPE_CONTAINS: _ClassVar[EdgeType]
    EDGE_TYPE_PRODUCES: _ClassVar[EdgeType]
    EDGE_TYPE_CONSUMES: _ClassVar[EdgeType]

class FieldLevel(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FIELD_LEVEL_UNSPECIFIED: _ClassVar[FieldLevel]
    FIELD_LEVEL_DIRECT: _ClassVar[FieldLevel]
    FIELD_LEVEL_FIELD: _ClassVar[FieldLevel]
    FIELD_LEVEL_ALL: _ClassVar[FieldLevel]

class LineageDirection(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    LINEAGE_DIRECTION_UNSPECIFIED: _ClassVar[LineageDirection]
    LINEAGE_DIRECTION_UPSTREAM: _ClassVar[LineageDirection]
    LINEAGE_DIRECTION_DOWNSTREAM: _ClassVar[LineageDirection]
    LINEAGE_DIRECTION_BOTH: _ClassVar[LineageDirection]

class ImpactSeverity(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    IMPACT_SEVERITY_UNSPECIFIED: _ClassVar[ImpactSeverity]
    IMPACT_SEVERITY_LOW: _ClassVar[ImpactSeverity]
    IMPACT_SEVERITY_MEDIUM: _ClassVar[ImpactSeverity]
    IMPACT_SEVERITY_HIGH: _ClassVar[ImpactSeverity]
    IMPACT_SEVERITY_CRITICAL: _ClassVar[ImpactSeverity]

class TransformType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TRANSFORM_TYPE_UNSPECIFIED: _ClassVar[TransformType]
    TRANSFORM_TYPE_DIRECT: _ClassVar[TransformType]
    TRANSFORM_TYPE_AGGREGATE: _ClassVar[TransformType]
    TRANSFORM_TYPE_JOIN: _ClassVar[TransformType]
    TRANSFORM_TYPE_FILTER: _ClassVar[TransformType]
    TRANSFORM_TYPE_UDF: _ClassVar[TransformType]
    TRANSFORM_TYPE_EXPRESSION: _ClassVar[TransformType]
NODE_TYPE_UNSPECIFIED: NodeType
NODE_TYPE_ENTITY: NodeType
NODE_TYPE_REASONING: NodeType
NODE_TYPE_DECISION: NodeType
NODE_TYPE_PIPELINE: NodeType
NODE_TYPE_SOURCE_SYSTEM: NodeType
NODE_TYPE_SCHEMA: NodeType
NODE_TYPE_REPORT: NodeType
NODE_TYPE_MODEL: NodeType
NODE_TYPE_DATASET: NodeType
NODE_TYPE_PIPELINE_STEP: NodeType
NODE_TYPE_FIELD: NodeType
NODE_TYPE_EXTERNAL: NodeType
NODE_TYPE_JOB: NodeType
EDGE_TYPE_UNSPECIFIED: EdgeType
EDGE_TYPE_DERIVED_FROM: EdgeType
EDGE_TYPE_USED_BY: EdgeType
EDGE_TYPE_TRANSFORMED_BY: EdgeType
EDGE_TYPE_INFERRED_FROM: EdgeType
EDGE_TYPE_SUPPORTED_BY: EdgeType
EDGE_TYPE_TRIGGERED_BY: EdgeType
EDGE_TYPE_READ: EdgeType
EDGE_TYPE_WRITE: EdgeType
EDGE_TYPE_MAPS_TO: EdgeType
EDGE_TYPE_CONTAINS: EdgeType
EDGE_TYPE_PRODUCES: EdgeType
EDGE_TYPE_CONSUMES: EdgeType
FIELD_LEVEL_UNSPECIFIED: FieldLevel
FIELD_LEVEL_DIRECT: FieldLevel
FIELD_LEVEL_FIELD: FieldLevel
FIELD_LEVEL_ALL: FieldLevel
LINEAGE_DIRECTION_UNSPECIFIED: LineageDirection
LINEAGE_DIRECTION_UPSTREAM: LineageDirection
LINEAGE_DIRECTION_DOWNSTREAM: LineageDirection
LINEAGE_DIRECTION_BOTH: LineageDirection
IMPACT_SEVERITY_UNSPECIFIED: ImpactSeverity
IMPACT_SEVERITY_LOW: ImpactSeverity
IMPACT_SEVERITY_MEDIUM: ImpactSeverity
IMPACT_SEVERITY_HIGH: ImpactSeverity
IMPACT_SEVERITY_CRITICAL: ImpactSeverity
TRANSFORM_TYPE_UNSPECIFIED: TransformType
TRANSFORM_TYPE_DIRECT: TransformType
TRANSFORM_TYPE_AGGREGATE: TransformType
TRANSFORM_TYPE_JOIN: TransformType
TRANSFORM_TYPE_FILTER: TransformType
TRANSFORM_TYPE_UDF: TransformType
TRANSFORM_TYPE_EXPRESSION: TransformType

class LineageNode(_message.Message):
    __slots__ = ("node_id", "type", "name", "short_name", "parent_id", "depth", "properties", "headwater_type")
    NODE_ID_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SHORT_NAME_FIELD_NUMBER: _ClassVar[int]
    PARENT_ID_FIELD_NUMBER: _ClassVar[int]
    DEPTH_FIELD_NUMBER: _ClassVar[int]
    PROPERTIES_FIELD_NUMBER: _ClassVar[int]
    HEADWATER_TYPE_FIELD_NUMBER: _ClassVar[int]
    node_id: str
    type: NodeType
    name: str
    short_name: str
    parent_id: str
    depth: int
    properties: _struct_pb2.Struct
    headwater_type: str
    def __init__(self, node_id: _Optional[str] = ..., type: _Optional[_Union[NodeType, str]] = ..., name: _Optional[str] = ..., short_name: _Optional[str] = ..., parent_id: _Optional[str] = ..., depth: _Optional[int] = ..., properties: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., headwater_type: _Optional[str] = ...) -> None: ...

class LineageEdge(_message.Message):
    __slots__ = ("edge_id", "type", "source_id", "target_id", "subtype", "dependency", "expression", "labels", "masking", "job_id", "valid_from", "valid_to")
    EDGE_ID_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_ID_FIELD_NUMBER: _ClassVar[int]
    TARGET_ID_FIELD_NUMBER: _ClassVar[int]
    SUBTYPE_FIELD_NUMBER: _ClassVar[int]
    DEPENDENCY_FIELD_NUMBER: _ClassVar[int]
    EXPRESSION_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    MASKING_FIELD_NUMBER: _ClassVar[int]
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    VALID_FROM_FIELD_NUMBER: _ClassVar[int]
    VALID_TO_FIELD_NUMBER: _ClassVar[int]
    edge_id: str
    type: EdgeType
    source_id: str
    target_id: str
    subtype: str
    dependency: str
    expression: str
    labels: _containers.RepeatedScalarFieldContainer[str]
    masking: bool
    job_id: str
    valid_from: _timestamp_pb2.Timestamp
    valid_to: _timestamp_pb2.Timestamp
    def __init__(self, edge_id: _Optional[str] = ..., type: _Optional[_Union[EdgeType, str]] = ..., source_id: _Optional[str] = ..., target_id: _Optional[str] = ..., subtype: _Optional[str] = ..., dependency: _Optional[str] = ..., expression: _Optional[str] = ..., labels: _Optional[_Iterable[str]] = ..., masking: _Optional[bool] = ..., job_id: _Optional[str] = ..., valid_from: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., valid_to: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class LineageBridge(_message.Message):
    __slots__ = ("source_id", "target_id", "via", "dependency")
    SOURCE_ID_FIELD_NUMBER: _ClassVar[int]
    TARGET_ID_FIELD_NUMBER: _ClassVar[int]
    VIA_FIELD_NUMBER: _ClassVar[int]
    DEPENDENCY_FIELD_NUMBER: _ClassVar[int]
    source_id: str
    target_id: str
    via: _containers.RepeatedCompositeFieldContainer[LineageNode]
    dependency: str
    def __init__(self, source_id: _Optional[str] = ..., target_id: _Optional[str] = ..., via: _Optional[_Iterable[_Union[LineageNode, _Mapping]]] = ..., dependency: _Optional[str] = ...) -> None: ...

class GetLineageRequest(_message.Message):
    __slots__ = ("entity_id", "direction", "max_depth", "as_of_time", "node_type_filter", "limit", "offset")
    ENTITY_ID_FIELD_NUMBER: _ClassVar[int]
    DIRECTION_FIELD_NUMBER: _ClassVar[int]
    MAX_DEPTH_FIELD_NUMBER: _ClassVar[int]
    AS_OF_TIME_FIELD_NUMBER: _ClassVar[int]
    NODE_TYPE_FILTER_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    entity_id: str
    direction: LineageDirection
    max_depth: int
    as_of_time: _timestamp_pb2.Timestamp
    node_type_filter: _containers.RepeatedScalarFieldContainer[NodeType]
    limit: int
    offset: int
    def __init__(self, entity_id: _Optional[str] = ..., direction: _Optional[_Union[LineageDirection, str]] = ..., max_depth: _Optional[int] = ..., as_of_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., node_type_filter: _Optional[_Iterable[_Union[NodeType, str]]] = ..., limit: _Optional[int] = ..., offset: _Optional[int] = ...) -> None: ...

class GetLineageResponse(_message.Message):
    __slots__ = ("nodes", "edges", "root_node_id", "total_nodes", "total_edges", "truncated", "offset", "limit", "cut_by", "more_at_depth", "more_by_type", "depth_needed", "hidden_by_type", "bridges")
    class MoreByTypeEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    NODES_FIELD_NUMBER: _ClassVar[int]
    EDGES_FIELD_NUMBER: _ClassVar[int]
    ROOT_NODE_ID_FIELD_NUMBER: _ClassVar[int]
    TOTAL_NODES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_EDGES_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    CUT_BY_FIELD_NUMBER: _ClassVar[int]
    MORE_AT_DEPTH_FIELD_NUMBER: _ClassVar[int]
    MORE_BY_TYPE_FIELD_NUMBER: _ClassVar[int]
    DEPTH_NEEDED_FIELD_NUMBER: _ClassVar[int]
    HIDDEN_BY_TYPE_FIELD_NUMBER: _ClassVar[int]
    BRIDGES_FIELD_NUMBER: _ClassVar[int]
    nodes: _containers.RepeatedCompositeFieldContainer[LineageNode]
    edges: _containers.RepeatedCompositeFieldContainer[LineageEdge]
    root_node_id: str
    total_nodes: int
    total_edges: int
    truncated: bool
    offset: int
    limit: int
    cut_by: _containers.RepeatedScalarFieldContainer[str]
    more_at_depth: int
    more_by_type: _containers.ScalarMap[str, int]
    depth_needed: int
    hidden_by_type: int
    bridges: _containers.RepeatedCompositeFieldContainer[LineageBridge]
    def __init__(self, nodes: _Optional[_Iterable[_Union[LineageNode, _Mapping]]] = ..., edges: _Optional[_Iterable[_Union[LineageEdge, _Mapping]]] = ..., root_node_id: _Optional[str] = ..., total_nodes: _Optional[int] = ..., total_edges: _Optional[int] = ..., truncated: _Optional[bool] = ..., offset: _Optional[int] = ..., limit: _Optional[int] = ..., cut_by: _Optional[_Iterable[str]] = ..., more_at_depth: _Optional[int] = ..., more_by_type: _Optional[_Mapping[str, int]] = ..., depth_needed: _Optional[int] = ..., hidden_by_type: _Optional[int] = ..., bridges: _Optional[_Iterable[_Union[LineageBridge, _Mapping]]] = ...) -> None: ...

class GetUpstreamRequest(_message.Message):
    __slots__ = ("entity_id", "max_depth", "as_of_time", "node_type_filter", "limit", "offset")
    ENTITY_ID_FIELD_NUMBER: _ClassVar[int]
    MAX_DEPTH_FIELD_NUMBER: _ClassVar[int]
    AS_OF_TIME_FIELD_NUMBER: _ClassVar[int]
    NODE_TYPE_FILTER_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    entity_id: str
    max_depth: int
    as_of_time: _timestamp_pb2.Timestamp
    node_type_filter: _containers.RepeatedScalarFieldContainer[NodeType]
    limit: int
    offset: int
    def __init__(self, entity_id: _Optional[str] = ..., max_depth: _Optional[int] = ..., as_of_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., node_type_filter: _Optional[_Iterable[_Union[NodeType, str]]] = ..., limit: _Optional[int] = ..., offset: _Optional[int] = ...) -> None: ...

class GetUpstreamResponse(_message.Message):
    __slots__ = ("nodes", "edges", "root_node_id", "total_nodes", "total_edges", "truncated", "offset", "limit", "cut_by", "more_at_depth", "more_by_type", "depth_needed", "hidden_by_type", "bridges")
    class MoreByTypeEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    NODES_FIELD_NUMBER: _ClassVar[int]
    EDGES_FIELD_NUMBER: _ClassVar[int]
    ROOT_NODE_ID_FIELD_NUMBER: _ClassVar[int]
    TOTAL_NODES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_EDGES_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    CUT_BY_FIELD_NUMBER: _ClassVar[int]
    MORE_AT_DEPTH_FIELD_NUMBER: _ClassVar[int]
    MORE_BY_TYPE_FIELD_NUMBER: _ClassVar[int]
    DEPTH_NEEDED_FIELD_NUMBER: _ClassVar[int]
    HIDDEN_BY_TYPE_FIELD_NUMBER: _ClassVar[int]
    BRIDGES_FIELD_NUMBER: _ClassVar[int]
    nodes: _containers.RepeatedCompositeFieldContainer[LineageNode]
    edges: _containers.RepeatedCompositeFieldContainer[LineageEdge]
    root_node_id: str
    total_nodes: int
    total_edges: int
    truncated: bool
    offset: int
    limit: int
    cut_by: _containers.RepeatedScalarFieldContainer[str]
    more_at_depth: int
    more_by_type: _containers.ScalarMap[str, int]
    depth_needed: int
    hidden_by_type: int
    bridges: _containers.RepeatedCompositeFieldContainer[LineageBridge]
    def __init__(self, nodes: _Optional[_Iterable[_Union[LineageNode, _Mapping]]] = ..., edges: _Optional[_Iterable[_Union[LineageEdge, _Mapping]]] = ..., root_node_id: _Optional[str] = ..., total_nodes: _Optional[int] = ..., total_edges: _Optional[int] = ..., truncated: _Optional[bool] = ..., offset: _Optional[int] = ..., limit: _Optional[int] = ..., cut_by: _Optional[_Iterable[str]] = ..., more_at_depth: _Optional[int] = ..., more_by_type: _Optional[_Mapping[str, int]] = ..., depth_needed: _Optional[int] = ..., hidden_by_type: _Optional[int] = ..., bridges: _Optional[_Iterable[_Union[LineageBridge, _Mapping]]] = ...) -> None: ...

class GetDownstreamRequest(_message.Message):
    __slots__ = ("entity_id", "max_depth", "as_of_time", "node_type_filter", "limit", "offset")
    ENTITY_ID_FIELD_NUMBER: _ClassVar[int]
    MAX_DEPTH_FIELD_NUMBER: _ClassVar[int]
    AS_OF_TIME_FIELD_NUMBER: _ClassVar[int]
    NODE_TYPE_FILTER_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    entity_id: str
    max_depth: int
    as_of_time: _timestamp_pb2.Timestamp
    node_type_filter: _containers.RepeatedScalarFieldContainer[NodeType]
    limit: int
    offset: int
    def __init__(self, entity_id: _Optional[str] = ..., max_depth: _Optional[int] = ..., as_of_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., node_type_filter: _Optional[_Iterable[_Union[NodeType, str]]] = ..., limit: _Optional[int] = ..., offset: _Optional[int] = ...) -> None: ...

class GetDownstreamResponse(_message.Message):
    __slots__ = ("nodes", "edges", "root_node_id", "total_nodes", "total_edges", "truncated", "offset", "limit", "cut_by", "more_at_depth", "more_by_type", "depth_needed", "hidden_by_type", "bridges")
    class MoreByTypeEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    NODES_FIELD_NUMBER: _ClassVar[int]
    EDGES_FIELD_NUMBER: _ClassVar[int]
    ROOT_NODE_ID_FIELD_NUMBER: _ClassVar[int]
    TOTAL_NODES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_EDGES_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    CUT_BY_FIELD_NUMBER: _ClassVar[int]
    MORE_AT_DEPTH_FIELD_NUMBER: _ClassVar[int]
    MORE_BY_TYPE_FIELD_NUMBER: _ClassVar[int]
    DEPTH_NEEDED_FIELD_NUMBER: _ClassVar[int]
    HIDDEN_BY_TYPE_FIELD_NUMBER: _ClassVar[int]
    BRIDGES_FIELD_NUMBER: _ClassVar[int]
    nodes: _containers.RepeatedCompositeFieldContainer[LineageNode]
    edges: _containers.RepeatedCompositeFieldContainer[LineageEdge]
    root_node_id: str
    total_nodes: int
    total_edges: int
    truncated: bool
    offset: int
    limit: int
    cut_by: _containers.RepeatedScalarFieldContainer[str]
    more_at_depth: int
    more_by_type: _containers.ScalarMap[str, int]
    depth_needed: int
    hidden_by_type: int
    bridges: _containers.RepeatedCompositeFieldContainer[LineageBridge]
    def __init__(self, nodes: _Optional[_Iterable[_Union[LineageNode, _Mapping]]] = ..., edges: _Optional[_Iterable[_Union[LineageEdge, _Mapping]]] = ..., root_node_id: _Optional[str] = ..., total_nodes: _Optional[int] = ..., total_edges: _Optional[int] = ..., truncated: _Optional[bool] = ..., offset: _Optional[int] = ..., limit: _Optional[int] = ..., cut_by: _Optional[_Iterable[str]] = ..., more_at_depth: _Optional[int] = ..., more_by_type: _Optional[_Mapping[str, int]] = ..., depth_needed: _Optional[int] = ..., hidden_by_type: _Optional[int] = ..., bridges: _Optional[_Iterable[_Union[LineageBridge, _Mapping]]] = ...) -> None: ...

class TraceOriginRequest(_message.Message):
    __slots__ = ("entity_id", "max_depth", "as_of_time")
    ENTITY_ID_FIELD_NUMBER: _ClassVar[int]
    MAX_DEPTH_FIELD_NUMBER: _ClassVar[int]
    AS_OF_TIME_FIELD_NUMBER: _ClassVar[int]
    entity_id: str
    max_depth: int
    as_of_time: _timestamp_pb2.Timestamp
    def __init__(self, entity_id: _Optional[str] = ..., max_depth: _Optional[int] = ..., as_of_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class OriginPath(_message.Message):
    __slots__ = ("origin", "system", "depth", "path")
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    SYSTEM_FIELD_NUMBER: _ClassVar[int]
    DEPTH_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    origin: LineageNode
    system: LineageNode
    depth: int
    path: _containers.RepeatedCompositeFieldContainer[LineageEdge]
    def __init__(self, origin: _Optional[_Union[LineageNode, _Mapping]] = ..., system: _Optional[_Union[LineageNode, _Mapping]] = ..., depth: _Optional[int] = ..., path: _Optional[_Iterable[_Union[LineageEdge, _Mapping]]] = ...) -> None: ...

class TraceOriginResponse(_message.Message):
    __slots__ = ("source_systems", "paths", "total_sources", "root", "origins", "truncated")
    SOURCE_SYSTEMS_FIELD_NUMBER: _ClassVar[int]
    PATHS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_SOURCES_FIELD_NUMBER: _ClassVar[int]
    ROOT_FIELD_NUMBER: _ClassVar[int]
    ORIGINS_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    source_systems: _containers.RepeatedCompositeFieldContainer[LineageNode]
    paths: _containers.RepeatedCompositeFieldContainer[LineageEdge]
    total_sources: int
    root: LineageNode
    origins: _containers.RepeatedCompositeFieldContainer[OriginPath]
    truncated: bool
    def __init__(self, source_systems: _Optional[_Iterable[_Union[LineageNode, _Mapping]]] = ..., paths: _Optional[_Iterable[_Union[LineageEdge, _Mapping]]] = ..., total_sources: _Optional[int] = ..., root: _Optional[_Union[LineageNode, _Mapping]] = ..., origins: _Optional[_Iterable[_Union[OriginPath, _Mapping]]] = ..., truncated: _Optional[bool] = ...) -> None: ...

class AnalyzeImpactRequest(_message.Message):
    __slots__ = ("target_id", "change_type", "change_details", "as_of_time", "sample_size")
    TARGET_ID_FIELD_NUMBER: _ClassVar[int]
    CHANGE_TYPE_FIELD_NUMBER: _ClassVar[int]
    CHANGE_DETAILS_FIELD_NUMBER: _ClassVar[int]
    AS_OF_TIME_FIELD_NUMBER: _ClassVar[int]
    SAMPLE_SIZE_FIELD_NUMBER: _ClassVar[int]
    target_id: str
    change_type: str
    change_details: _struct_pb2.Struct
    as_of_time: _timestamp_pb2.Timestamp
    sample_size: int
    def __init__(self, target_id: _Optional[str] = ..., change_type: _Optional[str] = ..., change_details: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., as_of_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., sample_size: _Optional[int] = ...) -> None: ...

class ImpactAnalysisResponse(_message.Message):
    __slots__ = ("analysis_id", "total_affected_count", "groups", "overall_severity", "risk_level", "target", "change_type", "truncated", "details")
    class ImpactGroup(_message.Message):
        __slots__ = ("type", "count", "sample_node_ids", "severity", "headwater_type")
        TYPE_FIELD_NUMBER: _ClassVar[int]
        COUNT_FIELD_NUMBER: _ClassVar[int]
        SAMPLE_NODE_IDS_FIELD_NUMBER: _ClassVar[int]
        SEVERITY_FIELD_NUMBER: _ClassVar[int]
        HEADWATER_TYPE_FIELD_NUMBER: _ClassVar[int]
        type: NodeType
        count: int
        sample_node_ids: _containers.RepeatedScalarFieldContainer[str]
        severity: ImpactSeverity
        headwater_type: str
        def __init__(self, type: _Optional[_Union[NodeType, str]] = ..., count: _Optional[int] = ..., sample_node_ids: _Optional[_Iterable[str]] = ..., severity: _Optional[_Union[ImpactSeverity, str]] = ..., headwater_type: _Optional[str] = ...) -> None: ...
    ANALYSIS_ID_FIELD_NUMBER: _ClassVar[int]
    TOTAL_AFFECTED_COUNT_FIELD_NUMBER: _ClassVar[int]
    GROUPS_FIELD_NUMBER: _ClassVar[int]
    OVERALL_SEVERITY_FIELD_NUMBER: _ClassVar[int]
    RISK_LEVEL_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    CHANGE_TYPE_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    DETAILS_FIELD_NUMBER: _ClassVar[int]
    analysis_id: str
    total_affected_count: int
    groups: _containers.RepeatedCompositeFieldContainer[ImpactAnalysisResponse.ImpactGroup]
    overall_severity: ImpactSeverity
    risk_level: str
    target: LineageNode
    change_type: str
    truncated: bool
    details: _struct_pb2.Struct
    def __init__(self, analysis_id: _Optional[str] = ..., total_affected_count: _Optional[int] = ..., groups: _Optional[_Iterable[_Union[ImpactAnalysisResponse.ImpactGroup, _Mapping]]] = ..., overall_severity: _Optional[_Union[ImpactSeverity, str]] = ..., risk_level: _Optional[str] = ..., target: _Optional[_Union[LineageNode, _Mapping]] = ..., change_type: _Optional[str] = ..., truncated: _Optional[bool] = ..., details: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class FieldPath(_message.Message):
    __slots__ = ("field", "depth", "path", "types", "dependency")
    FIELD_FIELD_NUMBER: _ClassVar[int]
    DEPTH_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    TYPES_FIELD_NUMBER: _ClassVar[int]
    DEPENDENCY_FIELD_NUMBER: _ClassVar[int]
    field: LineageNode
    depth: int
    path: _containers.RepeatedCompositeFieldContainer[LineageEdge]
    types: _containers.RepeatedScalarFieldContainer[str]
    dependency: str
    def __init__(self, field: _Optional[_Union[LineageNode, _Mapping]] = ..., depth: _Optional[int] = ..., path: _Optional[_Iterable[_Union[LineageEdge, _Mapping]]] = ..., types: _Optional[_Iterable[str]] = ..., dependency: _Optional[str] = ...) -> None: ...

class GetFieldImpactRequest(_message.Message):
    __slots__ = ("field_id", "as_of_time", "max_depth", "limit", "offset", "level")
    FIELD_ID_FIELD_NUMBER: _ClassVar[int]
    AS_OF_TIME_FIELD_NUMBER: _ClassVar[int]
    MAX_DEPTH_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    field_id: str
    as_of_time: _timestamp_pb2.Timestamp
    max_depth: int
    limit: int
    offset: int
    level: FieldLevel
    def __init__(self, field_id: _Optional[str] = ..., as_of_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., max_depth: _Optional[int] = ..., limit: _Optional[int] = ..., offset: _Optional[int] = ..., level: _Optional[_Union[FieldLevel, str]] = ...) -> None: ...

class FieldImpactResponse(_message.Message):
    __slots__ = ("field", "impacted", "total", "direct_count", "indirect_count", "truncated", "level")
    FIELD_FIELD_NUMBER: _ClassVar[int]
    IMPACTED_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    DIRECT_COUNT_FIELD_NUMBER: _ClassVar[int]
    INDIRECT_COUNT_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    field: LineageNode
    impacted: _containers.RepeatedCompositeFieldContainer[FieldPath]
    total: int
    direct_count: int
    indirect_count: int
    truncated: bool
    level: str
    def __init__(self, field: _Optional[_Union[LineageNode, _Mapping]] = ..., impacted: _Optional[_Iterable[_Union[FieldPath, _Mapping]]] = ..., total: _Optional[int] = ..., direct_count: _Optional[int] = ..., indirect_count: _Optional[int] = ..., truncated: _Optional[bool] = ..., level: _Optional[str] = ...) -> None: ...

class GetFieldOriginRequest(_message.Message):
    __slots__ = ("field_id", "include_indirect", "as_of_time", "max_depth", "limit", "offset", "level")
    FIELD_ID_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_INDIRECT_FIELD_NUMBER: _ClassVar[int]
    AS_OF_TIME_FIELD_NUMBER: _ClassVar[int]
    MAX_DEPTH_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    field_id: str
    include_indirect: bool
    as_of_time: _timestamp_pb2.Timestamp
    max_depth: int
    limit: int
    offset: int
    level: FieldLevel
    def __init__(self, field_id: _Optional[str] = ..., include_indirect: _Optional[bool] = ..., as_of_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., max_depth: _Optional[int] = ..., limit: _Optional[int] = ..., offset: _Optional[int] = ..., level: _Optional[_Union[FieldLevel, str]] = ...) -> None: ...

class FieldOriginResponse(_message.Message):
    __slots__ = ("field", "origins", "total", "truncated", "include_indirect", "level")
    FIELD_FIELD_NUMBER: _ClassVar[int]
    ORIGINS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_INDIRECT_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    field: LineageNode
    origins: _containers.RepeatedCompositeFieldContainer[FieldPath]
    total: int
    truncated: bool
    include_indirect: bool
    level: str
    def __init__(self, field: _Optional[_Union[LineageNode, _Mapping]] = ..., origins: _Optional[_Iterable[_Union[FieldPath, _Mapping]]] = ..., total: _Optional[int] = ..., truncated: _Optional[bool] = ..., include_indirect: _Optional[bool] = ..., level: _Optional[str] = ...) -> None: ...

class ExecutionContext(_message.Message):
    __slots__ = ("pipeline_id", "execution_id", "step_id", "step_name", "user_id", "timestamp", "duration")
    PIPELINE_ID_FIELD_NUMBER: _ClassVar[int]
    EXECUTION_ID_FIELD_NUMBER: _ClassVar[int]
    STEP_ID_FIELD_NUMBER: _ClassVar[int]
    STEP_NAME_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    DURATION_FIELD_NUMBER: _ClassVar[int]
    pipeline_id: str
    execution_id: str
    step_id: str
    step_name: str
    user_id: str
    timestamp: _timestamp_pb2.Timestamp
    duration: _duration_pb2.Duration
    def __init__(self, pipeline_id: _Optional[str] = ..., execution_id: _Optional[str] = ..., step_id: _Optional[str] = ..., step_name: _Optional[str] = ..., user_id: _Optional[str] = ..., timestamp: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., duration: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class DatasetRef(_message.Message):
    __slots__ = ("name", "namespace", "type", "fields")
    NAME_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    FIELDS_FIELD_NUMBER: _ClassVar[int]
    name: str
    namespace: str
    type: NodeType
    fields: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., namespace: _Optional[str] = ..., type: _Optional[_Union[NodeType, str]] = ..., fields: _Optional[_Iterable[str]] = ...) -> None: ...

class FieldRef(_message.Message):
    __slots__ = ("dataset", "field")
    DATASET_FIELD_NUMBER: _ClassVar[int]
    FIELD_FIELD_NUMBER: _ClassVar[int]
    dataset: DatasetRef
    field: str
    def __init__(self, dataset: _Optional[_Union[DatasetRef, _Mapping]] = ..., field: _Optional[str] = ...) -> None: ...

class FieldMapping(_message.Message):
    __slots__ = ("source_fields", "target_field", "transform_expression", "transform_type", "properties")
    class PropertiesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    SOURCE_FIELDS_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_FIELD_NUMBER: _ClassVar[int]
    TRANSFORM_EXPRESSION_FIELD_NUMBER: _ClassVar[int]
    TRANSFORM_TYPE_FIELD_NUMBER: _ClassVar[int]
    PROPERTIES_FIELD_NUMBER: _ClassVar[int]
    source_fields: _containers.RepeatedCompositeFieldContainer[FieldRef]
    target_field: FieldRef
    transform_expression: str
    transform_type: TransformType
    properties: _containers.ScalarMap[str, str]
    def __init__(self, source_fields: _Optional[_Iterable[_Union[FieldRef, _Mapping]]] = ..., target_field: _Optional[_Union[FieldRef, _Mapping]] = ..., transform_expression: _Optional[str] = ..., transform_type: _Optional[_Union[TransformType, str]] = ..., properties: _Optional[_Mapping[str, str]] = ...) -> None: ...

class RecordLineageRequest(_message.Message):
    __slots__ = ("context", "inputs", "outputs", "field_mappings", "metadata")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    INPUTS_FIELD_NUMBER: _ClassVar[int]
    OUTPUTS_FIELD_NUMBER: _ClassVar[int]
    FIELD_MAPPINGS_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    context: ExecutionContext
    inputs: _containers.RepeatedCompositeFieldContainer[DatasetRef]
    outputs: _containers.RepeatedCompositeFieldContainer[DatasetRef]
    field_mappings: _containers.RepeatedCompositeFieldContainer[FieldMapping]
    metadata: _containers.ScalarMap[str, str]
    def __init__(self, context: _Optional[_Union[ExecutionContext, _Mapping]] = ..., inputs: _Optional[_Iterable[_Union[DatasetRef, _Mapping]]] = ..., outputs: _Optional[_Iterable[_Union[DatasetRef, _Mapping]]] = ..., field_mappings: _Optional[_Iterable[_Union[FieldMapping, _Mapping]]] = ..., metadata: _Optional[_Mapping[str, str]] = ...) -> None: ...

class RecordLineageResponse(_message.Message):
    __slots__ = ("recorded", "duplicates", "edges_opened", "edges_closed", "event_ids")
    RECORDED_FIELD_NUMBER: _ClassVar[int]
    DUPLICATES_FIELD_NUMBER: _ClassVar[int]
    EDGES_OPENED_FIELD_NUMBER: _ClassVar[int]
    EDGES_CLOSED_FIELD_NUMBER: _ClassVar[int]
    EVENT_IDS_FIELD_NUMBER: _ClassVar[int]
    recorded: int
    duplicates: int
    edges_opened: int
    edges_closed: int
    event_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, recorded: _Optional[int] = ..., duplicates: _Optional[int] = ..., edges_opened: _Optional[int] = ..., edges_closed: _Optional[int] = ..., event_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class BatchRecordLineageRequest(_message.Message):
    __slots__ = ("requests",)
    REQUESTS_FIELD_NUMBER: _ClassVar[int]
    requests: _containers.RepeatedCompositeFieldContainer[RecordLineageRequest]
    def __init__(self, requests: _Optional[_Iterable[_Union[RecordLineageRequest, _Mapping]]] = ...) -> None: ...

class BatchRecordLineageResponse(_message.Message):
    __slots__ = ("recorded", "duplicates", "edges_opened", "edges_closed", "event_ids")
    RECORDED_FIELD_NUMBER: _ClassVar[int]
    DUPLICATES_FIELD_NUMBER: _ClassVar[int]
    EDGES_OPENED_FIELD_NUMBER: _ClassVar[int]
    EDGES_CLOSED_FIELD_NUMBER: _ClassVar[int]
    EVENT_IDS_FIELD_NUMBER: _ClassVar[int]
    recorded: int
    duplicates: int
    edges_opened: int
    edges_closed: int
    event_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, recorded: _Optional[int] = ..., duplicates: _Optional[int] = ..., edges_opened: _Optional[int] = ..., edges_closed: _Optional[int] = ..., event_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class GetLineageSummaryRequest(_message.Message):
    __slots__ = ("entity_id", "as_of_time")
    ENTITY_ID_FIELD_NUMBER: _ClassVar[int]
    AS_OF_TIME_FIELD_NUMBER: _ClassVar[int]
    entity_id: str
    as_of_time: _timestamp_pb2.Timestamp
    def __init__(self, entity_id: _Optional[str] = ..., as_of_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class LineageSummaryResponse(_message.Message):
    __slots__ = ("entity_id", "upstream_count", "downstream_count", "field_count", "pipeline_count", "last_updated", "node_type_counts", "node", "truncated")
    class NodeTypeCountsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    ENTITY_ID_FIELD_NUMBER: _ClassVar[int]
    UPSTREAM_COUNT_FIELD_NUMBER: _ClassVar[int]
    DOWNSTREAM_COUNT_FIELD_NUMBER: _ClassVar[int]
    FIELD_COUNT_FIELD_NUMBER: _ClassVar[int]
    PIPELINE_COUNT_FIELD_NUMBER: _ClassVar[int]
    LAST_UPDATED_FIELD_NUMBER: _ClassVar[int]
    NODE_TYPE_COUNTS_FIELD_NUMBER: _ClassVar[int]
    NODE_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    entity_id: str
    upstream_count: int
    downstream_count: int
    field_count: int
    pipeline_count: int
    last_updated: _timestamp_pb2.Timestamp
    node_type_counts: _containers.ScalarMap[str, int]
    node: LineageNode
    truncated: bool
    def __init__(self, entity_id: _Optional[str] = ..., upstream_count: _Optional[int] = ..., downstream_count: _Optional[int] = ..., field_count: _Optional[int] = ..., pipeline_count: _Optional[int] = ..., last_updated: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., node_type_counts: _Optional[_Mapping[str, int]] = ..., node: _Optional[_Union[LineageNode, _Mapping]] = ..., truncated: _Optional[bool] = ...) -> None: ...

class DeleteLineageRequest(_message.Message):
    __slots__ = ("event_id", "job", "dataset", "purge", "at")
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    JOB_FIELD_NUMBER: _ClassVar[int]
    DATASET_FIELD_NUMBER: _ClassVar[int]
    PURGE_FIELD_NUMBER: _ClassVar[int]
    AT_FIELD_NUMBER: _ClassVar[int]
    event_id: str
    job: str
    dataset: str
    purge: bool
    at: _timestamp_pb2.Timestamp
    def __init__(self, event_id: _Optional[str] = ..., job: _Optional[str] = ..., dataset: _Optional[str] = ..., purge: _Optional[bool] = ..., at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class DeleteLineageResponse(_message.Message):
    __slots__ = ("edges_closed", "edges_purged", "events_deleted")
    EDGES_CLOSED_FIELD_NUMBER: _ClassVar[int]
    EDGES_PURGED_FIELD_NUMBER: _ClassVar[int]
    EVENTS_DELETED_FIELD_NUMBER: _ClassVar[int]
    edges_closed: int
    edges_purged: int
    events_deleted: int
    def __init__(self, edges_closed: _Optional[int] = ..., edges_purged: _Optional[int] = ..., events_deleted: _Optional[int] = ...) -> None: ...
