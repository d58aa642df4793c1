"""``GET /diff``: what changed in the store's lineage between two times, and what it breaks
downstream (``headwater.diff``; the same report as ``headwater diff --from … --to … --format json``),
with the edges that changed located by node id for the explorer (``static/js/diff.js``)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select

from headwater.diff.changes import DiffReport
from headwater.diff.formats.json_report import report_dict
from headwater.diff.run import diff, store_side
from headwater.service import schemas as m
from headwater.service.deps import get_store, no_nul_in_query, require
from headwater.service.errors import ApiError
from headwater.service.responses import Answers
from headwater.store import InvalidInput, LineageStore
from headwater.store.jobs import parse_since
from headwater.store.schema import nodes
from headwater.store.types import NodeType
from headwater.store.write import chunks

router = APIRouter(dependencies=[Depends(require("read")), Depends(no_nul_in_query)])
read = Answers(router)
Store = Annotated[LineageStore, Depends(get_store)]
_T = "internal.shop."


class DiffColumnEdge(BaseModel):
    target: str
    source: str
    dependency: str = Field(description="DIRECT or INDIRECT")
    subtype: str = Field(description="IDENTITY, TRANSFORMATION, AGGREGATION, or an indirect type (JOIN, FILTER…)")
    expression: str
    job: str


class DiffEdgeChange(BaseModel):
    source: str
    dependency: str
    old_subtype: str
    new_subtype: str
    old_expression: str
    new_expression: str


class DiffReader(BaseModel):
    column: str
    depth: int
    dependency: str
    path: list[str] = Field(description="the columns from the changed one to this one")
    broken: bool = Field(description="it reads the changed column and does not change with it")


class DiffImpact(BaseModel):
    change_type: str = Field(description="DATA_UPDATE, or SCHEMA_CHANGE with its operation")
    severity: str = Field(description="analyze_impact's overall severity: LOW, MEDIUM, HIGH or CRITICAL")
    readers: list[DiffReader]
    groups: list[m.ImpactGroup]
    truncated: bool


class DiffColumnChange(BaseModel):
    column: str
    table: str
    kind: str = Field(description="removed, renamed, retyped, expression, indirect or added")
    added: list[DiffColumnEdge]
    removed: list[DiffColumnEdge]
    changed: list[DiffEdgeChange]
    renamed_to: str | None = None
    job: str | None = None
    file: str | None = None
    line: int | None = None
    impact: DiffImpact | None = None
    verdict: str = Field(description="BREAKING, POSSIBLY_BREAKING or SAFE")
    reason: str


class DiffTableChange(BaseModel):
    table: str
    kind: str = Field(description="added or removed")
    columns: list[str]


class DiffJobChange(BaseModel):
    job: str
    kind: str = Field(description="added, removed, changed or moved")
    old_file: str | None = None
    old_line: int | None = None
    new_file: str | None = None
    new_line: int | None = None
    moved_from: str | None = None


class DiffProblem(BaseModel):
    file: str | None
    line: int | None
    column: int | None
    job: str | None
    code: str
    message: str


class DiffEdge(BaseModel):
    """A column edge that changed, by node id (for drawing): ``added``, ``removed`` or ``changed``."""

    status: str
    source: str
    target: str
    source_id: int | None
    target_id: int | None
    dependency: str
    subtype: str
    expression: str


_EXAMPLE: dict[str, Any] = {
    "old": "2026-11-01T00:00:00+00:00",
    "new": "now",
    "columns": [
        {
            "column": _T + "customer_revenue.revenue",
            "table": _T + "customer_revenue",
            "kind": "expression",
            "added": [],
            "removed": [],
            "changed": [
                {
                    "source": _T + "orders.amount",
                    "dependency": "DIRECT",
                    "old_subtype": "AGGREGATION",
                    "new_subtype": "AGGREGATION",
                    "old_expression": "SUM(o.amount)",
                    "new_expression": "AVG(o.amount)",
                }
            ],
            "renamed_to": None,
            "job": "marts/customer_revenue.sql#1",
            "file": "marts/customer_revenue.sql",
            "line": 1,
            "impact": {
                "change_type": "DATA_UPDATE",
                "severity": "MEDIUM",
                "readers": [
                    {
                        "column": _T + "region_summary.total_revenue",
                        "depth": 1,
                        "dependency": "DIRECT",
                        "path": [_T + "customer_revenue.revenue", _T + "region_summary.total_revenue"],
                        "broken": False,
                    }
                ],
                "groups": [{"type": "FIELD", "count": 1, "sample_node_ids": [], "severity": "MEDIUM"}],
                "truncated": False,
            },
            "verdict": "POSSIBLY_BREAKING",
            "reason": "computed otherwise (SUM(o.amount) → AVG(o.amount)); values change for 1 column(s) downstream",
        }
    ],
    "tables": [],
    "jobs": [{"job": "marts/customer_revenue.sql#1", "kind": "changed"}],
    "problems": [],
    "impact_from": "2026-11-01T00:00:00+00:00",
    "verdict": "POSSIBLY_BREAKING",
    "reasons": [_T + "customer_revenue.revenue: computed otherwise (SUM(o.amount) → AVG(o.amount)); …"],
    "counts": {"BREAKING": 0, "POSSIBLY_BREAKING": 1, "SAFE": 0, "problems": 0},
    "edges": [
        {
            "status": "changed",
            "source": _T + "orders.amount",
            "target": _T + "customer_revenue.revenue",
            "source_id": 12,
            "target_id": 31,
            "dependency": "DIRECT",
            "subtype": "AGGREGATION",
            "expression": "AVG(o.amount)",
        }
    ],
}


class Diff(BaseModel):
    """What changed between two times of the store (see ``docs/diff.md``)."""

    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE]})
    old: str
    new: str
    columns: list[DiffColumnChange]
    tables: list[DiffTableChange]
    jobs: list[DiffJobChange]
    problems: list[DiffProblem]
    impact_from: str
    verdict: str = Field(description="BREAKING, POSSIBLY_BREAKING or SAFE: the worst of the changes")
    reasons: list[str]
    counts: dict[str, int]
    edges: list[DiffEdge]


def _field_ids(store: LineageStore, names: set[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    q = select(nodes.c.name, nodes.c.id).where(nodes.c.type == NodeType.FIELD.value)
    with store.engine.connect() as conn:
        for part in chunks(sorted(names)):
            out.update((r.name, r.id) for r in conn.execute(q.where(nodes.c.name.in_(part))))
    return out


def changed_edges(store: LineageStore, report: DiffReport) -> list[dict[str, Any]]:
    """The column edges added, removed and changed, each with the node ids of its ends."""
    rows: list[tuple[str, str, str, str, str, str]] = []
    for c in report.columns:
        rows += [("added", e.source, e.target, e.dependency, e.subtype, e.expression) for e in c.added]
        rows += [("removed", e.source, e.target, e.dependency, e.subtype, e.expression) for e in c.removed]
        rows += [("changed", e.source, c.column, e.dependency, e.new_subtype, e.new_expression) for e in c.changed]
    ids = _field_ids(store, {n for r in rows for n in r[1:3]})
    keys = ("status", "source", "target", "dependency", "subtype", "expression")
    return [{**dict(zip(keys, r, strict=True)), "source_id": ids.get(r[1]), "target_id": ids.get(r[2])} for r in rows]


def _time(field: str, value: str | None) -> int | None:
    try:
        return parse_since(value) if value not in (None, "", "now") else None
    except InvalidInput as exc:
        raise ApiError(400, f"query.{field}", exc.message) from None


@read.get("/diff", operation_id="get_diff", response_model=Diff, responses={400: {"model": m.ErrorResponse}})
def get_diff(
    store: Store,
    since: Annotated[
        str,
        Query(
            alias="from",
            description="the earlier time: ISO 8601, or a duration back from now (7d, 12h)",
            examples=["2026-11-01T00:00:00Z"],
        ),
    ],
    until: Annotated[
        str | None, Query(alias="to", description="the later time (default: now)", examples=["now"])
    ] = None,
) -> Diff:
    """Lineage changes between two times of the store, per column, with each change's downstream
    and a verdict (BREAKING, POSSIBLY_BREAKING, SAFE); ``headwater diff --from … --to …`` in JSON."""
    t0, t1 = _time("from", since), _time("to", until)
    if t0 is None:
        raise ApiError(400, "query.from", "the earlier time is required (ISO 8601, or a duration: 7d)")
    report = diff(store_side(store, t0, since), store_side(store, t1, until or "now"))
    return Diff(**report_dict(report), edges=changed_edges(store, report))
