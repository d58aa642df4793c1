"""Write endpoints: headwater events, OpenLineage RunEvents, record_lineage, delete.

Every request body is decoded and checked completely before anything is written, and then
written in one transaction: a bad item fails the whole request with nothing recorded.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Query, Request

from headwater.model import bounded_json, event_from_dict
from headwater.model.bounded_json import JsonTooDeep
from headwater.service import schemas as m
from headwater.service.deps import get_store, in_writer, no_nul_in_query, require
from headwater.service.errors import ApiError, as_api_errors, body_field, expecting, no_nul
from headwater.store import (
    DatasetRef,
    ExecutionContext,
    FieldMapping,
    FieldRef,
    InvalidInput,
    LineageStore,
    NodeNotFound,
    NodeType,
)
from headwater.store.from_event import event_facts
from headwater.store.from_external import lineage_facts
from headwater.store.from_openlineage import run_event_facts
from headwater.store.write import check

router = APIRouter(dependencies=[Depends(require("write")), Depends(no_nul_in_query)])
Store = Annotated[LineageStore, Depends(get_store)]
ERRORS = {400: {"model": m.ErrorResponse}, 404: {"model": m.ErrorResponse}, 422: {"model": m.ErrorResponse}}


def _json_items(raw: bytes) -> tuple[list[Any], list[str]]:
    """A JSON object, a JSON array, or JSON lines (``application/x-ndjson``): the items, and the path
    of each in the body (``body`` for a lone object, ``body[k]`` in an array or the k-th line).

    A NUL character anywhere is refused (422) before anything is decoded further."""
    text = raw.decode("utf-8", errors="replace").strip()
    if not text:
        raise ApiError(400, "body", "empty body")
    try:
        data = bounded_json.loads(text)
    except JsonTooDeep as exc:
        raise ApiError(400, "body", f"not accepted: {exc}") from None
    except json.JSONDecodeError:
        try:
            data = [bounded_json.loads(line) for line in text.splitlines() if line.strip()]
        except JsonTooDeep as exc:
            raise ApiError(400, "body", f"not accepted: {exc}") from None
        except json.JSONDecodeError as exc:
            raise ApiError(400, "body", f"not JSON or JSON lines: {exc}") from None
    items = data if isinstance(data, list) else [data]
    paths = [f"body[{k}]" for k in range(len(items))] if isinstance(data, list) else ["body"]
    if "\\u0000" in text:  # JSON text can only hold a NUL escaped
        for item, path in zip(items, paths, strict=True):
            no_nul(item, path)
    return items, paths


def _refused(exc: InvalidInput, paths: list[str], translate: Callable[[int], object]) -> ApiError:
    """The store refused a batch: name the item (the first one the store refuses on its own) and the
    field in it; ``body`` when no single item is refused alone."""
    at = "body"
    for k, path in enumerate(paths):
        try:
            translate(k)
        except InvalidInput as alone:
            at, exc = path, alone
            break
    return ApiError(400, *body_field(at, exc.field, exc.message))


def _result(r: Any) -> m.RecordResult:
    return m.RecordResult.model_validate(r)


@router.post(
    "/events",
    operation_id="record_batch",
    response_model=m.RecordResult,
    status_code=201,
    responses=ERRORS,
    openapi_extra={
        "requestBody": {
            "content": {
                "application/json": {
                    "schema": {
                        "description": "a headwater event (docs/event-format.md), an array of them, or JSON lines"
                    }
                }
            }
        }
    },
)
async def record_events(request: Request, store: Store) -> m.RecordResult:
    """Record headwater events (idempotent on ``event_id``)."""
    return await in_writer(request, _record_events, store, await request.body())


def _record_events(store: LineageStore, raw: bytes) -> m.RecordResult:
    items, paths = _json_items(raw)
    events = []
    for item, path in zip(items, paths, strict=True):
        with as_api_errors(path):
            events.append(event_from_dict(item))
    try:
        return _result(store.record_batch(events))
    except InvalidInput as exc:
        raise _refused(exc, paths, lambda k: check(event_facts(events[k]))) from None


@router.post(
    "/lineage",
    operation_id="record_openlineage",
    response_model=m.RecordResult,
    status_code=201,
    responses=ERRORS,
    openapi_extra={
        "requestBody": {
            "content": {
                "application/json": {"schema": {"description": "an OpenLineage RunEvent (or an array of them)"}}
            }
        }
    },
)
async def record_openlineage(request: Request, store: Store) -> m.RecordResult:
    """Record OpenLineage RunEvents: the path OpenLineage's HTTP transport posts to."""
    return await in_writer(request, _record_openlineage, store, await request.body())


