"""Service fixtures: the API over a store on each backend, through FastAPI's TestClient; ``running``,
a real uvicorn server on loopback."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from fastapi.testclient import TestClient
from tests.store.conftest import pg_url, store_url  # noqa: F401  (fixtures)

from headwater.service import create_app
from headwater.service.http_limits import ServerLimits
from headwater.service.server import uvicorn_server
from headwater.store import LineageStore, open_store


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def running(app: object, limits: ServerLimits = ServerLimits()) -> Iterator[str]:  # noqa: B008
    """``app`` served by uvicorn (as ``headwater serve`` does) in a thread on 127.0.0.1: its base URL."""
    port = free_port()
    srv = uvicorn_server(app, "127.0.0.1", port, limits, log_level="warning")
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    for _ in range(600):
        if srv.started:
            break
        time.sleep(0.05)
    assert srv.started
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        srv.should_exit = True
        thread.join(30)


@pytest.fixture
def api_store(store_url: str) -> LineageStore:  # noqa: F811
    return open_store(store_url)


@pytest.fixture
def client(api_store: LineageStore) -> Iterator[TestClient]:
    with TestClient(create_app(api_store)) as c:
        yield c
