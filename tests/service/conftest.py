"""Service fixtures: the API over a store on each backend, through FastAPI's TestClient."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from tests.store.conftest import pg_url, store_url  # noqa: F401  (fixtures)

from headwater.service import create_app
from headwater.store import LineageStore, open_store


@pytest.fixture
def api_store(store_url: str) -> LineageStore:  # noqa: F811
    return open_store(store_url)


@pytest.fixture
def client(api_store: LineageStore) -> Iterator[TestClient]:
    with TestClient(create_app(api_store)) as c:
        yield c
