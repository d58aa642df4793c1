"""gRPC errors: status codes for what REST answers 4xx, details naming the request field (also in
the ``headwater-field`` trailer), and the same message as REST."""

from __future__ import annotations

import json
from typing import Any

import grpc
import pytest
from tests.service.grpc.conftest import RO, RW, Apis, chain_requests

from headwater.service.grpc import governance_pb2 as gpb
from headwater.service.grpc import pipeline_pb2 as ppb

V1 = "/api/v1"


def _fails(call: Any, request: Any, metadata: Any = RW) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as info:
        call(request, metadata=metadata)
    return info.value


def _field(err: grpc.RpcError) -> str:
    return dict(err.trailing_metadata() or ())["headwater-field"]


def test_unknown_node_is_not_found_naming_the_field(apis: Apis) -> None:
    err = _fails(apis.gov.GetLineage, gpb.GetLineageRequest(entity_id="nope"))
    rest = apis.rest.get(f"{V1}/lineage", params={"node": "nope"}).json()["error"]
    assert err.code() == grpc.StatusCode.NOT_FOUND
    assert err.details() == f"entity_id: {rest['message']}" == "entity_id: no node matches 'nope'"
    assert _field(err) == "entity_id"
    err = _fails(apis.pipe.GetLineageSummary, ppb.GetSummaryRequest(dataset_id="#99999999999"))
    assert (err.code(), _field(err)) == (grpc.StatusCode.NOT_FOUND, "dataset_id")
    err = _fails(apis.gov.DeleteLineage, gpb.DeleteLineageRequest(event_id="x"))
    assert (err.code(), err.details()) == (grpc.StatusCode.NOT_FOUND, "event_id: no event 'x'")


def test_missing_or_wrong_kind_of_node_is_invalid_argument(apis: Apis) -> None:
    err = _fails(apis.gov.TraceOrigin, gpb.TraceOriginRequest())
    assert (err.code(), _field(err)) == (grpc.StatusCode.INVALID_ARGUMENT, "entity_id")
    err = _fails(apis.pipe.GetFieldOrigin, ppb.FieldOriginRequest(field_id="lineage_orders"))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert err.details() == "field_id: 'lineage_orders' is a DATASET, not a field"
    err = _fails(apis.gov.DeleteLineage, gpb.DeleteLineageRequest(dataset="lineage_orders.amount"))
    assert (err.code(), _field(err)) == (grpc.StatusCode.INVALID_ARGUMENT, "dataset")
    err = _fails(apis.gov.DeleteLineage, gpb.DeleteLineageRequest())
    assert err.details() == "target: give exactly one of event_id, job, dataset"


def test_ambiguous_name_lists_the_candidates(apis: Apis) -> None:
    for req in chain_requests()[:1]:
        apis.gov.RecordLineage(req, metadata=RW)
    apis.gov.RecordLineage(
        gpb.RecordLineageRequest(
            context=gpb.ExecutionContext(pipeline_id="p2"),
            inputs=[gpb.DatasetRef(name="other.customers", namespace="crm2")],
        ),
        metadata=RW,
    )
    err = _fails(apis.gov.GetLineageSummary, gpb.GetLineageSummaryRequest(entity_id="customers"))
    rest = apis.rest.get(f"{V1}/summary", params={"node": "customers"})
    assert rest.status_code == 409
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert err.details() == f"entity_id: {rest.json()['error']['message']}"
    assert json.loads(dict(err.trailing_metadata())["headwater-candidates"]) == rest.json()["error"]["candidates"]


def test_out_of_range_numbers_and_enum_values(apis: Apis) -> None:
    err = _fails(apis.gov.GetLineage, gpb.GetLineageRequest(entity_id="lineage_orders", max_depth=-1))
    assert (err.code(), err.details()) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "max_depth: -1 is out of range: give a number between 0 and 100",
    )
    err = _fails(apis.pipe.GetFullLineage, ppb.GetFullLineageRequest(dataset_id="lineage_orders", limit=0))
    assert _field(err) == "limit"
    err = _fails(apis.gov.GetLineage, gpb.GetLineageRequest(entity_id="lineage_orders", node_type_filter=[0]))
    assert err.details().startswith("node_type_filter[0]: 0 is not a node type (NODE_TYPE_ENTITY, ")
    err = _fails(apis.gov.GetLineage, gpb.GetLineageRequest(entity_id="lineage_orders", direction=7))
    assert _field(err) == "direction"
    err = _fails(apis.gov.AnalyzeImpact, gpb.AnalyzeImpactRequest(target_id="lineage_orders", sample_size=101))
    assert _field(err) == "sample_size"


