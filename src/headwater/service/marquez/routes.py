"""The Marquez-compatible read endpoints under ``/api/v1`` (Marquez's paths, parameters and shapes).

``GET /api/v1/lineage`` is also headwater's own graph query: a request with ``nodeId`` is Marquez's
(``WhenNodeId`` matches only then), one with ``node`` headwater's. Namespaces hold slashes
(``postgres://db:5432``), so the ``/namespaces/…`` paths are split on the raw path's own slashes
(a client encodes those of a name as ``%2F``, as Marquez's web UI does)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Annotated, Any, Literal
from urllib.parse import parse_qsl, unquote

from fastapi import APIRouter, Depends, Query, Request, Response
from fastapi.routing import APIRoute
from starlette.routing import Match
from starlette.types import Scope

from headwater.service.deps import get_store, no_nul_in_query, require
from headwater.service.errors import ApiError
from headwater.service.marquez import catalog, columns, events, graph, search
from headwater.store import LineageStore

router = APIRouter(dependencies=[Depends(require("read")), Depends(no_nul_in_query)], include_in_schema=False)
Store = Annotated[LineageStore, Depends(get_store)]
Depth = Annotated[int, Query(ge=0, le=100, description="levels of lineage (Marquez's default 20)")]
Limit = Annotated[int, Query(ge=0, le=10_000)]
Offset = Annotated[int, Query(ge=0)]
NODES_PATH = "/namespaces/"


def _json(value: Any) -> Response:
    return Response(json.dumps(value, separators=(",", ":"), ensure_ascii=False), media_type="application/json")


class WhenNodeId(APIRoute):
    """A route that matches only requests with a ``nodeId`` query parameter (Marquez's form)."""

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        match, child = super().matches(scope)
        if match is Match.NONE:
            return match, child
        query = scope.get("query_string", b"").decode("latin-1")
        if not any(k == "nodeId" for k, _ in parse_qsl(query, keep_blank_values=True)):
            return Match.NONE, {}
        return match, child


def get_lineage(store: Store, nodeId: Annotated[str, Query()], depth: Depth = 20) -> Response:
    """Marquez's lineage graph of datasets and jobs around ``nodeId`` (``dataset:…`` or ``job:…``)."""
    return _json(graph.lineage(store, nodeId, depth))


router.add_api_route("/lineage", get_lineage, methods=["GET"], route_class_override=WhenNodeId)


@router.get("/column-lineage")
def get_column_lineage(
    store: Store,
    nodeId: Annotated[str, Query()],
    depth: Depth = 20,
    withDownstream: bool = False,
) -> Response:
    """Marquez's column lineage graph of a field (``datasetField:…``), a dataset's or a job's output fields."""
    return _json(columns.column_lineage(store, nodeId, depth, withDownstream))


@router.get("/namespaces")
def get_namespaces(store: Store, limit: Limit = 100, offset: Offset = 0) -> Response:
    return _json({"namespaces": catalog.namespaces(store)[offset : offset + limit]})


def _segments(request: Request) -> list[str]:
    """The path after ``/namespaces/``, split on its raw slashes, each part decoded."""
    raw = request.scope.get("raw_path") or request.url.path.encode()
    text = raw.decode("latin-1").split("?", 1)[0]
    tail = text[text.index(NODES_PATH) + len(NODES_PATH) :] if NODES_PATH in text else ""
    return [unquote(p, encoding="utf-8", errors="replace") for p in tail.split("/")]


@router.get("/namespaces/{rest:path}")
def get_in_namespace(request: Request, store: Store, rest: str, limit: Limit = 100, offset: Offset = 0) -> Response:
    """``{ns}``, ``{ns}/datasets``, ``{ns}/datasets/{name}`` (and its ``versions``), ``{ns}/jobs``,
    ``{ns}/jobs/{name}`` (and its ``runs``)."""
    parts = _segments(request)
    ns = parts[0]
    match parts[1:]:
        case []:
            return _json(catalog.one_namespace(store, ns))
        case ["datasets"]:
            return _json(catalog.datasets(store, ns, limit, offset))
        case ["datasets", name]:
            return _json(catalog.dataset(store, ns, name))
        case ["datasets", name, "versions"]:
            catalog.dataset(store, ns, name)  # 404 for an unknown dataset
            return _json({"versions": [], "totalCount": 0})
        case ["jobs"]:
            return _json(catalog.jobs(store, ns, limit, offset))
        case ["jobs", name]:
            return _json(catalog.job(store, ns, name))
        case ["jobs", name, "runs"]:
            catalog.job(store, ns, name)
            return _json({"runs": [], "totalCount": 0})
    raise ApiError(404, "path", f"no Marquez endpoint /namespaces/{rest}")


@router.get("/tags")
def get_tags(limit: Limit = 100, offset: Offset = 0) -> Response:
    """Marquez's tags: none (headwater keeps no Marquez tags; its web UI asks for them on every page)."""
    return _json({"tags": []})


@router.get("/search")
def get_search(
    store: Store,
    q: Annotated[str, Query(min_length=1, max_length=1024)],
    filter: Literal["dataset", "job", "DATASET", "JOB"] | None = None,
    sort: Literal["name", "updated_at", "NAME", "UPDATED_AT"] = "name",
    limit: Annotated[int, Query(ge=1, le=10_000)] = 10,
    namespace: str | None = None,
) -> Response:
    """Datasets and jobs whose name matches ``q`` (``%`` and ``_`` wildcards)."""
    return _json(search.search(store, q, filter, sort.lower(), limit, namespace))


@router.get("/events/lineage")
def get_lineage_events(
    store: Store,
    before: datetime | None = None,
    after: datetime | None = None,
    sortDirection: Literal["asc", "desc"] = "desc",
    limit: Limit = 100,
    offset: Offset = 0,
) -> Response:
    """Stored OpenLineage events (headwater's own events as the RunEvents it emits for them), newest first."""
    return _json(events.lineage_events(store, before, after, sortDirection == "asc", limit, offset))
