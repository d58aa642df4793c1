"""The two LineageService implementations: every RPC calls the REST API's endpoint function for the
same query (``routes_query`` / ``routes_record``) on the same store, so both APIs answer alike and
refuse alike. Errors become gRPC status codes; the details start with the request field at fault.

=====================  ==================  =====================================================
REST                   gRPC                when
=====================  ==================  =====================================================
400, 422, 409          INVALID_ARGUMENT    a malformed or refused field; an ambiguous name (the
                                           candidates are in the ``headwater-candidates`` trailer)
401                    UNAUTHENTICATED     no valid ``authorization: Bearer <token>`` metadata
403                    PERMISSION_DENIED   the token lacks the scope (read, or write for
                                           RecordLineage, BatchRecordLineage, DeleteLineage)
404                    NOT_FOUND           no such node, job, dataset or event
=====================  ==================  =====================================================
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Mapping
from typing import Any, NoReturn, TypeVar

import grpc
from google.protobuf.json_format import MessageToDict
from pydantic import ValidationError

from headwater.service import routes_query as q
from headwater.service import routes_record as w
from headwater.service import schemas as m
from headwater.service.auth import Tokens, scopes_for
from headwater.service.errors import ApiError
from headwater.service.grpc import convert as c
from headwater.service.grpc import governance_pb2 as gpb
from headwater.service.grpc import governance_pb2_grpc as gpb_grpc
from headwater.service.grpc import pipeline_pb2 as ppb
from headwater.service.grpc import pipeline_pb2_grpc as ppb_grpc
from headwater.store import Direction, LineageStore

log = logging.getLogger(__name__)
T = TypeVar("T")

GOVERNANCE = c.Layer(gpb)
PIPELINE = c.Layer(ppb, {"PIPELINE_STEP": "STEP"})

_CODES = {
    400: grpc.StatusCode.INVALID_ARGUMENT,
    401: grpc.StatusCode.UNAUTHENTICATED,
    403: grpc.StatusCode.PERMISSION_DENIED,
    404: grpc.StatusCode.NOT_FOUND,
    409: grpc.StatusCode.INVALID_ARGUMENT,
    422: grpc.StatusCode.INVALID_ARGUMENT,
}
FIELD_TRAILER = "headwater-field"
CANDIDATES_TRAILER = "headwater-candidates"
_DIRECTIONS = {
    gpb.LINEAGE_DIRECTION_UNSPECIFIED: Direction.BOTH,
    gpb.LINEAGE_DIRECTION_UPSTREAM: Direction.UPSTREAM,
    gpb.LINEAGE_DIRECTION_DOWNSTREAM: Direction.DOWNSTREAM,
    gpb.LINEAGE_DIRECTION_BOTH: Direction.BOTH,
}
_ROOT = re.compile(r"^(?:query|body|header)(?=[.\[]|$)\.?")


def request_field(api_field: str, names: Mapping[str, str]) -> str:
    """The request field of an error the REST code names by its own path.

    >>> request_field("query.node", {"node": "entity_id"})
    'entity_id'
    >>> request_field("body.details.operation", {"target": "target_id", "details": "change_details"})
    'change_details.operation'
    >>> request_field("body[2].inputs[0].type", {"": "requests"})
    'requests[2].inputs[0].type'
    >>> request_field("header.authorization", {})
    'authorization'
    """
    rest = _ROOT.sub("", api_field, count=1)
    head = re.match(r"^[^.\[]*", rest)
    first = head.group(0) if head else ""
    return names.get(first, first) + rest[len(first) :]


class _Service:
    """Authorisation, error translation and the store, shared by both layers."""

    layer: c.Layer

    def __init__(self, store: LineageStore, tokens: Tokens | None = None) -> None:
        self.store = store
        self.tokens = dict(tokens or {})

    def _abort(
        self, context: grpc.ServicerContext, status: int, field: str, message: str, cands: Any = None
    ) -> NoReturn:
        trailers: list[tuple[str, str]] = [(FIELD_TRAILER, field)]
        if cands:
            trailers.append((CANDIDATES_TRAILER, json.dumps(list(cands))))
        context.set_trailing_metadata(trailers)
        context.abort(_CODES.get(status, grpc.StatusCode.INVALID_ARGUMENT), f"{field}: {message}" if field else message)
        raise AssertionError("unreachable")  # context.abort raises

    def _authorise(self, context: grpc.ServicerContext, scope: str) -> None:
        if not self.tokens:
            return
        header = next((v for k, v in context.invocation_metadata() if k == "authorization"), None)
        scopes = scopes_for(self.tokens, header if isinstance(header, str) else None)
        if scopes is None:
            self._abort(context, 401, "authorization", "a valid bearer token is required (metadata authorization)")
        if scope not in scopes:
            self._abort(context, 403, "authorization", f"this token lacks the {scope!r} scope")

    def _run(
        self,
        context: grpc.ServicerContext,
        scope: str,
        request: Any,
        names: Mapping[str, str],
        answer: Callable[[], T],
    ) -> T:
        self._authorise(context, scope)
        bad = c.nul_field(request)
        if bad:
            self._abort(context, 422, bad, "a NUL character is not allowed")
        try:
            return answer()
        except c.BadField as exc:
            self._abort(context, 400, exc.field, exc.message)
        except ApiError as exc:
            self._abort(context, exc.status, request_field(exc.field, names), exc.message, exc.candidates)
        except ValidationError as exc:
            first = exc.errors()[0]
            path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first["loc"]).lstrip(".")
            self._abort(context, 400, request_field(path, names), first["msg"])
        except grpc.RpcError:
            raise
        except Exception:
            log.exception("gRPC %s failed", type(request).__name__)
            context.abort(grpc.StatusCode.INTERNAL, "internal error (see the server's log)")
            raise

    # ---------------------------------------------------------------- shared RPC bodies

    def _graph(self, request: Any, id_field: str, direction: Direction, cls: Any, depth: bool = True) -> Any:
        node = c.node_ref(getattr(request, id_field), id_field)
        types = c.type_filter(self.layer, request.node_type_filter)
        max_depth = c.bounded(request, "max_depth", 3, 0, 100) if depth else None
        limit = c.bounded(request, "limit", 500, 1, 10_000)
        off = c.offset(request)
        at = c.as_of(request)
        if not depth:
            g = q.get_full_lineage(self.store, node, at, types, limit or 500, off)
        else:
            g = q.get_lineage(self.store, node, direction, max_depth, at, types, limit or 500, off)
        return c.graph(self.layer, g, cls)

    def _field_origin(self, request: Any, cls: Any) -> Any:
        field = c.node_ref(request.field_id, "field_id")
        r = q.get_field_origin(
            self.store,
            field,
            request.include_indirect if request.HasField("include_indirect") else None,
            c.as_of(request),
            c.bounded(request, "max_depth", None, 0, 100),
            c.bounded(request, "limit", 500, 1, 10_000) or 500,
            c.offset(request),
            level=c.field_level(self.layer, request.level),
        )
        return c.field_origin(self.layer, r, cls)

    def _field_impact(self, request: Any, cls: Any) -> Any:
        field = c.node_ref(request.field_id, "field_id")
        r = q.get_field_impact(
            self.store,
            field,
            c.as_of(request),
            c.bounded(request, "max_depth", None, 0, 100),
            c.bounded(request, "limit", 500, 1, 10_000) or 500,
            c.offset(request),
            level=c.field_level(self.layer, request.level),
        )
        return c.field_impact(self.layer, r, cls)

    def _summary(self, request: Any, id_field: str, cls: Any) -> Any:
        node = c.node_ref(getattr(request, id_field), id_field)
        return c.summary(self.layer, q.get_lineage_summary(self.store, node, c.as_of(request)), cls)

    def _record(self, request: Any, cls: Any) -> Any:
        body = m.RecordLineageRequest.model_validate(c.record_request(self.layer, request))
        return c.record_result(w.record_lineage(self.store, body), cls)

    def _record_batch(self, request: Any, cls: Any) -> Any:
        bodies = []
        for k, item in enumerate(request.requests):
            try:
                bodies.append(m.RecordLineageRequest.model_validate(c.record_request(self.layer, item)))
            except c.BadField as exc:
                raise c.BadField(f"requests[{k}].{exc.field}", exc.message) from None
            except ValidationError as exc:
                first = exc.errors()[0]
                path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first["loc"])
                raise c.BadField(f"requests[{k}]{path}", first["msg"]) from None
        return c.record_result(w.record_lineage_batch(self.store, bodies), cls)

    def _delete(self, request: Any, cls: Any) -> Any:
        which = request.WhichOneof("target")
        if which is None:
            raise c.BadField("target", "give exactly one of event_id, job, dataset")
        value = getattr(request, which)
        if which != "event_id":
            c.node_ref(value, which)
        elif not value:
            raise c.BadField("event_id", "missing")
        args = {"event_id": None, "job": None, "dataset": None, which: value}
        r = w.delete_lineage(
            self.store, args["event_id"], args["job"], args["dataset"], request.purge, c.as_of(request, "at")
        )
        return c.delete_result(r, cls)


_GRAPH_NAMES = {"node": "entity_id"}
_FIELD_NAMES = {"field": "field_id"}
_RECORD_NAMES: dict[str, str] = {}
_BATCH_NAMES = {"": "requests"}
_DELETE_NAMES: dict[str, str] = {}


class GovernanceService(_Service, gpb_grpc.LineageServiceServicer):
    """``headwater.lineage.governance.v1.LineageService``: entity-centric lineage."""

    layer = GOVERNANCE

    def GetLineage(self, request: Any, context: grpc.ServicerContext) -> Any:
        def answer() -> Any:
            direction = _DIRECTIONS.get(request.direction)
            if direction is None:
                raise c.BadField("direction", f"{request.direction} is not a LineageDirection")
            return self._graph(request, "entity_id", direction, gpb.GetLineageResponse)

        return self._run(context, "read", request, _GRAPH_NAMES, answer)

    def GetUpstream(self, request: Any, context: grpc.ServicerContext) -> Any:
        return self._run(
            context,
            "read",
            request,
            _GRAPH_NAMES,
            lambda: self._graph(request, "entity_id", Direction.UPSTREAM, gpb.GetUpstreamResponse),
        )

    def GetDownstream(self, request: Any, context: grpc.ServicerContext) -> Any:
        return self._run(
            context,
            "read",
            request,
            _GRAPH_NAMES,
            lambda: self._graph(request, "entity_id", Direction.DOWNSTREAM, gpb.GetDownstreamResponse),
        )

    def TraceOrigin(self, request: Any, context: grpc.ServicerContext) -> Any:
        def answer() -> Any:
            node = c.node_ref(request.entity_id, "entity_id")
            depth = c.bounded(request, "max_depth", None, 0, 100)
            r = q.trace_origin(self.store, node, depth, c.as_of(request))
            return c.trace(self.layer, r, gpb.TraceOriginResponse)

        return self._run(context, "read", request, _GRAPH_NAMES, answer)

    def AnalyzeImpact(self, request: Any, context: grpc.ServicerContext) -> Any:
        def answer() -> Any:
            c.node_ref(request.target_id, "target_id")
            body = {
                "target": request.target_id,
                "change_type": request.change_type.strip().upper() or "SCHEMA_CHANGE",
                "details": MessageToDict(request.change_details) if request.HasField("change_details") else {},
                "as_of": c.as_of(request),
                "sample_size": c.bounded(request, "sample_size", 5, 0, 100),
            }
            r = q.analyze_impact(self.store, m.AnalyzeImpactRequest.model_validate(body))
            return c.impact(self.layer, r, gpb.ImpactAnalysisResponse)

        names = {"target": "target_id", "details": "change_details", "as_of": "as_of_time"}
        return self._run(context, "read", request, names, answer)

    def GetFieldImpact(self, request: Any, context: grpc.ServicerContext) -> Any:
        return self._run(
            context, "read", request, _FIELD_NAMES, lambda: self._field_impact(request, gpb.FieldImpactResponse)
        )

    def GetFieldOrigin(self, request: Any, context: grpc.ServicerContext) -> Any:
        return self._run(
            context, "read", request, _FIELD_NAMES, lambda: self._field_origin(request, gpb.FieldOriginResponse)
        )

    def RecordLineage(self, request: Any, context: grpc.ServicerContext) -> Any:
        return self._run(
            context, "write", request, _RECORD_NAMES, lambda: self._record(request, gpb.RecordLineageResponse)
        )

    def BatchRecordLineage(self, request: Any, context: grpc.ServicerContext) -> Any:
        return self._run(
            context,
            "write",
            request,
            _BATCH_NAMES,
            lambda: self._record_batch(request, gpb.BatchRecordLineageResponse),
        )

    def GetLineageSummary(self, request: Any, context: grpc.ServicerContext) -> Any:
        return self._run(
            context,
            "read",
            request,
            _GRAPH_NAMES,
            lambda: self._summary(request, "entity_id", gpb.LineageSummaryResponse),
        )

    def DeleteLineage(self, request: Any, context: grpc.ServicerContext) -> Any:
        return self._run(
            context, "write", request, _DELETE_NAMES, lambda: self._delete(request, gpb.DeleteLineageResponse)
        )


_DATASET_NAMES = {"node": "dataset_id"}


class PipelineService(_Service, ppb_grpc.LineageServiceServicer):
    """``headwater.lineage.pipeline.v1.LineageService``: dataset-centric lineage."""

    layer = PIPELINE

    def RecordLineage(self, request: Any, context: grpc.ServicerContext) -> Any:
        return self._run(
            context, "write", request, _RECORD_NAMES, lambda: self._record(request, ppb.RecordLineageResponse)
        )

    def BatchRecordLineage(self, request: Any, context: grpc.ServicerContext) -> Any:
        return self._run(
            context, "write", request, _BATCH_NAMES, lambda: self._record_batch(request, ppb.BatchRecordResponse)
        )

    def GetUpstream(self, request: Any, context: grpc.ServicerContext) -> Any:
        return self._run(
            context,
            "read",
            request,
            _DATASET_NAMES,
            lambda: self._graph(request, "dataset_id", Direction.UPSTREAM, ppb.LineageGraphResponse),
        )

    def GetDownstream(self, request: Any, context: grpc.ServicerContext) -> Any:
        return self._run(
            context,
            "read",
            request,
            _DATASET_NAMES,
            lambda: self._graph(request, "dataset_id", Direction.DOWNSTREAM, ppb.LineageGraphResponse),
        )

    def GetFullLineage(self, request: Any, context: grpc.ServicerContext) -> Any:
        return self._run(
            context,
            "read",
            request,
            _DATASET_NAMES,
            lambda: self._graph(request, "dataset_id", Direction.BOTH, ppb.LineageGraphResponse, depth=False),
        )

    def GetFieldImpact(self, request: Any, context: grpc.ServicerContext) -> Any:
        return self._run(
            context, "read", request, _FIELD_NAMES, lambda: self._field_impact(request, ppb.FieldImpactResponse)
        )

    def GetFieldOrigin(self, request: Any, context: grpc.ServicerContext) -> Any:
        return self._run(
            context, "read", request, _FIELD_NAMES, lambda: self._field_origin(request, ppb.FieldOriginResponse)
        )

    def GetLineageSummary(self, request: Any, context: grpc.ServicerContext) -> Any:
        return self._run(
            context, "read", request, _DATASET_NAMES, lambda: self._summary(request, "dataset_id", ppb.SummaryResponse)
        )

    def GetLineageStats(self, request: Any, context: grpc.ServicerContext) -> Any:
        return self._run(
            context,
            "read",
            request,
            {"as_of": "as_of_time"},
            lambda: c.stats(q.get_lineage_stats(self.store, c.as_of(request)), ppb.LineageStatsResponse),
        )

    def DeleteLineage(self, request: Any, context: grpc.ServicerContext) -> Any:
        return self._run(context, "write", request, _DELETE_NAMES, lambda: self._delete(request, ppb.DeleteResponse))
