"""Read endpoints the explorer needs beyond the query API: search, children and columns, a field's
whole origin and impact subgraph, and the statement (SQL and query context) behind an edge or job.

All under ``/api/v1/explorer``, read scope, errors as everywhere else (``{"error": {field, message}}``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query
from pydantic import BaseModel, ConfigDict, Field

from headwater.service import schemas as m
from headwater.service.deps import get_store, no_nul_in_query, require
from headwater.service.errors import EDGE_ID_MIN, NODE_ID_MAX, ApiError, as_api_errors, expecting
from headwater.service.responses import Answers
from headwater.service.routes_query import SeenSince
from headwater.service.routes_query import _seen as check_seen_since
from headwater.store import LineageStore, NodeNotFound, NodeType
from headwater.store import search as s
from headwater.store.jobs import hidden_jobs, parse_since
from headwater.store.levels import Level
from headwater.store.names import to_us

router = APIRouter(prefix="/explorer", dependencies=[Depends(require("read")), Depends(no_nul_in_query)])
read = Answers(router)
Store = Annotated[LineageStore, Depends(get_store)]
AsOf = Annotated[datetime | None, Query(description="answer as the graph was at this time (ISO 8601)")]
ERRORS = {400: {"model": m.ErrorResponse}, 404: {"model": m.ErrorResponse}, 409: {"model": m.ErrorResponse}}
_S = "internal.lineage_demo."
_NODE = m.Node.model_config["json_schema_extra"]["examples"][0]  # type: ignore[index]
_EDGE = m.Edge.model_config["json_schema_extra"]["examples"][0]  # type: ignore[index]
_DATASET = {"id": 4, "type": "DATASET", "name": _S + "lineage_orders", "short": "lineage_orders", "parent_id": 1}
_JOB = {
    "id": 2,
    "type": "JOB",
    "name": "sql:977d69abd829cde4:" + _S + "lineage_customer_summary",
    "short": "lineage_customer_summary#977d69ab",
    "properties": {"source_command": "InsertIntoTableCommand"},
}
_STATEMENT = {
    "event_id": "6fae6e1a-f8f7-5b2a-bae2-bfb240815af0",
    "kind": "headwater",
    "event_time": "2024-05-01T10:00:00Z",
    "recorded_time": "2024-05-01T10:00:01Z",
    "status": "COMPLETE",
    "sql": "INSERT INTO lineage_customer_summary WITH customer_totals AS (…) SELECT … FROM customer_totals",
    "context": {"query_id": "hw-9618", "user": "lineage_user", "client_ip": "192.0.2.10", "database": "lineage_demo"},
    "deleted": False,
}


def _cfg(example: dict[str, Any]) -> ConfigDict:
    return ConfigDict(from_attributes=True, json_schema_extra={"examples": [example]})


class SearchHit(BaseModel):
    model_config = _cfg({"node": _NODE, "match": "prefix", "parent": _DATASET})
    node: m.Node
    match: str = Field(
        description="exact, prefix (of the short name), part (start of a dotted part), substring, browse"
    )
    parent: m.Node | None = Field(None, description="the dataset of a field, the system of a dataset")
    alias: str | None = Field(
        None,
        description="the node's other name that matched (a symlink's name, as a node name), when its own did not"
        " match as well; `node.name` is its own name",
    )


class SearchResult(BaseModel):
    model_config = _cfg(
        {
            "query": "amou",
            "hits": [SearchHit.model_config["json_schema_extra"]["examples"][0]],  # type: ignore[index]
            "truncated": False,
        }
    )
    query: str
    hits: list[SearchHit]
    truncated: bool = Field(description="more nodes matched than `limit`")


class Children(BaseModel):
    model_config = _cfg({"node": _DATASET, "children": [_NODE], "total": 5, "truncated": False})
    node: m.Node
    children: list[m.Node]
    total: int
    truncated: bool


class DatasetColumns(BaseModel):
    model_config = _cfg({"dataset": _DATASET, "fields": [_NODE]})
    dataset: m.Node
    fields: list[m.Node]


class ColumnEdges(BaseModel):
    model_config = _cfg(
        {
            "datasets": [{"dataset": _DATASET, "fields": [_NODE]}],
            "edges": [_EDGE],
            "peers": [],
            "total_edges": 1,
            "truncated": False,
        }
    )
    datasets: list[DatasetColumns]
    edges: list[m.Edge] = Field(description="MAPS_TO edges with an end among the datasets' fields")
    peers: list[m.Node] = Field(description="the fields at the other end of those edges")
    total_edges: int
    truncated: bool = Field(description="more edges than `max_edges`: the lowest ids are returned")


class ColumnsRequest(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{"datasets": [3, 4], "as_of": None, "max_edges": 5000}]})
    datasets: list[int] = Field(min_length=1, max_length=1000, description="dataset node ids")
    as_of: datetime | None = None
    max_edges: int = Field(5000, ge=1, le=50_000)


class IndexRequest(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{"datasets": [3, 4], "as_of": None}]})
    datasets: list[int] = Field(min_length=1, max_length=20_000, description="dataset node ids (a view's)")
    as_of: datetime | None = None
    max_edges: int = Field(500_000, ge=1, le=2_000_000)


class ColumnIndex(BaseModel):
    model_config = _cfg(
        {
            "datasets": [3, 4],
            "fields": {"id": [7, 5], "dataset": [3, 4]},
            "edges": {"id": [31], "source": [7], "target": [12], "job": [2], "kind": [0]},
            "all": {"id": [], "source": [], "dataset": [], "job": []},
            "written": {"job": [], "dataset": [], "field": []},
            "total_edges": 1,
            "truncated": False,
        }
    )
    datasets: list[int] = Field(description="the datasets asked for: every edge of their fields is here")
    fields: dict[str, list[int | None]] = Field(
        description="`id` (ascending, as differences from the previous one) and `dataset` of each field named"
    )
    edges: dict[str, list[int | None]] = Field(
        description="MAPS_TO edges, one list per attribute: id, source, target, job, kind "
        "(0 DIRECT, 1 INDIRECT CONDITIONAL/WINDOW, 2 other INDIRECT)"
    )
    all: dict[str, list[int]] = Field(description="dataset-level mappings (MAPS_TO_ALL): id, source, dataset, job")
    written: dict[str, list[int]] = Field(description="their jobs' witnesses: job, dataset, field (column written)")
    total_edges: int
    truncated: bool = Field(description="more MAPS_TO edges than `max_edges`: the index holds none")


class Subgraph(BaseModel):
    model_config = _cfg({"nodes": [_NODE], "edges": [_EDGE], "truncated": False})
    nodes: list[m.Node]
    edges: list[m.Edge]
    truncated: bool = Field(description="partial: the node cap, or `max_depth`, left fields out")


class FieldPaths(BaseModel):
    model_config = _cfg(
        {
            "field": _NODE,
            "include_indirect": True,
            "level": "all",
            "upstream": {"nodes": [], "edges": [], "truncated": False},
            "downstream": {"nodes": [], "edges": [], "truncated": False},
            "datasets": [_DATASET],
        }
    )
    field: m.Node
    include_indirect: bool = Field(description="level is all")
    level: str = Field("all", description="direct, field or all: which mappings were followed")
    upstream: Subgraph = Field(description="the origin side: fields the field is computed from, and the edges")
    downstream: Subgraph = Field(description="the impact side: fields computed from the field, and the edges")
    datasets: list[m.Node] = Field(description="the datasets holding the field and every field on its paths")


class Statement(BaseModel):
    model_config = _cfg(_STATEMENT)
    event_id: str
    kind: str = Field(description="headwater, openlineage or record (record_lineage)")
    event_time: datetime | None
    recorded_time: datetime | None
    status: str | None
    sql: str | None = Field(description="the statement's full SQL when the producer sent it")
    context: dict[str, Any] = Field(description="query context: query id, user, client, database, time, …")
    deleted: bool = False


class EdgeDetail(BaseModel):
    model_config = _cfg({"edge": _EDGE, "source": _NODE, "target": _NODE, "job": _JOB, "statement": _STATEMENT})
    edge: m.Edge
    source: m.Node
    target: m.Node
    job: m.Node | None = Field(description="the job (statement or pipeline) that asserted the edge")
    statement: Statement | None = Field(description="the recorded event that made the edge")


class JobDetail(BaseModel):
    model_config = _cfg(
        {
            "job": _JOB,
            "statements": [_STATEMENT],
            "total_statements": 1,
            "inputs": [_DATASET],
            "outputs": [],
            "columns_read": 6,
            "columns_written": 5,
        }
    )
    job: m.Node
    statements: list[Statement] = Field(description="recorded events of the job, latest first")
    total_statements: int
    inputs: list[m.Node]
    outputs: list[m.Node]
    columns_read: int = Field(0, description="source columns its column-level mappings read at `as_of`")
    columns_written: int = Field(0, description="target columns it writes at `as_of`")


class DatasetEntry(BaseModel):
    model_config = _cfg({"node": _DATASET, "degree": 2})
    node: m.Node
    degree: int = Field(description="statements that read or write it (READ and WRITE edges)")


class DatabaseGroup(BaseModel):
    model_config = _cfg(
        {"name": "internal.lineage_demo", "datasets": [{"node": _DATASET, "degree": 2}], "total": 3, "degree": 4}
    )
    name: str = Field(description="catalog.database: the datasets' names without their last part")
    datasets: list[DatasetEntry] = Field(description="the most connected first, at most `per_database`")
    total: int = Field(description="datasets of the database in all")
    degree: int = Field(description="the sum of its datasets' degrees")


class RecentChange(BaseModel):
    model_config = _cfg({"job": _JOB, "event_time": "2024-05-01T10:00:00Z", "kind": "headwater", "status": "COMPLETE"})
    job: m.Node
    event_time: datetime
    kind: str = Field(description="the producer format: headwater, openlineage, lineage")
    status: str | None


class Overview(BaseModel):
    model_config = _cfg(
        {
            "databases": [DatabaseGroup.model_config["json_schema_extra"]["examples"][0]],  # type: ignore[index]
            "recent": [RecentChange.model_config["json_schema_extra"]["examples"][0]],  # type: ignore[index]
            "total_datasets": 3,
            "truncated": False,
        }
    )
    databases: list[DatabaseGroup] = Field(description="the most connected first")
    recent: list[RecentChange] = Field(description="the latest recorded statements, latest first")
    total_datasets: int
    truncated: bool = Field(description="more datasets than the overview reads (20,000)")


@read.get("/overview", operation_id="explorer_overview", response_model=Overview, responses=ERRORS)
def overview(
    store: Store,
    as_of: AsOf = None,
    per_database: Annotated[int, Query(ge=1, le=500, description="datasets listed per database")] = 12,
    databases: Annotated[int, Query(ge=1, le=1000, description="databases listed")] = 50,
    recent: Annotated[int, Query(ge=0, le=100, description="latest statements listed")] = 10,
) -> Overview:
    """The home page: datasets grouped by catalog and database, the most connected first, and the
    latest recorded statements."""
    from headwater.store.overview import overview as store_overview

    with store.engine.connect() as conn:
        r = store_overview(conn, to_us(as_of), per_database, databases, recent)
    return Overview.model_validate(r)


@read.get("/search", operation_id="explorer_search", response_model=SearchResult, responses=ERRORS)
def search(
    store: Store,
    q: Annotated[str, Query(max_length=512, description="text in the name (empty: browse)", examples=["amou"])] = "",
    types: Annotated[list[NodeType] | None, Query(description="keep only nodes of these types")] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 20,
) -> SearchResult:
    """Datasets, fields, jobs … whose name contains `q` (exact and prefix matches first), with their type."""
    with as_api_errors("query.q"), store.engine.connect() as conn:
        r = s.search_nodes(conn, q, [t.value for t in types or ()] or None, limit)
    return SearchResult.model_validate(r)


@read.get("/nodes/{node_id}/children", operation_id="explorer_children", response_model=Children, responses=ERRORS)
def children(
    store: Store,
    node_id: Annotated[int, Path(description="node id", examples=[4])],
    types: Annotated[list[NodeType] | None, Query(description="keep only children of these types")] = None,
    as_of: AsOf = None,
    limit: Annotated[int, Query(ge=1, le=10_000)] = 1000,
) -> Children:
    """What a node contains at `as_of`: a dataset's fields, a source system's datasets."""
    with as_api_errors("path.node_id", node_id), store.engine.connect() as conn:
        r = s.node_children(conn, node_id, [t.value for t in types or ()] or None, to_us(as_of), limit)
    return Children.model_validate(r)


@read.post("/columns", operation_id="explorer_columns", response_model=ColumnEdges, responses=ERRORS)
def columns(store: Store, body: ColumnsRequest) -> ColumnEdges:
    """Fields of some datasets and every column-level (MAPS_TO) edge touching them, at `as_of`."""
    for k, d in enumerate(body.datasets):
        if not 0 <= d <= NODE_ID_MAX:  # beyond the id column: no such node, and no query
            raise ApiError(404, f"body.datasets[{k}]", str(NodeNotFound(f"#{d}")))
    try:
        with store.engine.connect() as conn:
            r = s.dataset_columns(conn, body.datasets, to_us(body.as_of), body.max_edges)
    except NodeNotFound as exc:
        missing = int(exc.ref.lstrip("#")) if exc.ref.lstrip("#").isdigit() else None
        at = f"[{body.datasets.index(missing)}]" if missing in body.datasets else ""
        raise ApiError(404, f"body.datasets{at}", str(exc)) from None
    return ColumnEdges.model_validate(r)


@read.post("/column-index", operation_id="explorer_column_index", response_model=ColumnIndex, responses=ERRORS)
def column_index(store: Store, body: IndexRequest) -> ColumnIndex:
    """Every column-level edge (stored and dataset-level) touching the fields of some datasets, as
    columns of ids: the page walks a column's paths from it at a click."""
    from headwater.store.column_index import column_index as store_index

    with store.engine.connect() as conn:
        r = store_index(conn, body.datasets, to_us(body.as_of), body.max_edges)
    return ColumnIndex.model_validate(r)


