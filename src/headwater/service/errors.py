"""Every error answer is ``{"error": {"field": …, "message": …}}`` with a 4xx status."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from headwater.model import EventFormatError
from headwater.store import AmbiguousNode, InvalidInput, NodeNotFound


class ApiError(Exception):
    def __init__(self, status: int, field: str, message: str, candidates: list[str] | None = None) -> None:
        super().__init__(message)
        self.status, self.field, self.message, self.candidates = status, field, message, candidates


def _body(field: str, message: str, candidates: list[str] | None = None) -> dict[str, Any]:
    err: dict[str, Any] = {"field": field, "message": message}
    if candidates is not None:
        err["candidates"] = candidates
    return {"error": err}


def _loc(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


@contextmanager
def as_api_errors(field: str) -> Iterator[None]:
    """Store errors about the node named by request field ``field`` become 404 / 409 / 400."""
    try:
        yield
    except NodeNotFound as exc:
        raise ApiError(404, field, str(exc)) from None
    except AmbiguousNode as exc:
        raise ApiError(409, field, str(exc), exc.candidates) from None
    except InvalidInput as exc:
        raise ApiError(400, f"body.{exc.field}" if field.startswith("body") else exc.field, exc.message) from None
    except EventFormatError as exc:
        path, _, message = str(exc).partition(": ")
        raise ApiError(400, f"{field}.{path}" if message else field, message or str(exc)) from None


def install(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def _api(_: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse(_body(exc.field, exc.message, exc.candidates), status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {"loc": ("body",), "msg": "invalid"}
        return JSONResponse(_body(_loc(tuple(first["loc"])), first["msg"]), status_code=422)
