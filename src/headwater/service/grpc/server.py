"""The gRPC server: both LineageService layers over one store, with server reflection.

``start_grpc`` binds and starts it (non-blocking) and returns the server and its port; ``headwater
serve --grpc-port N`` runs it next to the REST API, with the same bearer tokens (metadata
``authorization: Bearer <token>``) and the same bind rule: without tokens, loopback only.
"""

from __future__ import annotations

from concurrent import futures
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from google.protobuf.message import DecodeError

from headwater.service.auth import Tokens
from headwater.service.grpc import governance_pb2, governance_pb2_grpc, pipeline_pb2, pipeline_pb2_grpc
from headwater.service.grpc.servicer import GovernanceService, PipelineService
from headwater.service.server import check_bind
from headwater.store import LineageStore

SERVICE_NAMES = (
    governance_pb2.DESCRIPTOR.services_by_name["LineageService"].full_name,
    pipeline_pb2.DESCRIPTOR.services_by_name["LineageService"].full_name,
)
"""``headwater.lineage.governance.v1.LineageService`` and ``headwater.lineage.pipeline.v1.LineageService``."""


@dataclass(frozen=True)
class TlsFiles:
    """PEM files: the server's certificate chain and key, and optionally the CA that client
    certificates must chain to (then a client certificate is required)."""

    cert: Path
    key: Path
    client_ca: Path | None = None

    def credentials(self) -> grpc.ServerCredentials:
        def read(what: str, path: Path) -> bytes:
            try:
                return Path(path).read_bytes()
            except OSError as exc:
                raise ValueError(f"cannot read {what} {str(path)!r}: {exc.strerror or exc}") from None

        chain = read("--grpc-tls-cert", self.cert)
        key = read("--grpc-tls-key", self.key)
        ca = read("--grpc-tls-client-ca", self.client_ca) if self.client_ca else None
        return grpc.ssl_server_credentials([(key, chain)], root_certificates=ca, require_client_auth=ca is not None)


class _Unparsable:
    """What a request that is no message of its type deserialises to (the servicer then refuses it)."""

    def __init__(self, error: str) -> None:
        self.error = error


def _tolerant(handler: Any) -> Any:
    """``handler`` answering INVALID_ARGUMENT for bytes that are no request message (gRPC's own
    deserialisation failure is INTERNAL, which says the server is at fault)."""
    parse, behaviour = handler.request_deserializer, handler.unary_unary
    if parse is None or behaviour is None:
        return handler

    def deserialise(data: bytes) -> Any:
        try:
            return parse(data)
        except DecodeError as exc:
            return _Unparsable(str(exc) or "not a protobuf message")

    def answer(request: Any, context: grpc.ServicerContext) -> Any:
        if isinstance(request, _Unparsable):
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"request: cannot parse the message ({request.error})")
        return behaviour(request, context)

    return handler._replace(request_deserializer=deserialise, unary_unary=answer)


class _TolerantServer:
    """Hands a generated ``add_…Servicer_to_server`` the server with every method made ``_tolerant``."""

    def __init__(self, server: grpc.Server) -> None:
        self.server = server
        self.handlers: dict[str, Any] = {}

    def add_generic_rpc_handlers(self, handlers: Any) -> None:
        pass  # the generic handler is rebuilt from the registered handlers below

    def add_registered_method_handlers(self, service: str, handlers: dict[str, Any]) -> None:
        tolerant = {name: _tolerant(h) for name, h in handlers.items()}
        self.server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service, tolerant),))
        self.server.add_registered_method_handlers(service, tolerant)


def grpc_server(store: LineageStore, tokens: Tokens | None = None, max_workers: int = 8) -> grpc.Server:
    """A server (not bound, not started) with both services and reflection (``grpc.reflection.v1``,
    which grpcurl and Postman ask first, and ``v1alpha``)."""
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="headwater-grpc"),
        options=[("grpc.so_reuseport", 0)],  # a port in use is an error, not shared with another server
    )
    tolerant: Any = _TolerantServer(server)
    governance_pb2_grpc.add_LineageServiceServicer_to_server(GovernanceService(store, tokens), tolerant)
    pipeline_pb2_grpc.add_LineageServiceServicer_to_server(PipelineService(store, tokens), tolerant)
    try:
        from headwater.service.grpc import reflection_v1

        reflection_v1.enable(SERVICE_NAMES, server)
    except ImportError:  # reflection is a convenience for grpcurl; the services work without it
        pass
    return server


def start_grpc(
    store: LineageStore,
    host: str = "127.0.0.1",
    port: int = 0,
    tokens: Tokens | None = None,
    tls: TlsFiles | None = None,
) -> tuple[grpc.Server, int]:
    """Bind ``host:port`` (port 0: any free port) and start serving; returns the server and its port.

    Raises ``UnsafeBind`` beyond loopback without tokens, ``ValueError`` for unreadable TLS files or
    an address that cannot be bound."""
    tokens = dict(tokens or {})
    check_bind(host, tokens)
    creds = tls.credentials() if tls else None
    server = grpc_server(store, tokens)
    address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    try:
        bound = server.add_secure_port(address, creds) if creds else server.add_insecure_port(address)
    except RuntimeError as exc:
        raise ValueError(f"cannot bind gRPC to {address}: {exc}") from None
    if not bound:
        raise ValueError(f"cannot bind gRPC to {address} (in use, or not an address of this host)")
    server.start()
    return server, bound
