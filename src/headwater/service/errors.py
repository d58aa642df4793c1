"""Every error answer is ``{"error": {"field": …, "message": …}}`` with a 4xx status."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException

from headwater.model import EventFormatError
from headwater.store import AmbiguousNode, InvalidInput, LineageStore, NodeNotFound
from headwater.store.errors import NameTooLong

NODE_ID_MAX = 2**31 - 1
"""Node ids (and stored edge ids) are 32-bit ``Integer`` columns; a larger ``#id`` names nothing."""
EDGE_ID_MIN = -(2**62 - 1)
"""A virtual edge id is ``-(stored edge id << 31 | column id)``: never below this."""


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


def body_field(prefix: str, path: str, message: str, store: bool = True) -> tuple[str, str]:
    """The request field and message of an error the decoder or the ``store`` reports at ``path``.

    Paths may start at a pseudo-root ``event`` that is not in the request body. A bare word from the
    store (``dataset``, ``job``, ``expression``…) names a kind of thing, not a key: it goes into the
    message, and the item is the field.

    >>> body_field("body[1]", "event.eventTime", "bad")
    ('body[1].eventTime', 'bad')
    >>> body_field("body", "context.query_id", "missing")
    ('body.context.query_id', 'missing')
    >>> body_field("body[0]", "event", "expected an object")
    ('body[0]', 'expected an object')
    >>> body_field("body", "dataset", "'a.b': names are at most 1024 characters")
    ('body', "dataset: 'a.b': names are at most 1024 characters")
    >>> body_field("body[2]", "event_id", "missing", store=False)
    ('body[2].event_id', 'missing')
    """
    rooted = path == "event" or path.startswith(("event.", "event["))
    rest = path[len("event") :].lstrip(".") if rooted else path
    if not rest:
        return prefix, message
    if store and not rooted and "." not in rest and "[" not in rest:
        return prefix, f"{rest}: {message}"
    return (prefix + rest if rest.startswith("[") else f"{prefix}.{rest}"), message


def check_node_ref(field: str, ref: str | int) -> None:
    """404 for an id no node can have (``#id`` beyond the id column) before it reaches the database,
    where it would overflow."""
    if isinstance(ref, str):
        if not (ref.startswith("#") and ref[1:].isdigit()):
            return
        try:
            n = int(ref[1:])
        except ValueError:  # '#²': a digit to str.isdigit, not to int
            raise ApiError(404, field, str(NodeNotFound(ref))) from None
    else:
        n = ref
    if not 0 <= n <= NODE_ID_MAX:
        raise ApiError(404, field, str(NodeNotFound(str(ref))))


def no_nul(value: Any, path: str) -> None:
    """422 naming the first string (or key) of parsed JSON ``value`` holding a NUL character: no
    name can hold one and PostgreSQL text cannot store one, so it is refused everywhere."""
    if isinstance(value, str):
        if "\x00" in value:
            raise ApiError(422, path, "a NUL character (\\u0000) is not allowed")
    elif isinstance(value, dict):
        for key, item in value.items():
            if "\x00" in str(key):
                raise ApiError(422, path, "a NUL character (\\u0000) is not allowed in a key")
            no_nul(item, f"{path}.{key}")
    elif isinstance(value, list):
        for k, item in enumerate(value):
            no_nul(item, f"{path}[{k}]")


@contextmanager
def as_api_errors(field: str, ref: str | int | None = None) -> Iterator[None]:
    """Store errors about the node named by request field ``field`` become 404 / 409 / 400; ``ref``
    (what the field holds) is checked first for ids out of range."""
    if ref is not None:
        check_node_ref(field, ref)
    try:
        yield
    except NodeNotFound as exc:
        raise ApiError(404, field, str(exc)) from None
    except AmbiguousNode as exc:
        raise ApiError(409, field, str(exc), exc.candidates) from None
    except NameTooLong as exc:
        raise ApiError(400, field, exc.message) from None
    except InvalidInput as exc:
        if field.startswith("body"):
            raise ApiError(400, *body_field(field, exc.field, exc.message)) from None
        raise ApiError(400, exc.field, exc.message) from None
    except EventFormatError as exc:
        path, _, message = str(exc).partition(": ")
        located = body_field(field, path, message, store=False) if message else (field, str(exc))
        raise ApiError(400, *located) from None


@contextmanager
def expecting(store: LineageStore, field: str, ref: str, what: str) -> Iterator[None]:
    """A lookup restricted to some node types found nothing: if ``ref`` names a node of another
    type, say so (422 ``… is a DATASET, not a field``) instead of 404."""
    try:
        yield
    except NodeNotFound:
        try:
            node = store.resolve(ref)
        except NodeNotFound:
            raise
        except AmbiguousNode as exc:
            message = f"{ref!r} names no {what}: it matches {', '.join(exc.candidates)}"
            raise ApiError(422, field, message, exc.candidates) from None
        raise ApiError(422, field, f"{ref!r} is a {node.type}, not a {what}") from None


def _json_error(request: Request, exc: RequestValidationError) -> ApiError | None:
    """Malformed or missing JSON bodies are 400, as on the endpoints that decode their own bodies."""
    errors = exc.errors()
    first = errors[0] if errors else {}
    if first.get("type") == "json_invalid":
        try:
            json.loads(exc.body if isinstance(exc.body, str | bytes) else b"")
        except (json.JSONDecodeError, UnicodeDecodeError) as err:
            return ApiError(400, "body", f"not JSON: {err}")
        return ApiError(400, "body", f"not JSON: {first.get('ctx', {}).get('error', 'decode error')}")
    if first.get("type") == "missing" and tuple(first.get("loc", ())) == ("body",):
        return ApiError(400, "body", "empty body")
    return None


def _auth_first(request: Request) -> ApiError | None:
    """FastAPI decodes a JSON body before running the route's dependencies: run its token check here
    so that a request without a valid token gets 401/403, not a word about its body."""
    route = request.scope.get("route")
    for dep in getattr(route, "dependencies", ()):
        if getattr(dep.dependency, "is_scope_check", False):
            try:
                dep.dependency.check(request)
            except ApiError as err:
                return err
    return None


_HTTP_FIELDS = {400: "body", 404: "path", 405: "method"}


def install(app: FastAPI, api: str) -> None:
    @app.exception_handler(ApiError)
    async def _api(_: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse(_body(exc.field, exc.message, exc.candidates), status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        err = _json_error(request, exc)
        if err is not None:
            err = _auth_first(request) or err
            return JSONResponse(_body(err.field, err.message), status_code=err.status)
        first = exc.errors()[0] if exc.errors() else {"loc": ("body",), "msg": "invalid"}
        return JSONResponse(_body(_loc(tuple(first["loc"])), first["msg"]), status_code=422)

    @app.exception_handler(HTTPException)
    async def _http(request: Request, exc: HTTPException) -> Response:
        """Under the API, unknown paths (404), wrong methods (405) and bodies FastAPI cannot decode
        (400: not UTF-8) answer in the one error shape too; the explorer's files keep the default."""
        if not request.url.path.startswith(api + "/"):
            return await http_exception_handler(request, exc)
        message = exc.detail
        if exc.status_code == 400 and message == "There was an error parsing the body":
            message = "not JSON: the body cannot be decoded as UTF-8 JSON"
        field = _HTTP_FIELDS.get(exc.status_code, "request")
        return JSONResponse(_body(field, str(message)), status_code=exc.status_code, headers=exc.headers)