def test_analyze_impact_refusals_name_change_details(apis: Apis) -> None:
    req = gpb.AnalyzeImpactRequest(target_id="lineage_orders")
    req.change_details.update({"operation": "EXPLODE"})
    err = _fails(apis.gov.AnalyzeImpact, req)
    rest = apis.rest.post(
        f"{V1}/analyze-impact", json={"target": "lineage_orders", "details": {"operation": "EXPLODE"}}
    )
    assert rest.status_code == 400
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert err.details() == f"change_details.operation: {rest.json()['error']['message']}"
    req = gpb.AnalyzeImpactRequest(target_id="lineage_orders")
    req.change_details.update({"columns": ["nope"]})
    assert _field(_fails(apis.gov.AnalyzeImpact, req)) == "change_details.columns"
    err = _fails(apis.gov.AnalyzeImpact, gpb.AnalyzeImpactRequest(target_id="lineage_orders", change_type="MELT"))
    assert (err.code(), _field(err)) == (grpc.StatusCode.INVALID_ARGUMENT, "change_type")


def test_record_lineage_refusals_name_the_field_and_record_nothing(apis: Apis) -> None:
    before = apis.store.get_lineage_stats().events_recorded
    bad = gpb.RecordLineageRequest(inputs=[gpb.DatasetRef(name="a.b", type=gpb.NODE_TYPE_FIELD)])
    err = _fails(apis.gov.RecordLineage, bad)
    rest = apis.rest.post(f"{V1}/record", json={"context": {}, "inputs": [{"name": "a.b", "type": "FIELD"}]})
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert err.details() == f"inputs[0].type: {rest.json()['error']['message']}"
    err = _fails(apis.pipe.RecordLineage, ppb.RecordLineageRequest(outputs=[ppb.DatasetRef(name="")]))
    assert _field(err) == "outputs[0].name"
    mapping = gpb.FieldMapping(
        target_field=gpb.FieldRef(dataset=gpb.DatasetRef(name="a.b"), field="x"), transform_type=9
    )
    err = _fails(apis.gov.RecordLineage, gpb.RecordLineageRequest(field_mappings=[mapping]))
    assert _field(err) == "field_mappings[0].transform_type"
    batch = gpb.BatchRecordLineageRequest(requests=[*chain_requests(), bad])
    err = _fails(apis.gov.BatchRecordLineage, batch)
    assert (err.code(), _field(err)) == (grpc.StatusCode.INVALID_ARGUMENT, "requests[3].inputs[0].type")
    long = gpb.RecordLineageRequest(inputs=[gpb.DatasetRef(name="x" * 2000)])
    err = _fails(
        apis.pipe.BatchRecordLineage,
        ppb.BatchRecordLineageRequest.FromString(
            gpb.BatchRecordLineageRequest(requests=[chain_requests()[0], long]).SerializeToString()
        ),
    )
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT and _field(err) == "requests[1]"
    assert "names are at most 1024 characters" in err.details()
    assert apis.store.get_lineage_stats().events_recorded == before


def test_nul_characters_are_refused_naming_the_field(apis: Apis) -> None:
    err = _fails(apis.gov.GetUpstream, gpb.GetUpstreamRequest(entity_id="lineage\x00orders"))
    assert (err.code(), _field(err)) == (grpc.StatusCode.INVALID_ARGUMENT, "entity_id")
    req = gpb.RecordLineageRequest(metadata={"team": "a\x00b"})
    assert _field(_fails(apis.gov.RecordLineage, req)) == "metadata['team']"
    req = gpb.AnalyzeImpactRequest(target_id="lineage_orders")
    req.change_details.update({"columns": ["a\x00"]})
    assert _field(_fails(apis.gov.AnalyzeImpact, req)).startswith("change_details.fields['columns']")


def test_tokens_and_scopes(apis: Apis) -> None:
    stats = ppb.GetLineageStatsRequest()
    err = _fails(apis.pipe.GetLineageStats, stats, metadata=())
    assert (err.code(), _field(err)) == (grpc.StatusCode.UNAUTHENTICATED, "authorization")
    err = _fails(apis.pipe.GetLineageStats, stats, metadata=(("authorization", "Bearer wrong"),))
    assert err.code() == grpc.StatusCode.UNAUTHENTICATED
    assert apis.pipe.GetLineageStats(stats, metadata=RO).events_recorded == 1
    for call, request in (
        (apis.gov.RecordLineage, chain_requests()[0]),
        (apis.pipe.BatchRecordLineage, ppb.BatchRecordLineageRequest()),
        (apis.gov.DeleteLineage, gpb.DeleteLineageRequest(dataset="lineage_orders")),
    ):
        err = _fails(call, request, metadata=RO)
        assert (err.code(), err.details()) == (
            grpc.StatusCode.PERMISSION_DENIED,
            "authorization: this token lacks the 'write' scope",
        )
    # checked before anything about the request: a bad request without a token is UNAUTHENTICATED
    err = _fails(apis.gov.GetLineage, gpb.GetLineageRequest(entity_id="nope", max_depth=-5), metadata=())
    assert err.code() == grpc.StatusCode.UNAUTHENTICATED
    assert apis.store.get_lineage_stats().events_recorded == 1
