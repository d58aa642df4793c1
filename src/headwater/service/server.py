"""``headwater serve``: run the API with uvicorn (and, with a gRPC port, the gRPC services beside it);
refuses a non-loopback bind without tokens."""

from __future__ import annotations

from typing import TYPE_CHECKING

from headwater.service.app import create_app
from headwater.service.auth import Tokens, is_loopback
from headwater.store import open_store

if TYPE_CHECKING:
    from headwater.service.grpc import TlsFiles


class UnsafeBind(RuntimeError):
    """Binding beyond loopback without any token configured."""


def check_bind(host: str, tokens: Tokens) -> None:
    if not tokens and not is_loopback(host):
        raise UnsafeBind(
            f"refusing to serve on {host} without tokens: configure read/write tokens "
            "($HEADWATER_TOKENS or --tokens-file) or bind to 127.0.0.1"
        )


def serve(
    store_url: str | None,
    host: str = "127.0.0.1",
    port: int = 8077,
    tokens: Tokens | None = None,
    log_level: str = "info",
    grpc_port: int | None = None,
    grpc_host: str = "127.0.0.1",
    grpc_tls: TlsFiles | None = None,
) -> None:
    """Serve the REST API until interrupted; with ``grpc_port`` also both gRPC LineageServices on
    ``grpc_host`` (same store, same tokens), stopped when the REST server stops."""
    import uvicorn

    tokens = dict(tokens or {})
    check_bind(host, tokens)
    store = open_store(store_url)
    grpc_server = None
    if grpc_port is not None:
        from headwater.service.grpc import start_grpc

        grpc_server, bound = start_grpc(store, grpc_host, grpc_port, tokens, grpc_tls)
        scheme = "TLS" if grpc_tls else "plaintext"
        print(f"headwater: gRPC LineageService on {grpc_host}:{bound} ({scheme})", flush=True)
    try:
        uvicorn.run(create_app(store, tokens), host=host, port=port, log_level=log_level)
    finally:
        if grpc_server is not None:
            grpc_server.stop(grace=5).wait()
