"""Every RPC of both LineageService layers, over a real loopback channel, answers what the REST API
answers for the same store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import grpc
from fastapi.testclient import TestClient
from google.protobuf.json_format import MessageToDict
from tests.service.grpc.conftest import REST_RW, RW, TOKENS, Apis, chain_requests
from tests.service.grpc.shapes import edge, graph, node, paths, rest_edge, rest_graph, rest_paths, rest_time
from tests.store.conftest import guide

from headwater.service import create_app
from headwater.service.grpc import governance_pb2 as gpb
from headwater.service.grpc import governance_pb2_grpc as gpb_grpc
from headwater.service.grpc import pipeline_pb2 as ppb
from headwater.service.grpc import pipeline_pb2_grpc as ppb_grpc
from headwater.service.grpc import start_grpc
from headwater.store import open_store

V1 = "/api/v1"
SUMMARY = "lineage_customer_summary"


def _get(apis: Apis, path: str, **params: Any) -> Any:
    r = apis.rest.get(f"{V1}/{path}", params=params)
    assert r.status_code == 200, r.text
    return r.json()


def test_get_lineage_both_directions_and_filters(apis: Apis) -> None:
    g = apis.gov.GetLineage(gpb.GetLineageRequest(entity_id=SUMMARY), metadata=RW)
    assert graph(g) == rest_graph(_get(apis, "lineage", node=SUMMARY))
    assert g.root_node_id == f"#{apis.store.resolve(SUMMARY).id}"
    assert {n.short_name for n in g.nodes} == {SUMMARY, "lineage_orders", "lineage_customers", g.nodes[1].short_name}
    up = gpb.GetLineageRequest(
        entity_id="lineage_customer_summary.total_amount",
        direction=gpb.LINEAGE_DIRECTION_UPSTREAM,
        max_depth=1,
        node_type_filter=[gpb.NODE_TYPE_FIELD],
    )
    rest = _get(
        apis,
        "lineage",
        node="lineage_customer_summary.total_amount",
        direction="UPSTREAM",
        max_depth=1,
        node_types="FIELD",
    )
    got = apis.gov.GetLineage(up, metadata=RW)
    assert graph(got) == rest_graph(rest)
    assert got.nodes[0].short_name == "lineage_customer_summary.total_amount"
    assert "lineage_orders.amount" in {n.short_name for n in got.nodes}  # with the join/filter/group columns
    assert {n.headwater_type for n in got.nodes} == {"FIELD"}
    paged = gpb.GetLineageRequest(entity_id=SUMMARY, limit=2, offset=1)
    assert graph(apis.gov.GetLineage(paged, metadata=RW)) == rest_graph(
        _get(apis, "lineage", node=SUMMARY, limit=2, offset=1)
    )


def test_get_lineage_as_of_time(apis: Apis) -> None:
    req = gpb.GetLineageRequest(entity_id=SUMMARY)
    req.as_of_time.FromJsonString("2024-04-01T00:00:00Z")  # before the guide's statement ran
    g = apis.gov.GetLineage(req, metadata=RW)
    assert graph(g) == rest_graph(_get(apis, "lineage", node=SUMMARY, as_of="2024-04-01T00:00:00Z"))
    assert ([n.short_name for n in g.nodes], g.total_nodes) == ([], 0)  # the table did not exist yet


def test_upstream_and_downstream_on_both_layers(apis: Apis) -> None:
    for stub, pb, key in ((apis.gov, gpb, "entity_id"), (apis.pipe, ppb, "dataset_id")):
        up_req = (pb.GetUpstreamRequest if pb is gpb else pb.GetLineageRequest)(**{key: SUMMARY, "max_depth": 2})
        down_req = (pb.GetDownstreamRequest if pb is gpb else pb.GetLineageRequest)(**{key: "lineage_orders"})
        up = stub.GetUpstream(up_req, metadata=RW)
        down = stub.GetDownstream(down_req, metadata=RW)
        assert graph(up) == rest_graph(_get(apis, "upstream", node=SUMMARY, max_depth=2))
        assert graph(down) == rest_graph(_get(apis, "downstream", node="lineage_orders"))
        assert SUMMARY in {n.short_name for n in down.nodes}


def test_pipeline_full_lineage(apis: Apis) -> None:
    g = apis.pipe.GetFullLineage(ppb.GetFullLineageRequest(dataset_id="lineage_orders"), metadata=RW)
    assert graph(g) == rest_graph(_get(apis, "full-lineage", node="lineage_orders"))
    assert [n.short_name for n in g.nodes] == ["lineage_orders", g.nodes[1].short_name, SUMMARY]
    assert g.nodes[1].type == ppb.NODE_TYPE_JOB


def test_field_origin_and_impact_on_both_layers(apis: Apis) -> None:
    field = "lineage_customer_summary.region_group"
    for stub, (o_cls, i_cls) in (
        (apis.gov, (gpb.GetFieldOriginRequest, gpb.GetFieldImpactRequest)),
        (apis.pipe, (ppb.FieldOriginRequest, ppb.FieldImpactRequest)),
    ):
        o = stub.GetFieldOrigin(o_cls(field_id=field, include_indirect=True), metadata=RW)
        rest = _get(apis, "field-origin", field=field, include_indirect=True)
        assert node(o.field) == rest["field"]
        assert paths(o.origins) == rest_paths(rest["origins"])
        assert (o.total, o.truncated, o.include_indirect) == (rest["total"], rest["truncated"], True)
        assert "lineage_orders.region" in {p.field.short_name for p in o.origins}
        i = stub.GetFieldImpact(i_cls(field_id="lineage_orders.amount"), metadata=RW)
        rest = _get(apis, "field-impact", field="lineage_orders.amount")
        assert paths(i.impacted) == rest_paths(rest["impacted"])
        assert (i.total, i.direct_count, i.indirect_count) == (
            rest["total"],
            rest["direct_count"],
            rest["indirect_count"],
        )
        assert "lineage_customer_summary.total_amount" in {p.field.short_name for p in i.impacted}


def test_trace_origin(chained: Apis) -> None:
    t = chained.gov.TraceOrigin(gpb.TraceOriginRequest(entity_id="retention_offer"), metadata=RW)
    rest = _get(chained, "trace-origin", node="retention_offer")
    assert node(t.root) == rest["root"]
    assert [node(s) for s in t.source_systems] == rest["source_systems"]
    assert t.total_sources == rest["total_sources"] == 1
    assert [
        {"origin": node(o.origin), "system": node(o.system), "depth": o.depth, "path": [edge(e) for e in o.path]}
        for o in t.origins
    ] == [{**o, "path": [rest_edge(e) for e in o["path"]]} for o in rest["origins"]]
    in_paths = [edge(e) for e in t.paths]
    assert in_paths == [rest_edge(e) for o in rest["origins"] for e in o["path"]]


def _impact(r: Any) -> dict[str, Any]:
    d = MessageToDict(r, preserving_proto_field_name=True, always_print_fields_with_no_presence=True)
    d.pop("analysis_id")
    return d


def test_analyze_impact(apis: Apis) -> None:
    req = gpb.AnalyzeImpactRequest(target_id="lineage_orders", change_type="SCHEMA_CHANGE")
    req.change_details.update({"operation": "DROP_COLUMN", "columns": ["amount"]})
    got = apis.gov.AnalyzeImpact(req, metadata=RW)
    body = {
        "target": "lineage_orders",
        "change_type": "SCHEMA_CHANGE",
        "details": {"operation": "DROP_COLUMN", "columns": ["amount"]},
    }
    r = apis.rest.post(f"{V1}/analyze-impact", json=body)
    assert r.status_code == 200, r.text
    rest = r.json()
    assert node(got.target) == rest["target"]
    assert MessageToDict(got.details) == rest["details"]
    assert [
        {
            "type": g.headwater_type,
            "count": g.count,
            "sample_node_ids": list(g.sample_node_ids),
            "severity": gpb.ImpactSeverity.Name(g.severity).removeprefix("IMPACT_SEVERITY_"),
        }
        for g in got.groups
    ] == rest["groups"]
    assert gpb.ImpactSeverity.Name(got.overall_severity) == "IMPACT_SEVERITY_" + rest["overall_severity"]
    assert (got.total_affected_count, got.risk_level, got.change_type, got.truncated) == (
        rest["total_affected_count"],
        rest["risk_level"],
        rest["change_type"],
        rest["truncated"],
    )
    assert got.overall_severity == gpb.IMPACT_SEVERITY_HIGH  # total_amount = SUM(amount): a VALUE dependency
    assert [g.headwater_type for g in got.groups] == ["DATASET", "FIELD", "JOB"]


def test_summary_on_both_layers(apis: Apis) -> None:
    rest = _get(apis, "summary", node=SUMMARY)
    for got in (
        apis.gov.GetLineageSummary(gpb.GetLineageSummaryRequest(entity_id=SUMMARY), metadata=RW),
        apis.pipe.GetLineageSummary(ppb.GetSummaryRequest(dataset_id=SUMMARY), metadata=RW),
    ):
        assert got.entity_id == f"#{rest['node']['id']}"
        assert node(got.node) == rest["node"]
        assert (got.upstream_count, got.downstream_count, got.field_count, got.pipeline_count) == (
            rest["upstream_count"],
            rest["downstream_count"],
            rest["field_count"],
            rest["pipeline_count"],
        )
        assert dict(got.node_type_counts) == rest["node_type_counts"]
        assert got.last_updated.ToDatetime().isoformat() + "+00:00" == rest_time(rest["last_updated"])
        assert got.field_count == 5


def test_stats(chained: Apis) -> None:
    got = chained.pipe.GetLineageStats(ppb.GetLineageStatsRequest(), metadata=RW)
    rest = _get(chained, "stats")
    assert MessageToDict(got, preserving_proto_field_name=True) == {
        k: (str(v) if isinstance(v, int) else {t: str(n) for t, n in v.items()}) for k, v in rest.items()
    }  # int64 fields are JSON strings in protobuf's JSON mapping
    assert got.events_recorded == 4
    assert got.nodes_by_type["PIPELINE"] == 1 and got.nodes_by_type["REASONING"] == 1


def test_record_lineage_both_layers_record_what_rest_records(apis: Apis) -> None:
    req = chain_requests()[0]
    got = apis.gov.RecordLineage(req, metadata=RW)
    assert (got.recorded, got.duplicates) == (1, 0)
    body = {
        "context": {"pipeline_id": "scoring", "execution_id": "run-1", "timestamp": "2024-06-01T00:00:00Z"},
        "inputs": [{"name": "crm.customers", "namespace": "crm", "fields": ["id", "tenure"]}],
        "outputs": [{"name": "customer", "namespace": "domain", "type": "ENTITY"}],
    }
    r = apis.rest.post(f"{V1}/record", json=body)
    assert r.status_code == 201, r.text
    assert r.json() == {"recorded": 0, "duplicates": 1, "edges_opened": 0, "edges_closed": 0, "event_ids": []}
    assert len(got.event_ids) == 1 and got.event_ids[0].startswith("rl:")
    # the pipeline layer says the same with its own numbering: STEP, ENTITY
    p = ppb.RecordLineageRequest()
    p.ParseFromString(req.SerializeToString())  # same field numbers; NodeType ENTITY=1 is the pipeline's DATASET…
    p.outputs[0].type = ppb.NODE_TYPE_ENTITY
    p.context.step_id = "score"
    rp = apis.pipe.RecordLineage(p, metadata=RW)
    assert (rp.recorded, rp.duplicates) == (1, 0)
    step = apis.pipe.GetDownstream(ppb.GetLineageRequest(dataset_id="crm.customers"), metadata=RW)
    types = {(n.short_name, ppb.NodeType.Name(n.type), n.headwater_type) for n in step.nodes}
    assert ("score", "NODE_TYPE_STEP", "PIPELINE_STEP") in types
    assert ("customer", "NODE_TYPE_ENTITY", "ENTITY") in types


def test_batch_record_lineage_is_one_transaction(apis: Apis) -> None:
    batch = gpb.BatchRecordLineageRequest(requests=chain_requests())
    got = apis.gov.BatchRecordLineage(batch, metadata=RW)
    assert (got.recorded, got.duplicates, len(got.event_ids)) == (3, 0, 3)
    again = apis.gov.BatchRecordLineage(batch, metadata=RW)
    assert (again.recorded, again.duplicates) == (0, 3)
    assert _get(apis, "stats")["events_recorded"] == 4
    step = ppb.RecordLineageRequest(
        context=ppb.ExecutionContext(pipeline_id="etl", execution_id="e-1", step_id="load"),
        inputs=[ppb.DatasetRef(name="raw.orders", namespace="pg")],
        outputs=[ppb.DatasetRef(name="mart.revenue", namespace="dw", type=ppb.NODE_TYPE_DATASET)],
    )
    other = ppb.RecordLineageRequest()
    other.CopyFrom(step)
    other.context.execution_id = "e-2"
    p = apis.pipe.BatchRecordLineage(ppb.BatchRecordLineageRequest(requests=[step, other]), metadata=RW)
    assert (p.recorded, p.duplicates) == (2, 0)
    down = _get(apis, "downstream", node="raw.orders")
    assert [(n["type"], n["short"]) for n in down["nodes"]] == [
        ("DATASET", "orders"),
        ("PIPELINE_STEP", "load"),
        ("DATASET", "revenue"),
    ]


def test_delete_lineage_on_both_layers(tmp_path: Path) -> None:
    """Twin stores: each deletion through gRPC (either layer) answers what the same deletion through
    REST answers on the twin, and leaves the same graph."""
    twins = []
    for name in ("grpc", "rest"):
        s = open_store(f"sqlite:///{tmp_path / name}.db")
        s.record(guide())
        s.record(guide("another-run", "2024-05-02T10:00:00Z"))
        twins.append(s)
    server, port = start_grpc(twins[0], "127.0.0.1", 0, TOKENS)
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    gov, pipe = gpb_grpc.LineageServiceStub(channel), ppb_grpc.LineageServiceStub(channel)
    try:
        with TestClient(create_app(twins[1], TOKENS), headers=REST_RW) as rest:

            def both(grpc_answer: Any, params: dict[str, Any]) -> dict[str, Any]:
                r = rest.delete(f"{V1}/lineage", params=params)
                assert r.status_code == 200, r.text
                assert (
                    MessageToDict(
                        grpc_answer, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
                    )
                    == r.json()
                )
                return r.json()

            job = twins[0].get_upstream(SUMMARY).nodes[1]
            assert job.type == "JOB"
            job_ref = f"JOB:{job.name}"
            event = twins[0].record(guide("third-run", "2024-05-03T10:00:00Z")).event_ids[0]
            twins[1].record(guide("third-run", "2024-05-03T10:00:00Z"))
            at = "2024-05-04T00:00:00Z"
            req = gpb.DeleteLineageRequest(event_id=event)
            req.at.FromJsonString(at)
            assert both(gov.DeleteLineage(req, metadata=RW), {"event_id": event, "at": at})["events_deleted"] == 1
            closed = both(pipe.DeleteLineage(ppb.DeleteLineageRequest(job=job_ref), metadata=RW), {"job": job_ref})
            assert closed["edges_closed"] > 0
            purged = both(
                gov.DeleteLineage(gpb.DeleteLineageRequest(dataset="lineage_orders", purge=True), metadata=RW),
                {"dataset": "lineage_orders", "purge": True},
            )
            assert purged["edges_purged"] > 0
            assert twins[0].get_lineage_stats() == twins[1].get_lineage_stats()
    finally:
        channel.close()
        server.stop(None).wait()
        for s in twins:
            s.close()
