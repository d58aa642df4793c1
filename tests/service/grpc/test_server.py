"""The gRPC server as users run it: committed stubs that match the protos, ``headwater serve
--grpc-port`` in a real process, TLS, server reflection, and the bind rule."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest
from tests.store.conftest import guide
from typer.testing import CliRunner

from headwater.cli.main import app
from headwater.service import UnsafeBind
from headwater.service.grpc import SERVICE_NAMES, TlsFiles, start_grpc
from headwater.service.grpc import governance_pb2 as gpb
from headwater.service.grpc import governance_pb2_grpc as gpb_grpc
from headwater.service.grpc import pipeline_pb2 as ppb
from headwater.service.grpc import pipeline_pb2_grpc as ppb_grpc
from headwater.store import LineageStore, open_store


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_committed_stubs_match_the_protos() -> None:
    pytest.importorskip("grpc_tools", reason="grpcio-tools (test extras) regenerates the stubs")
    from headwater.service.grpc.regenerate import stale

    assert stale() == [], "run: python -m headwater.service.grpc.regenerate"


def test_the_protos_keep_the_seed_numbering() -> None:
    """The seed's enum numbers and the field numbers it shows, as a client generated from it expects."""
    assert {n: gpb.NodeType.Value(f"NODE_TYPE_{n}") for n in ("ENTITY", "REASONING", "DECISION", "PIPELINE")} == {
        "ENTITY": 1,
        "REASONING": 2,
        "DECISION": 3,
        "PIPELINE": 4,
    }
    assert [gpb.NodeType.Value(f"NODE_TYPE_{n}") for n in ("SOURCE_SYSTEM", "SCHEMA", "DATASET", "PIPELINE_STEP")] == [
        5,
        6,
        10,
        11,
    ]
    assert [gpb.NodeType.Value(f"NODE_TYPE_{n}") for n in ("FIELD", "EXTERNAL")] == [12, 13]
    edges = ("DERIVED_FROM", "USED_BY", "TRANSFORMED_BY", "INFERRED_FROM", "SUPPORTED_BY", "TRIGGERED_BY")
    assert [gpb.EdgeType.Value(f"EDGE_TYPE_{e}") for e in edges] == [1, 2, 3, 4, 5, 6]
    assert [gpb.EdgeType.Value(f"EDGE_TYPE_{e}") for e in ("READ", "WRITE", "MAPS_TO", "CONTAINS")] == [10, 11, 12, 13]
    assert [gpb.EdgeType.Value(f"EDGE_TYPE_{e}") for e in ("PRODUCES", "CONSUMES")] == [20, 21]
    assert [gpb.ImpactSeverity.Value(f"IMPACT_SEVERITY_{s}") for s in ("LOW", "MEDIUM", "HIGH", "CRITICAL")] == [
        1,
        2,
        3,
        4,
    ]
    transforms = ("DIRECT", "AGGREGATE", "JOIN", "FILTER", "UDF", "EXPRESSION")
    for pb in (gpb, ppb):
        assert [pb.TransformType.Value(f"TRANSFORM_TYPE_{t}") for t in transforms] == [1, 2, 3, 4, 5, 6]
    assert [ppb.NodeType.Value(f"NODE_TYPE_{n}") for n in ("DATASET", "PIPELINE", "STEP", "FIELD", "EXTERNAL")] == [
        1,
        2,
        3,
        4,
        5,
    ]
    numbers = {f.name: f.number for f in gpb.GetLineageRequest.DESCRIPTOR.fields}
    assert numbers == {
        "entity_id": 2,
        "direction": 3,
        "max_depth": 4,
        "as_of_time": 5,
        "node_type_filter": 6,
        "limit": 7,
        "offset": 8,
    }
    impact = {f.name: f.number for f in gpb.AnalyzeImpactRequest.DESCRIPTOR.fields}
    assert (impact["target_id"], impact["change_type"], impact["change_details"]) == (2, 3, 4)
    group = {f.name: f.number for f in gpb.ImpactAnalysisResponse.ImpactGroup.DESCRIPTOR.fields}
    assert (group["type"], group["count"], group["sample_node_ids"], group["severity"]) == (1, 2, 3, 4)
    stats = [f.name for f in sorted(ppb.LineageStatsResponse.DESCRIPTOR.fields, key=lambda f: f.number)]
    assert stats == [
        "total_nodes",
        "total_edges",
        "total_field_mappings",
        "nodes_by_type",
        "edges_by_type",
        "events_recorded",
    ]
    for pb in (gpb, ppb):
        ctx = [f.name for f in sorted(pb.ExecutionContext.DESCRIPTOR.fields, key=lambda f: f.number)]
        assert ctx == ["pipeline_id", "execution_id", "step_id", "step_name", "user_id", "timestamp", "duration"]
        fm = [f.name for f in sorted(pb.FieldMapping.DESCRIPTOR.fields, key=lambda f: f.number)]
        assert fm == ["source_fields", "target_field", "transform_expression", "transform_type", "properties"]
    rpcs = {m.name for m in gpb.DESCRIPTOR.services_by_name["LineageService"].methods}
    assert rpcs == {
        "GetLineage",
        "TraceOrigin",
        "GetDownstream",
        "GetUpstream",
        "AnalyzeImpact",
        "GetFieldImpact",
        "GetFieldOrigin",
        "RecordLineage",
        "BatchRecordLineage",
        "GetLineageSummary",
        "DeleteLineage",
    }
    pipeline = ppb.DESCRIPTOR.services_by_name["LineageService"].methods
    assert len(pipeline) == 10 and not any(m.client_streaming or m.server_streaming for m in pipeline)


