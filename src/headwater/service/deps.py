"""Request dependencies: the store, the scope checks and the query-string check; ``in_writer``, the
thread a write runs in."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from anyio import CapacityLimiter, to_thread
from fastapi import Request

from headwater.service.auth import scopes_for
from headwater.service.errors import ApiError
from headwater.store import LineageStore
from headwater.store.engine import write_concurrency

T = TypeVar("T")


# The dependencies are ``async def`` although they never wait: FastAPI runs a plain ``def``
# dependency in a worker thread, and those three thread hops per request cost more CPU than the
# checks themselves (they run in the event loop now, in microseconds).


async def get_store(request: Request) -> LineageStore:
    return request.app.state.store  # type: ignore[no-any-return]


def require(scope: str) -> Callable[[Request], Awaitable[None]]:
    """A dependency refusing requests whose bearer token lacks ``scope`` (open when no tokens are set);
    its ``check`` attribute is the same check as a plain function (``errors._auth_first``)."""

    def check(request: Request) -> None:
        tokens = request.app.state.tokens
        if not tokens:
            return
        scopes = scopes_for(tokens, request.headers.get("authorization"))
        if scopes is None:
            raise ApiError(401, "header.authorization", "a valid bearer token is required")
        if scope not in scopes:
            raise ApiError(403, "header.authorization", f"this token lacks the {scope!r} scope")

    async def dependency(request: Request) -> None:
        check(request)

    dependency.is_scope_check = True  # type: ignore[attr-defined]  (errors.py runs it before body errors)
    dependency.check = check  # type: ignore[attr-defined]
    return dependency


async def no_nul_in_query(request: Request) -> None:
    """422 naming the parameter for a NUL character (``%00``) in the query string: no node name
    holds one, and PostgreSQL cannot even compare text with one."""
    for key, value in request.query_params.multi_items():
        if "\x00" in key or "\x00" in value:
            raise ApiError(422, f"query.{key.replace(chr(0), '')}", "a NUL character (%00) is not allowed")


async def in_writer(request: Request, fn: Callable[..., T], *args: object) -> T:
    """``fn(*args)`` in a worker thread of the app's writers: decoding and recording a body never
    blocks the event loop, and writes waiting for the store's write lock (SQLite has one writer)
    wait here, in the event loop, without holding the threads and connections reads are served
    from (``write_concurrency``: SQLite 1, PostgreSQL half the pool)."""
    state = request.app.state
    limiter = getattr(state, "write_limiter", None)
    if limiter is None:  # made on first use, inside the event loop
        limiter = state.write_limiter = CapacityLimiter(write_concurrency(state.store.engine))
    return await to_thread.run_sync(lambda: fn(*args), limiter=limiter)
