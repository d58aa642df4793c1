"""gRPC answers say what a cut left out (issue 36 item 1): ``cut_by``, ``more_at_depth``,
``more_by_type``, ``depth_needed``, ``hidden_by_type`` and ``bridges``, as the REST API does, on both
layers and for a client generated from the shipped ``.proto`` files alone."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.service.grpc.conftest import RW, Apis
from tests.service.grpc.shapes import graph, rest_graph

from headwater.service.grpc import governance_pb2 as gpb
from headwater.service.grpc import pipeline_pb2 as ppb

V1 = "/api/v1"
HERE = Path(__file__).resolve().parents[3] / "src" / "headwater" / "service" / "grpc"


def _get(apis: Apis, path: str, **params: Any) -> Any:
    r = apis.rest.get(f"{V1}/{path}", params=params)
    assert r.status_code == 200, r.text
    return r.json()


def test_a_depth_cut_says_how_many_nodes_lie_beyond(apis: Apis) -> None:
    rest = _get(apis, "downstream", node="lineage_orders", max_depth=0)
    assert (rest["truncated"], rest["cut_by"], rest["more_at_depth"]) == (True, ["depth"], 2)
    for stub, req in (
        (apis.gov, gpb.GetDownstreamRequest(entity_id="lineage_orders", max_depth=0)),
        (apis.pipe, ppb.GetLineageRequest(dataset_id="lineage_orders", max_depth=0)),
    ):
        got = stub.GetDownstream(req, metadata=RW)
        assert graph(got) == rest_graph(rest)
        assert (list(got.cut_by), got.more_at_depth, dict(got.more_by_type)) == (["depth"], 2, {"DATASET": 1, "JOB": 1})
        assert got.HasField("depth_needed") and got.depth_needed == rest["depth_needed"] == 1


def test_a_type_filter_keeps_the_bridged_edges(apis: Apis) -> None:
    rest = _get(apis, "downstream", node="lineage_orders", node_types="DATASET")
    assert rest["hidden_by_type"] == 1 and len(rest["bridges"]) == 1
    for stub, req in (
        (apis.gov, gpb.GetDownstreamRequest(entity_id="lineage_orders", node_type_filter=[gpb.NODE_TYPE_DATASET])),
        (apis.pipe, ppb.GetLineageRequest(dataset_id="lineage_orders", node_type_filter=[ppb.NODE_TYPE_DATASET])),
    ):
        got = stub.GetDownstream(req, metadata=RW)
        assert graph(got) == rest_graph(rest)
        (bridge,) = got.bridges
        assert [v.headwater_type for v in bridge.via] == ["JOB"]
        assert {n.node_id for n in got.nodes} >= {bridge.source_id, bridge.target_id}
        assert not got.truncated and got.hidden_by_type == 1


def test_an_uncut_answer_leaves_the_fields_empty(apis: Apis) -> None:
    got = apis.gov.GetDownstream(gpb.GetDownstreamRequest(entity_id="lineage_orders"), metadata=RW)
    assert (got.truncated, list(got.cut_by), got.more_at_depth, got.HasField("depth_needed")) == (False, [], 0, False)
    assert (got.hidden_by_type, list(got.bridges)) == (0, [])


CLIENT = """
import json, sys
import grpc
from google.protobuf.json_format import MessageToDict
sys.path.insert(0, sys.argv[1])
import governance_pb2 as gpb, governance_pb2_grpc as gpb_grpc, pipeline_pb2 as ppb, pipeline_pb2_grpc as ppb_grpc
channel = grpc.insecure_channel(sys.argv[2])
auth = (("authorization", "Bearer rw"),)
gov = gpb_grpc.LineageServiceStub(channel).GetDownstream(
    gpb.GetDownstreamRequest(entity_id="lineage_orders", max_depth=0), metadata=auth)
pipe = ppb_grpc.LineageServiceStub(channel).GetDownstream(
    ppb.GetLineageRequest(dataset_id="lineage_orders", node_type_filter=[ppb.NODE_TYPE_DATASET]), metadata=auth)
print(json.dumps([MessageToDict(m, preserving_proto_field_name=True) for m in (gov, pipe)]))
"""


def test_a_client_generated_from_the_shipped_protos_reads_the_cut(apis: Apis, tmp_path: Path) -> None:
    """protoc (grpcio-tools) on the two ``.proto`` files alone, outside headwater's package, in a process
    that never imports headwater: the client sees the new fields by name."""
    pytest.importorskip("grpc_tools", reason="grpcio-tools (test extras) generates the client")
    import grpc_tools
    from grpc_tools import protoc

    for name in ("pipeline.proto", "governance.proto"):
        (tmp_path / name).write_bytes((HERE / name).read_bytes())
    include = Path(grpc_tools.__file__).parent / "_proto"
    args = ["protoc", f"-I{tmp_path}", f"-I{include}", f"--python_out={tmp_path}", f"--grpc_python_out={tmp_path}"]
    assert protoc.main([*args, "pipeline.proto", "governance.proto"]) == 0
    out = subprocess.run(
        [sys.executable, "-c", CLIENT, str(tmp_path), apis.target],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    gov, pipe = json.loads(out.stdout)
    assert (gov["truncated"], gov["cut_by"], gov["more_at_depth"]) == (True, ["depth"], 2)
    assert (gov["more_by_type"], gov["depth_needed"]) == ({"DATASET": 1, "JOB": 1}, 1)
    assert pipe["hidden_by_type"] == 1
    (bridge,) = pipe["bridges"]
    assert [v["headwater_type"] for v in bridge["via"]] == ["JOB"]
    assert {bridge["source_id"], bridge["target_id"]} <= {n["node_id"] for n in pipe["nodes"]}
