"""The request path's own cost: no request dependency runs in a worker thread (FastAPI runs a plain
``def`` dependency in one; three hops per read cost more server CPU than the checks), and the token
check still answers 401/403 before a word about a body (``errors._auth_first``)."""

from __future__ import annotations

import inspect

from fastapi import APIRouter
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from headwater.service import create_app, routes_diff, routes_explorer, routes_query, routes_record
from headwater.service.app import POSTGRES_REQUEST_THREADS, request_threads
from headwater.service.marquez import routes as routes_marquez
from headwater.store import open_store


def _dependencies(router: APIRouter) -> list[object]:
    out: list[object] = [d.dependency for d in router.dependencies]
    todo = [d for r in router.routes if isinstance(r, APIRoute) for d in r.dependant.dependencies]
    while todo:
        d = todo.pop()
        out.append(d.call)
        todo.extend(d.dependencies)
    return out


def test_no_request_dependency_runs_in_a_thread() -> None:
    for module in (routes_query, routes_record, routes_explorer, routes_diff, routes_marquez):
        calls = _dependencies(module.router)
        assert len(calls) > 2, module
        for call in calls:
            assert inspect.iscoroutinefunction(call), (module.__name__, call)


def test_a_bad_body_without_a_token_is_401_first() -> None:
    app = create_app(open_store("sqlite://"), tokens={"w": {"write"}, "r": {"read"}})
    with TestClient(app) as client:
        r = client.post("/api/v1/events", content=b"{not json", headers={"content-type": "application/json"})
        assert r.status_code == 401, r.text
        r = client.post(
            "/api/v1/events",
            content=b"{not json",
            headers={"content-type": "application/json", "authorization": "Bearer r"},
        )
        assert r.status_code == 403, r.text
        assert client.get("/api/v1/stats", headers={"authorization": "Bearer r"}).status_code == 200


def test_a_postgresql_server_runs_few_requests_at_once(pg_url: str) -> None:
    """Its pool keeps 10 connections; 4 threads keep PostgreSQL busy, more only lengthen the tail."""
    store = open_store(pg_url)
    try:
        assert store.engine.pool.size() == 10 and request_threads(store) == POSTGRES_REQUEST_THREADS == 4
    finally:
        store.close()
    assert request_threads(open_store("sqlite://")) >= 2