def test_headwater_serve_grpc_port(tmp_path: Path) -> None:
    """A real ``headwater serve --grpc-port`` process: the REST API and both gRPC services answer
    over the same store, with the same token."""
    db = tmp_path / "lineage.db"
    store = open_store(f"sqlite:///{db}")
    store.record(guide())
    store.close()
    tokens = tmp_path / "tokens.txt"
    tokens.write_text("s3cret:read,write\n")
    port, gport = _free_port(), _free_port()
    exe = shutil.which("headwater", path=str(Path(sys.executable).parent)) or "headwater"
    cmd = [
        exe,
        "serve",
        "--store",
        str(db),
        "--port",
        str(port),
        "--grpc-port",
        str(gport),
        "--tokens-file",
        str(tokens),
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        channel = grpc.insecure_channel(f"127.0.0.1:{gport}")
        grpc.channel_ready_future(channel).result(timeout=60)
        auth = (("authorization", "Bearer s3cret"),)
        stats = ppb_grpc.LineageServiceStub(channel).GetLineageStats(ppb.GetLineageStatsRequest(), metadata=auth)
        assert stats.events_recorded == 1
        origin = gpb_grpc.LineageServiceStub(channel).GetFieldOrigin(
            gpb.GetFieldOriginRequest(field_id="lineage_customer_summary.total_amount"), metadata=auth
        )
        assert [o.field.short_name for o in origin.origins] == ["lineage_orders.amount"]
        import httpx

        for _ in range(200):
            try:
                r = httpx.get(f"http://127.0.0.1:{port}/api/v1/stats", headers={"Authorization": "Bearer s3cret"})
                break
            except httpx.ConnectError:
                time.sleep(0.05)
        assert r.json()["events_recorded"] == 1
        with pytest.raises(grpc.RpcError) as err:
            ppb_grpc.LineageServiceStub(channel).GetLineageStats(ppb.GetLineageStatsRequest())
        assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED
        channel.close()
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=30)
    assert f"gRPC LineageService on 127.0.0.1:{gport} (plaintext)" in out


def test_serve_refuses_bad_grpc_options(tmp_path: Path) -> None:
    runner = CliRunner()
    db = str(tmp_path / "x.db")
    open_store(f"sqlite:///{db}").close()
    r = runner.invoke(app, ["serve", "--store", db, "--grpc-host", "0.0.0.0", "--grpc-port", "0"])
    assert r.exit_code == 2 and "refusing to serve on 0.0.0.0 without tokens" in r.output
    r = runner.invoke(app, ["serve", "--store", db, "--grpc-tls-cert", "c.pem", "--grpc-tls-key", "k.pem"])
    assert r.exit_code == 2 and "need --grpc-port" in r.output
    r = runner.invoke(app, ["serve", "--store", db, "--grpc-port", "0", "--grpc-tls-cert", "c.pem"])
    assert r.exit_code == 2 and "give both" in r.output
    missing = str(tmp_path / "none.pem")
    r = runner.invoke(
        app, ["serve", "--store", db, "--grpc-port", "0", "--grpc-tls-cert", missing, "--grpc-tls-key", missing]
    )
    assert r.exit_code == 2 and "cannot read --grpc-tls-cert" in r.output and "Traceback" not in r.output


def test_bind_rule(api_store: LineageStore) -> None:
    with pytest.raises(UnsafeBind):
        start_grpc(api_store, "0.0.0.0", 0, {})
    server, port = start_grpc(api_store, "127.0.0.1", 0, {})
    try:
        with pytest.raises(ValueError, match="cannot bind gRPC"):
            start_grpc(api_store, "127.0.0.1", port, {})
    finally:
        server.stop(None).wait()


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl makes the test certificate")
def test_tls(api_store: LineageStore, tmp_path: Path) -> None:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=DNS:localhost,IP:127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    api_store.record(guide())
    server, port = start_grpc(api_store, "127.0.0.1", 0, {}, TlsFiles(cert, key))
    try:
        creds = grpc.ssl_channel_credentials(root_certificates=cert.read_bytes())
        with grpc.secure_channel(f"localhost:{port}", creds) as channel:
            stats = ppb_grpc.LineageServiceStub(channel).GetLineageStats(ppb.GetLineageStatsRequest(), timeout=30)
        assert stats.events_recorded == 1
        with grpc.insecure_channel(f"127.0.0.1:{port}") as plain, pytest.raises(grpc.RpcError) as err:
            ppb_grpc.LineageServiceStub(plain).GetLineageStats(ppb.GetLineageStatsRequest(), timeout=10)
        assert err.value.code() == grpc.StatusCode.UNAVAILABLE
    finally:
        server.stop(None).wait()


def test_server_reflection_lists_both_services(api_store: LineageStore) -> None:
    reflection = pytest.importorskip("grpc_reflection.v1alpha.proto_reflection_descriptor_database")
    server, port = start_grpc(api_store, "127.0.0.1", 0, {})
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            db = reflection.ProtoReflectionDescriptorDatabase(channel)
            services = set(db.get_services())
            assert set(SERVICE_NAMES) <= services
            found = db.FindFileContainingSymbol("headwater.lineage.governance.v1.LineageService")
            assert found.package == "headwater.lineage.governance.v1"
    finally:
        server.stop(None).wait()
