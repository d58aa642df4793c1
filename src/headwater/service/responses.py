"""Read answers serialised once, by their own model.

FastAPI's generic response path validates a returned model again against ``response_model`` (in a
worker thread, for a sync route) before it encodes it; on a large answer (a lineage graph, a
field's origin: 1 MB and up) that costs more than the query. ``Answers(router)`` registers
functions that return their answer's model as endpoints that send ``json_response`` of it: the
decorator keeps ``response_model=Model``, so the OpenAPI schema still documents the type, and the
JSON is the same.

    >>> from headwater.service import schemas as m
    >>> json_response(m.ErrorDetail(field="query.node", message="no such node")).body
    b'{"field":"query.node","message":"no such node","candidates":null}'
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from fastapi import APIRouter, Response
from pydantic import BaseModel

F = TypeVar("F", bound=Callable[..., BaseModel])


def json_response(model: BaseModel) -> Response:
    """``model`` as an ``application/json`` response, encoded once (pydantic's own JSON encoder)."""
    return Response(model.model_dump_json(), media_type="application/json")


class Answers:
    """``router.get`` / ``router.post`` for functions that return their answer's model; each function
    stays as it is, for callers in Python (the gRPC servicer asks the same functions).

        read = Answers(router)

        @read.get("/stats", operation_id="get_lineage_stats", response_model=m.LineageStats)
        def get_lineage_stats(store: Store) -> m.LineageStats: ...
    """

    def __init__(self, router: APIRouter) -> None:
        self.router = router

    def get(self, path: str, **route: Any) -> Callable[[F], F]:
        return self._add(self.router.get(path, **route))

    def post(self, path: str, **route: Any) -> Callable[[F], F]:
        return self._add(self.router.post(path, **route))

    @staticmethod
    def _add(register: Callable[[Callable[..., Response]], Any]) -> Callable[[F], F]:
        def wrap(answer: F) -> F:
            @functools.wraps(answer)  # FastAPI reads the parameters (and their types) through __wrapped__
            def endpoint(*args: Any, **kwargs: Any) -> Response:
                return json_response(answer(*args, **kwargs))

            register(endpoint)
            return answer

        return wrap
