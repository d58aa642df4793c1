"""``headwater serve``: run the API with uvicorn (and, with a gRPC port, the gRPC services beside it);
refuses a non-loopback bind without tokens."""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from headwater.service.auth import Tokens, is_loopback
from headwater.service.guard import DEFAULT_MAX_BODY, HttpPolicy
from headwater.service.http_limits import ServerLimits
from headwater.service.workers import AppSpec, build_app, check_workers, open_spec_store, run_workers

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
    allowed_hosts: Collection[str] = (),
    cors_origins: Collection[str] = (),
    limits: ServerLimits | None = None,
    workers: int = 1,
    max_body: int = DEFAULT_MAX_BODY,
) -> None:
    """Serve the REST API until interrupted; with ``grpc_port`` also both gRPC LineageServices on
    ``grpc_host`` (same store, same tokens), stopped when the REST server stops.

    ``allowed_hosts`` adds ``Host`` names to the bound ones, ``cors_origins`` turns CORS on for
    those origins, ``max_body`` bounds request bodies (bytes; 413 past it), ``limits`` bounds
    connections (``ServerLimits``, per worker), ``workers`` > 1
    serves the REST API from that many processes (``headwater.service.workers``; gRPC stays in
    this one)."""
    tokens = dict(tokens or {})
    check_bind(host, tokens)
    spec = AppSpec(store_url, tokens, HttpPolicy.for_bind(host, allowed_hosts, cors_origins, max_body))
    check_workers(store_url, workers)
    store = open_spec_store(spec) if workers == 1 or grpc_port is not None else None
    grpc_server = None
    if grpc_port is not None:
        from headwater.service.grpc import start_grpc

        assert store is not None
        grpc_server, bound = start_grpc(store, grpc_host, grpc_port, tokens, grpc_tls)
        scheme = "TLS" if grpc_tls else "plaintext"
        print(f"headwater: gRPC LineageService on {grpc_host}:{bound} ({scheme})", flush=True)
    try:
        if workers > 1:
            run_workers(spec, host, port, workers, limits or ServerLimits(), log_level)
        else:
            uvicorn_server(build_app(spec, store), host, port, limits or ServerLimits(), log_level).run()
    finally:
        if grpc_server is not None:
            grpc_server.stop(grace=5).wait()


def uvicorn_server(app: Any, host: str, port: int, limits: ServerLimits, log_level: str = "info") -> Any:
    """The uvicorn server of ``app`` with ``limits`` (h11 with read deadlines, a connection cap)."""
    import uvicorn

    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        http=limits.protocol(),
        timeout_keep_alive=limits.keep_alive_timeout,
        h11_max_incomplete_event_size=64 * 1024,  # request line and headers
    )
    return uvicorn.Server(config)
