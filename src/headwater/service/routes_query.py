"""Read endpoints: one per store query, named (operation id) after the store function."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Query

from headwater.service import schemas as m
from headwater.service.deps import get_store, no_nul_in_query, require
from headwater.service.errors import ApiError, as_api_errors, body_field, expecting, no_nul
from headwater.service.responses import Answers
from headwater.store import Direction, InvalidInput, LineageStore, NodeType
from headwater.store.jobs import parse_since
from headwater.store.levels import Level

router = APIRouter(dependencies=[Depends(require("read")), Depends(no_nul_in_query)])
read = Answers(router)
Store = Annotated[LineageStore, Depends(get_store)]
NodeQ = Annotated[
    str,
    Query(
        description="full name, short name (table / table.column), TYPE:name or #id",
        examples=["lineage_customer_summary"],
    ),
]
FieldQ = Annotated[
    str,
    Query(
        description="a field: table.column, db.table.column, … or #id",
        examples=["lineage_customer_summary.region_group"],
    ),
]
AsOf = Annotated[datetime | None, Query(description="answer as the graph was at this time (ISO 8601)")]
Depth = Annotated[int | None, Query(ge=0, le=100, description="levels (a dataset → job → dataset hop is one)")]
Limit = Annotated[int, Query(ge=1, le=10_000)]
Offset = Annotated[int, Query(ge=0)]
Types = Annotated[list[NodeType] | None, Query(description="keep only nodes of these types")]
LevelQ = Annotated[
    Level | None,
    Query(
        description="which mappings to follow: direct (value flows), field (direct plus the field's own CONDITIONAL "
        "and WINDOW inputs; the default), all (plus dataset-level JOIN, FILTER, GROUP_BY, SORT)"
    ),
]
SeenSince = Annotated[
    str | None,
    Query(
        description="leave out jobs known only from query logs (no project file) not seen since then: a duration "
        "back from now (30d, 12h, 2w) or an ISO 8601 time",
        examples=["30d"],
    ),
]


def _seen(value: str | None) -> str | None:
    """``seen_since`` as given, once it parses (else 400 naming it)."""
    try:
        parse_since(value)
    except InvalidInput as exc:
        raise ApiError(400, "query.seen_since", exc.message) from None
    return value


ERRORS = {404: {"model": m.ErrorResponse}, 409: {"model": m.ErrorResponse}, 422: {"model": m.ErrorResponse}}


def _graph(
    store: LineageStore,
    node: str,
    direction: Direction,
    max_depth: int | None,
    as_of: datetime | None,
    node_types: list[NodeType] | None,
    limit: int,
    offset: int,
    seen_since: str | None = None,
) -> m.LineageGraph:
    seen = _seen(seen_since)
    with as_api_errors("query.node", node):
        g = store.get_lineage(
            node,
            direction,
            max_depth,
            as_of,
            [t.value for t in node_types or ()] or None,
            limit,
            offset,
            seen_since=seen,
        )
    return m.LineageGraph.model_validate(g)


@read.get("/lineage", operation_id="get_lineage", response_model=m.LineageGraph, responses=ERRORS)
def get_lineage(
    store: Store,
    node: NodeQ,
    direction: Direction = Direction.BOTH,
    max_depth: Depth = 3,
    as_of: AsOf = None,
    node_types: Types = None,
    limit: Limit = 500,
    offset: Offset = 0,
    seen_since: SeenSince = None,
) -> m.LineageGraph:
    """The graph around a node: nodes with signed depth, the edges that reach them, totals, truncation."""
    return _graph(store, node, direction, max_depth, as_of, node_types, limit, offset, seen_since)


@read.get("/upstream", operation_id="get_upstream", response_model=m.LineageGraph, responses=ERRORS)
def get_upstream(
    store: Store,
    node: NodeQ,
    max_depth: Depth = 3,
    as_of: AsOf = None,
    node_types: Types = None,
    limit: Limit = 500,
    offset: Offset = 0,
    seen_since: SeenSince = None,
) -> m.LineageGraph:
    """What a node comes from."""
    return _graph(store, node, Direction.UPSTREAM, max_depth, as_of, node_types, limit, offset, seen_since)


@read.get("/downstream", operation_id="get_downstream", response_model=m.LineageGraph, responses=ERRORS)
def get_downstream(
    store: Store,
    node: NodeQ,
    max_depth: Depth = 3,
    as_of: AsOf = None,
    node_types: Types = None,
    limit: Limit = 500,
    offset: Offset = 0,
    seen_since: SeenSince = None,
) -> m.LineageGraph:
    """What a node feeds."""
    return _graph(store, node, Direction.DOWNSTREAM, max_depth, as_of, node_types, limit, offset, seen_since)


@read.get("/full-lineage", operation_id="get_full_lineage", response_model=m.LineageGraph, responses=ERRORS)
def get_full_lineage(
    store: Store, node: NodeQ, as_of: AsOf = None, node_types: Types = None, limit: Limit = 500, offset: Offset = 0
) -> m.LineageGraph:
    """Both directions without a depth limit (capped: see ``truncated``)."""
    return _graph(store, node, Direction.BOTH, None, as_of, node_types, limit, offset)


@read.get("/field-origin", operation_id="get_field_origin", response_model=m.FieldOrigin, responses=ERRORS)
def get_field_origin(
    store: Store,
    field: FieldQ,
    include_indirect: Annotated[
        bool | None, Query(description="the former flag: true = level all, false = level direct")
    ] = None,
    as_of: AsOf = None,
    max_depth: Depth = None,
    limit: Limit = 500,
    offset: Offset = 0,
    level: LevelQ = None,
    seen_since: SeenSince = None,
) -> m.FieldOrigin:
    """The ultimate source fields of a field, across statements, each labelled by its strongest dependency
    (DIRECT beats INDIRECT), with a path of that strength and its types."""
    with as_api_errors("query.field", field), expecting(store, "query.field", field, "field"):
        return m.FieldOrigin.model_validate(
            store.get_field_origin(
                field, include_indirect, as_of, max_depth, limit, offset, level=level, seen_since=_seen(seen_since)
            )
        )


@read.get("/field-impact", operation_id="get_field_impact", response_model=m.FieldImpact, responses=ERRORS)
def get_field_impact(
    store: Store,
    field: FieldQ,
    as_of: AsOf = None,
    max_depth: Depth = None,
    limit: Limit = 500,
    offset: Offset = 0,
    level: LevelQ = None,
    seen_since: SeenSince = None,
) -> m.FieldImpact:
    """Every downstream field, labelled by its strongest dependency (DIRECT beats INDIRECT), with a path."""
    with as_api_errors("query.field", field), expecting(store, "query.field", field, "field"):
        return m.FieldImpact.model_validate(
            store.get_field_impact(field, as_of, max_depth, limit, offset, level=level, seen_since=_seen(seen_since))
        )


@read.get("/trace-origin", operation_id="trace_origin", response_model=m.TraceResult, responses=ERRORS)
def trace_origin(store: Store, node: NodeQ, max_depth: Depth = None, as_of: AsOf = None) -> m.TraceResult:
    """The roots upstream of a node, their source systems and the paths to them."""
    with as_api_errors("query.node", node):
        return m.TraceResult.model_validate(store.trace_origin(node, max_depth, as_of))


@read.post("/analyze-impact", operation_id="analyze_impact", response_model=m.ImpactAnalysis, responses=ERRORS)
def analyze_impact(store: Store, body: m.AnalyzeImpactRequest) -> m.ImpactAnalysis:
    """Affected nodes by type with counts, samples and severity; overall severity and risk level."""
    no_nul(body.model_dump(mode="json"), "body")
    with as_api_errors("body.target", body.target):
        try:
            result = store.analyze_impact(body.target, body.change_type, body.details, body.as_of, body.sample_size)
        except InvalidInput as exc:
            if not exc.field.startswith("details"):
                raise
            raise ApiError(400, *body_field("body", exc.field, exc.message)) from None
        return m.ImpactAnalysis.model_validate(result)


@read.get("/summary", operation_id="get_lineage_summary", response_model=m.LineageSummary, responses=ERRORS)
def get_lineage_summary(store: Store, node: NodeQ, as_of: AsOf = None) -> m.LineageSummary:
    """Upstream and downstream counts, fields, pipelines, last update, node types."""
    with as_api_errors("query.node", node):
        return m.LineageSummary.model_validate(store.get_lineage_summary(node, as_of))


@read.get("/stats", operation_id="get_lineage_stats", response_model=m.LineageStats)
def get_lineage_stats(store: Store, as_of: AsOf = None) -> m.LineageStats:
    """Nodes, edges and field mappings by type; events recorded."""
    return m.LineageStats.model_validate(store.get_lineage_stats(as_of))


@read.get("/nodes/resolve", operation_id="resolve", response_model=m.Node, responses=ERRORS)
def resolve(store: Store, node: NodeQ) -> m.Node:
    """The one node a name designates (404 if none, 409 with candidates if several)."""
    with as_api_errors("query.node", node):
        return m.Node.model_validate(store.resolve(node))


@read.get("/jobs/versions", operation_id="get_job_versions", response_model=m.JobHistory, responses=ERRORS)
def get_job_versions(
    store: Store,
    job: Annotated[
        str,
        Query(description="the job's name (reports/top.sql#2, a given name), its stored name (sql:…, ol:…) or #id"),
    ],
    as_of: AsOf = None,
) -> m.JobHistory:
    """A job's versions, oldest first: runs of one normalised statement, with their period, SQL and source."""
    with as_api_errors("query.job", job):
        return m.JobHistory.model_validate(store.job_history(job, as_of))
