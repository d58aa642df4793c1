"""Request dependencies: the store and the scope checks."""

from __future__ import annotations

from collections.abc import Callable

from fastapi import Request

from headwater.service.auth import scopes_for
from headwater.service.errors import ApiError
from headwater.store import LineageStore


def get_store(request: Request) -> LineageStore:
    return request.app.state.store  # type: ignore[no-any-return]


def require(scope: str) -> Callable[[Request], None]:
    """A dependency refusing requests whose bearer token lacks ``scope`` (open when no tokens are set)."""

    def check(request: Request) -> None:
        tokens = request.app.state.tokens
        if not tokens:
            return
        scopes = scopes_for(tokens, request.headers.get("authorization"))
        if scopes is None:
            raise ApiError(401, "header.authorization", "a valid bearer token is required")
        if scope not in scopes:
            raise ApiError(403, "header.authorization", f"this token lacks the {scope!r} scope")

    return check
