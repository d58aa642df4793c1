"""gRPC fixtures: both LineageService layers on a real loopback port over the same store as a REST
client (FastAPI's TestClient), with the same tokens."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from fastapi.testclient import TestClient
from tests.store.conftest import guide

from headwater.service import create_app
from headwater.service.grpc import governance_pb2 as gpb
from headwater.service.grpc import governance_pb2_grpc as gpb_grpc
from headwater.service.grpc import pipeline_pb2_grpc as ppb_grpc
from headwater.service.grpc import start_grpc
from headwater.store import LineageStore

TOKENS = {"rw": frozenset({"read", "write"}), "ro": frozenset({"read"})}
RW = (("authorization", "Bearer rw"),)
RO = (("authorization", "Bearer ro"),)
REST_RW = {"Authorization": "Bearer rw"}


def chain_requests() -> list[Any]:
    """dataset → pipeline → entity → reasoning → decision, as three governance RecordLineage calls:
    a scoring pipeline reads crm.customers and produces the customer entity; a churn-risk reasoning
    is inferred from the entity; a retention-offer decision is supported by the reasoning."""
    customers = gpb.DatasetRef(name="crm.customers", namespace="crm", fields=["id", "tenure"])
    entity = gpb.DatasetRef(name="customer", namespace="domain", type=gpb.NODE_TYPE_ENTITY)
    reasoning = gpb.DatasetRef(name="churn_risk", namespace="domain", type=gpb.NODE_TYPE_REASONING)
    decision = gpb.DatasetRef(name="retention_offer", namespace="domain", type=gpb.NODE_TYPE_DECISION)
    at = "2024-06-01T00:00:00Z"

    def ctx(**kw: Any) -> gpb.ExecutionContext:
        c = gpb.ExecutionContext(**kw)
        c.timestamp.FromJsonString(at)
        return c

    return [
        gpb.RecordLineageRequest(
            context=ctx(pipeline_id="scoring", execution_id="run-1"), inputs=[customers], outputs=[entity]
        ),
        gpb.RecordLineageRequest(context=ctx(execution_id="infer-1"), inputs=[entity], outputs=[reasoning]),
        gpb.RecordLineageRequest(context=ctx(execution_id="decide-1"), inputs=[reasoning], outputs=[decision]),
    ]


@dataclass
class Apis:
    """One store, served over gRPC (``gov``, ``pipe`` stubs on a loopback channel) and REST (``rest``)."""

    store: LineageStore
    channel: grpc.Channel
    gov: Any
    pipe: Any
    rest: TestClient
    target: str = ""  # host:port of the gRPC server


@pytest.fixture
def apis(api_store: LineageStore) -> Iterator[Apis]:
    api_store.record(guide())
    server, port = start_grpc(api_store, "127.0.0.1", 0, TOKENS)
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    try:
        with TestClient(create_app(api_store, TOKENS), headers=REST_RW) as rest:
            yield Apis(
                api_store,
                channel,
                gpb_grpc.LineageServiceStub(channel),
                ppb_grpc.LineageServiceStub(channel),
                rest,
                f"127.0.0.1:{port}",
            )
    finally:
        channel.close()
        server.stop(None).wait()


@pytest.fixture
def chained(apis: Apis) -> Apis:
    """``apis`` with the entity chain recorded through the governance layer's RecordLineage."""
    for req in chain_requests():
        assert apis.gov.RecordLineage(req, metadata=RW).recorded == 1
    return apis
