"""Issue 38 item 4 (and 5): gRPC answers what REST answers with the same defaults — the field
level, the SOURCE_SYSTEM filter, ``as_of_time`` before the first event — serves reflection v1,
refuses an unparsable request as INVALID_ARGUMENT, and deleting a pipeline closes its steps. The
client is the stubs generated from the shipped protos (``test_server`` checks they are not stale)."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from tests.service.grpc.conftest import RW, Apis
from tests.service.grpc.shapes import graph, paths, rest_graph, rest_paths
from tests.service.grpc.test_same_answers import SUMMARY, V1, _get

from headwater.service.grpc import governance_pb2 as gpb
from headwater.service.grpc import pipeline_pb2 as ppb
from headwater.service.grpc.server import SERVICE_NAMES

FIELD = "lineage_customer_summary.region_group"


LAYERS = [
    ("gov", gpb.GetFieldOriginRequest, gpb.GetFieldImpactRequest, gpb),
    ("pipe", ppb.FieldOriginRequest, ppb.FieldImpactRequest, ppb),
]


@pytest.mark.parametrize(("stub", "origin_cls", "impact_cls", "pb"), LAYERS, ids=["governance", "pipeline"])
def test_field_origin_and_impact_default_to_rests_level_and_take_a_level(
    apis: Apis, stub: str, origin_cls: Any, impact_cls: Any, pb: Any
) -> None:
    s = getattr(apis, stub)
    got = s.GetFieldOrigin(origin_cls(field_id=FIELD), metadata=RW)
    rest = _get(apis, "field-origin", field=FIELD)
    assert paths(got.origins) == rest_paths(rest["origins"])
    assert [p.field.short_name for p in got.origins] == ["lineage_orders.region"]  # not the column itself
    assert (got.level, got.include_indirect) == ("field", False) == (rest["level"], rest["include_indirect"])
    for level in ("direct", "field", "all"):
        number = pb.FieldLevel.Value(f"FIELD_LEVEL_{level.upper()}")
        o = s.GetFieldOrigin(origin_cls(field_id=FIELD, level=number), metadata=RW)
        r = _get(apis, "field-origin", field=FIELD, level=level)
        assert (paths(o.origins), o.level) == (rest_paths(r["origins"]), level)
        i = s.GetFieldImpact(impact_cls(field_id="lineage_orders.region", level=number), metadata=RW)
        r = _get(apis, "field-impact", field="lineage_orders.region", level=level)
        assert (paths(i.impacted), i.total, i.level) == (rest_paths(r["impacted"]), r["total"], level)
    direct = s.GetFieldOrigin(origin_cls(field_id=FIELD, include_indirect=False), metadata=RW)
    assert direct.level == "direct"  # the seed's flag still says what it said
    with pytest.raises(grpc.RpcError) as err:
        s.GetFieldOrigin(origin_cls(field_id=FIELD, level=9), metadata=RW)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT and err.value.details().startswith("level:")


def test_source_system_filter_finds_the_sources(apis: Apis) -> None:
    req = gpb.GetLineageRequest(
        entity_id=SUMMARY, direction=gpb.LINEAGE_DIRECTION_UPSTREAM, node_type_filter=[gpb.NODE_TYPE_SOURCE_SYSTEM]
    )
    got = apis.gov.GetLineage(req, metadata=RW)
    rest = _get(apis, "lineage", node=SUMMARY, direction="UPSTREAM", node_types="SOURCE_SYSTEM")
    assert {**graph(got), "root": None} == {**rest_graph(rest), "root": None}  # (the shapes' root is nodes[0])
    assert [(n.headwater_type, n.name) for n in got.nodes] == [("SOURCE_SYSTEM", "internal")]
    assert got.nodes[0].depth == -1
    trace = apis.gov.TraceOrigin(gpb.TraceOriginRequest(entity_id=SUMMARY), metadata=RW)
    assert {n.name for n in trace.source_systems} == {n.name for n in got.nodes}


def test_as_of_before_the_first_event_is_an_empty_graph_on_both_apis(apis: Apis) -> None:
    for rpc, cls in (("GetLineage", gpb.GetLineageRequest), ("GetUpstream", gpb.GetUpstreamRequest)):
        req = cls(entity_id=SUMMARY)
        req.as_of_time.FromJsonString("2020-01-01T00:00:00Z")
        got = getattr(apis.gov, rpc)(req, metadata=RW)
        assert (list(got.nodes), list(got.edges), got.total_nodes) == ([], [], 0)
    rest = _get(apis, "lineage", node=SUMMARY, as_of="2020-01-01T00:00:00Z")
    assert (rest["nodes"], rest["edges"], rest["total_nodes"]) == ([], [], 0)
    later = _get(apis, "lineage", node=SUMMARY, as_of="2030-01-01T00:00:00Z")
    assert later["total_nodes"] > 1


def _reflect(apis: Apis, service: str) -> list[str]:
    from grpc_reflection.v1alpha import reflection_pb2 as r

    call = apis.channel.stream_stream(
        f"/{service}/ServerReflectionInfo",
        request_serializer=r.ServerReflectionRequest.SerializeToString,
        response_deserializer=r.ServerReflectionResponse.FromString,
    )
    [answer] = list(call(iter([r.ServerReflectionRequest(list_services="")])))
    return [s.name for s in answer.list_services_response.service]


def test_reflection_serves_v1_and_v1alpha(apis: Apis) -> None:
    pytest.importorskip("grpc_reflection.v1alpha")
    for service in ("grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection"):
        names = _reflect(apis, service)
        assert set(SERVICE_NAMES) <= set(names), service
        assert "grpc.reflection.v1.ServerReflection" in names


def test_an_unparsable_request_is_invalid_argument(apis: Apis) -> None:
    for method in (
        "/headwater.lineage.governance.v1.LineageService/GetLineage",
        "/headwater.lineage.pipeline.v1.LineageService/GetUpstream",
    ):
        call = apis.channel.unary_unary(method)  # raw bytes: no serializer
        with pytest.raises(grpc.RpcError) as err:
            call(b"\x12\xff\xff\xff\xff\x0f", metadata=RW)  # field 2, a length far past the end
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, err.value.details()
        assert err.value.details().startswith("request: cannot parse")


def _pipeline_step(pb: Any) -> Any:
    return pb.RecordLineageRequest(
        context=pb.ExecutionContext(pipeline_id="etl_daily", execution_id="e-1", step_id="load_dim"),
        inputs=[pb.DatasetRef(name="raw.customers", namespace="pg", fields=["id"])],
        outputs=[pb.DatasetRef(name="dw.dim_customer", namespace="dw", fields=["id"])],
        field_mappings=[
            pb.FieldMapping(
                source_fields=[pb.FieldRef(dataset=pb.DatasetRef(name="raw.customers", namespace="pg"), field="id")],
                target_field=pb.FieldRef(dataset=pb.DatasetRef(name="dw.dim_customer", namespace="dw"), field="id"),
            )
        ],
    )


def test_deleting_a_pipeline_closes_its_steps_over_rest(apis: Apis) -> None:
    assert apis.gov.RecordLineage(_pipeline_step(gpb), metadata=RW).recorded == 1
    r = apis.rest.delete(f"{V1}/lineage", params={"job": "pipeline:etl_daily"})
    assert r.status_code == 200, r.text
    assert r.json()["edges_closed"] >= 3 and r.json()["events_deleted"] == 1  # READ, WRITE, MAPS_TO
    assert _get(apis, "downstream", node="raw.customers")["total_nodes"] == 1  # the dataset alone


def test_deleting_a_pipeline_closes_its_steps_over_grpc(apis: Apis) -> None:
    assert apis.pipe.RecordLineage(_pipeline_step(ppb), metadata=RW).recorded == 1
    got = apis.gov.DeleteLineage(gpb.DeleteLineageRequest(job="pipeline:etl_daily"), metadata=RW)
    assert got.edges_closed >= 3 and got.events_deleted == 1
    assert _get(apis, "downstream", node="raw.customers")["total_nodes"] == 1
