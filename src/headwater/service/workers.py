"""``headwater serve --workers N``: N server processes on one socket, each with its own store
connection pool (uvicorn's process supervisor restarts a worker that dies).

One Python process serves requests on one core at a time (the GIL): more processes let requests
run on several cores. Each worker builds its app from an ``AppSpec`` (what the parent was asked to
serve: the store URL, tokens, HTTP policy and limits), so nothing but that spec crosses the process
boundary. PostgreSQL is made for it; on SQLite the workers read beside each other (WAL) and take
turns to write (the file's write lock and its busy timeout).
"""

from __future__ import annotations

import socket
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from sqlalchemy.engine import make_url
from uvicorn.supervisors import Multiprocess

from headwater.service.auth import Tokens
from headwater.service.guard import HttpPolicy
from headwater.service.http_limits import ServerLimits
from headwater.store import LineageStore, open_store
from headwater.store.engine import default_url, normalise_url

HEALTHCHECK_S = 60
"""Seconds a worker may take to answer the supervisor's ping before it is replaced: starting one
(imports, the store) takes seconds on a loaded machine, and uvicorn's 5 s replaced workers that
were only starting."""


@dataclass(frozen=True)
class AppSpec:
    """What a server process serves: enough to build its app anywhere (picklable)."""

    store_url: str | None
    tokens: Tokens = field(default_factory=dict)
    policy: HttpPolicy = field(default_factory=HttpPolicy)


def open_spec_store(spec: AppSpec) -> LineageStore:
    """The store of ``spec``, with the OpenLineage naming of ``headwater.toml`` (for POST /lineage)."""
    from headwater.dispatch.settings import load_naming

    return open_store(spec.store_url, naming=load_naming())


def build_app(spec: AppSpec, store: LineageStore | None = None) -> Any:
    """The FastAPI app of ``spec`` over ``store``, else a store (and pool) of this process's own."""
    from headwater.service.app import create_app

    return create_app(store or open_spec_store(spec), spec.tokens, spec.policy)


def check_workers(store_url: str | None, workers: int) -> None:
    """Refuse several workers over an in-memory SQLite store (each process would have its own)."""
    url = make_url(normalise_url(store_url or default_url()))
    if workers > 1 and url.get_backend_name() == "sqlite" and url.database in (None, "", ":memory:"):
        raise ValueError("--workers needs a store file or a database server: an in-memory store is one per process")


class WorkerConfig(uvicorn.Config):
    """uvicorn's config for worker processes: pickled to each worker, which builds its app (and the
    h11 protocol with ``limits``) there, when uvicorn loads the config."""

    def __init__(self, spec: AppSpec, limits: ServerLimits, **kwargs: Any) -> None:
        super().__init__("headwater.service.workers:build_app", http="h11", **kwargs)
        self.spec = spec
        self.limits = limits

    def load(self) -> None:
        if not self.loaded:
            self.app = build_app(self.spec)
            self.http = self.limits.protocol()
        super().load()


def run_workers(
    spec: AppSpec, host: str, port: int, workers: int, limits: ServerLimits, log_level: str = "info"
) -> None:
    """Serve ``spec`` from ``workers`` processes on ``host:port`` until SIGINT/SIGTERM."""
    config = WorkerConfig(
        spec,
        limits,
        host=host,
        port=port,
        workers=workers,
        log_level=log_level,
        timeout_keep_alive=limits.keep_alive_timeout,
        h11_max_incomplete_event_size=64 * 1024,  # request line and headers
        timeout_worker_healthcheck=HEALTHCHECK_S,
    )
    Multiprocess(config, sockets=[tcp_socket(config.bind_socket())]).run()


def tcp_socket(sock: socket.socket) -> socket.socket:
    """``sock`` (uvicorn's bound socket, made with protocol 0) as a socket object of protocol TCP,
    over the same descriptor. asyncio sets TCP_NODELAY only on connections of a TCP-protocol socket:
    without it every keep-alive response waited about 40 ms for the client's delayed ACK (Nagle)."""
    if sock.family not in (socket.AF_INET, socket.AF_INET6) or sock.proto == socket.IPPROTO_TCP:
        return sock
    tcp = socket.socket(sock.family, sock.type, socket.IPPROTO_TCP, fileno=sock.detach())
    tcp.set_inheritable(True)
    return tcp