@read.get("/field-paths", operation_id="explorer_field_paths", response_model=FieldPaths, responses=ERRORS)
def field_paths(
    store: Store,
    field: Annotated[str, Query(description="a field: table.column, full name or #id", examples=["#7"])],
    include_indirect: Annotated[bool, Query(description="without level: true = all, false = direct")] = True,
    as_of: AsOf = None,
    max_depth: Annotated[int | None, Query(ge=1, le=100)] = None,
    max_nodes: Annotated[int, Query(ge=1, le=20_000)] = 2000,
    level: Annotated[
        Level | None, Query(description="which mappings to follow: direct, field or all (see /field-origin)")
    ] = None,
    seen_since: SeenSince = None,
) -> FieldPaths:
    """A field's origin subgraph (upstream) and impact subgraph (downstream): every path, not one per end."""
    since = parse_since(check_seen_since(seen_since))
    with (
        as_api_errors("query.field", field),
        expecting(store, "query.field", field, "field"),
        store.engine.connect() as conn,
    ):
        hidden = hidden_jobs(conn, since)
        r = s.field_paths(conn, field, include_indirect, to_us(as_of), max_depth, max_nodes, level, hidden)
    return FieldPaths.model_validate(r)


@read.get("/edges/{edge_id}", operation_id="explorer_edge", response_model=EdgeDetail, responses=ERRORS)
def edge(store: Store, edge_id: Annotated[int, Path(description="edge id", examples=[31])]) -> EdgeDetail:
    """An edge, its ends, its job and the statement (SQL and query context) that made it."""
    if not EDGE_ID_MIN <= edge_id <= NODE_ID_MAX:  # beyond the id column: no edge, and no query
        raise ApiError(404, "path.edge_id", str(s.EdgeNotFound(edge_id)))
    try:
        with store.engine.connect() as conn:
            r = s.edge_detail(conn, edge_id)
    except s.EdgeNotFound as exc:
        raise ApiError(404, "path.edge_id", str(exc)) from None
    return EdgeDetail.model_validate(r)


@read.get("/jobs/{job_id}", operation_id="explorer_job", response_model=JobDetail, responses=ERRORS)
def job(
    store: Store,
    job_id: Annotated[int, Path(description="job (or step) node id", examples=[2])],
    as_of: AsOf = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 20,
) -> JobDetail:
    """A job with its recorded statements (latest first) and the datasets it reads and writes."""
    with as_api_errors("path.job_id", job_id), store.engine.connect() as conn:
        r = s.job_detail(conn, job_id, to_us(as_of), limit)
    return JobDetail.model_validate(r)