def _record_openlineage(store: LineageStore, raw: bytes) -> m.RecordResult:
    items, paths = _json_items(raw)
    for item, path in zip(items, paths, strict=True):
        if not isinstance(item, dict):
            raise ApiError(400, path, "expected a RunEvent object")
    try:
        return _result(store.record_openlineage(items))
    except InvalidInput as exc:
        raise _refused(exc, paths, lambda k: check(run_event_facts(items[k], store.namespaces, store.naming))) from None


def _ref(d: m.DatasetRefIn) -> DatasetRef:
    return DatasetRef(d.name, d.namespace, NodeType(d.type), tuple(d.fields))


LineageCall = tuple[ExecutionContext, list[DatasetRef], list[DatasetRef], list[FieldMapping], dict[str, str]]


def lineage_call(body: m.RecordLineageRequest) -> LineageCall:
    """The arguments of ``LineageStore.record_lineage`` for one request (REST and gRPC alike)."""
    c = body.context
    ctx = ExecutionContext(c.pipeline_id, c.execution_id, c.step_id, c.step_name, c.user_id, c.timestamp, c.duration_ms)
    maps = [
        FieldMapping(
            tuple(FieldRef(_ref(s.dataset), s.field) for s in f.source_fields),
            FieldRef(_ref(f.target_field.dataset), f.target_field.field),
            f.transform_expression,
            f.transform_type,
            dict(f.properties),
        )
        for f in body.field_mappings
    ]
    return ctx, [_ref(i) for i in body.inputs], [_ref(o) for o in body.outputs], maps, dict(body.metadata)


@router.post("/record", operation_id="record_lineage", response_model=m.RecordResult, status_code=201, responses=ERRORS)
def record_lineage(store: Store, body: Annotated[m.RecordLineageRequest, Body()]) -> m.RecordResult:
    """Record lineage another tool reports: a pipeline step's inputs, outputs and field mappings."""
    no_nul(body.model_dump(mode="json"), "body")
    with as_api_errors("body"):
        return _result(store.record_lineage(*lineage_call(body)))


def record_lineage_batch(store: LineageStore, bodies: list[m.RecordLineageRequest]) -> m.RecordResult:
    """Record many ``record_lineage`` requests in one transaction (gRPC's BatchRecordLineage); a
    refused item is named ``body[k]…``."""
    paths = [f"body[{k}]" for k in range(len(bodies))]
    calls = []
    for body, path in zip(bodies, paths, strict=True):
        no_nul(body.model_dump(mode="json"), path)
        calls.append(lineage_call(body))
    try:
        return _result(store.record_lineage_batch(calls))
    except InvalidInput as exc:
        raise _refused(exc, paths, lambda k: check(lineage_facts(*calls[k]))) from None


@router.delete("/lineage", operation_id="delete_lineage", response_model=m.DeleteResult, responses=ERRORS)
def delete_lineage(
    store: Store,
    event_id: str | None = None,
    job: str | None = None,
    dataset: str | None = None,
    purge: Annotated[bool, Query(description="erase instead of closing")] = False,
    at: datetime | None = None,
) -> m.DeleteResult:
    """Close the edges of one event, job or dataset (or erase them with ``purge``)."""
    given = [k for k, v in (("event_id", event_id), ("job", job), ("dataset", dataset)) if v is not None]
    if len(given) != 1:
        raise ApiError(400, "query.event_id", "give exactly one of event_id, job, dataset")
    field = f"query.{given[0]}"
    if event_id is not None:
        try:
            return m.DeleteResult.model_validate(store.delete_lineage(event_id, None, None, purge, at))
        except NodeNotFound:
            raise ApiError(404, field, f"no event {event_id!r}") from None
    ref, what = (job, "job or step") if job is not None else (dataset, "dataset")
    assert ref is not None
    with as_api_errors(field, ref), expecting(store, field, ref, what):
        return m.DeleteResult.model_validate(store.delete_lineage(None, job, dataset, purge, at))
