"""The FastAPI application over a ``LineageStore``: REST API under ``/api/v1``, explorer at ``/``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from anyio import to_thread
from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from fastapi.staticfiles import StaticFiles

from headwater.service import errors, marquez, routes_diff, routes_explorer, routes_query, routes_record
from headwater.service.auth import Tokens
from headwater.service.guard import HttpPolicy, RequestGuard
from headwater.store import LineageStore

API = "/api/v1"
STATIC = Path(__file__).with_name("static")


POSTGRES_REQUEST_THREADS = 4
"""Requests a PostgreSQL store's server runs at once. Their Python shares one interpreter (the GIL):
past the few threads that keep PostgreSQL busy while another runs, more threads only share the
core in turns, so every answer takes as long as the slowest, and the tail grows (p99 of all reads
at 20 clients: 143 to 171 ms with 10 threads, 90 to 142 ms with 4, on 2 cores; ``docs/performance.md``)."""


def request_threads(store: LineageStore) -> int:
    """Requests served at once: the connections the store's pool keeps (SQLite 5: its queries run
    outside the GIL), at most ``POSTGRES_REQUEST_THREADS`` on PostgreSQL."""
    kept = max(2, getattr(store.engine.pool, "size", lambda: 2)())
    return min(kept, POSTGRES_REQUEST_THREADS) if store.dialect == "postgresql" else kept


def create_app(store: LineageStore, tokens: Tokens | None = None, policy: HttpPolicy | None = None) -> FastAPI:
    """The app; with ``tokens`` every API call needs a bearer token (read scope for GET, write for the rest).

    ``policy`` (``headwater.service.guard``) decides the accepted ``Host`` names and CORS origins;
    cross-site writes and writes that are not JSON are refused whatever it says."""

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        # requests run in worker threads: no more at once than the pool keeps connections for, so
        # that the others wait in the event loop (cheap) rather than in threads holding memory
        to_thread.current_default_thread_limiter().total_tokens = request_threads(store)
        yield

    app = FastAPI(
        lifespan=lifespan,
        title="headwater lineage API",
        version="1",
        description="Column-level lineage: record events (headwater, OpenLineage, external tools) and query "
        'the graph. Errors are `{"error": {"field", "message"}}` with a 4xx status.',
    )
    app.state.store = store
    app.state.tokens = dict(tokens or {})
    errors.install(app, API)

    @app.get(f"{API}/health", operation_id="health", tags=["meta"])
    def health() -> dict[str, str]:
        """Liveness (no token needed)."""
        return {"status": "ok", "store": store.dialect}

    # before headwater's own: Marquez's GET /lineage?nodeId= matches only requests with ``nodeId``
    app.include_router(marquez.router, prefix=API, tags=["marquez"])
    app.include_router(routes_query.router, prefix=API, tags=["query"])
    app.include_router(routes_record.router, prefix=API, tags=["record"])
    app.include_router(routes_explorer.router, prefix=API, tags=["explorer"])
    app.include_router(routes_diff.router, prefix=API, tags=["query"])
    if STATIC.is_dir():
        app.mount("/", StaticFiles(directory=STATIC, html=True), name="explorer")
    policy = policy or HttpPolicy()
    if policy.cors_origins:  # off unless origins are given
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(policy.cors_origins),
            allow_methods=["GET", "POST", "DELETE"],
            allow_headers=["Authorization", "Content-Type"],
        )
    app.add_middleware(RequestGuard, policy=policy)  # outermost: before CORS and the routes
    return app
