"""The memory a busy server can take is bounded: a SQLite store's pool opens at most 8 connections
of a 16 MB page cache each (it was up to 15 of 64 MB: the server grew by a gigabyte), the server runs
no more requests at once than the pool keeps connections, and PostgreSQL gets a larger pool."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import text
from tests.store.conftest import guide

from headwater.model import event_to_dict
from headwater.service import create_app
from headwater.service.app import request_threads
from headwater.store import open_store
from headwater.store.engine import make_engine, pool_capacity


def test_a_sqlite_stores_connections_and_caches_are_bounded(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'l.db'}")
    store.record(guide())
    assert pool_capacity(store.engine) == 8 and request_threads(store) == 5
    with store.engine.connect() as conn:
        assert conn.execute(text("PRAGMA cache_size")).scalar_one() == -16384  # KiB: 16 MB
        assert conn.execute(text("PRAGMA journal_mode")).scalar_one() == "wal"
    seen = []

    def query(_: int) -> int:
        seen.append(store.engine.pool.checkedout())
        return len(store.get_field_origin("lineage_customer_summary.total_amount").origins)

    with ThreadPoolExecutor(24) as pool:
        assert set(pool.map(query, range(200))) == {1}
    assert max(seen) <= 8


def test_the_server_answers_many_clients_with_the_bounded_pool(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'l.db'}")
    with TestClient(create_app(store)) as client:
        assert client.post("/api/v1/events", json=event_to_dict(guide())).status_code == 201

        def get(_: int) -> int:
            r = client.get("/api/v1/field-origin", params={"field": "lineage_customer_summary.total_amount"})
            return r.status_code

        with ThreadPoolExecutor(20) as pool:
            assert set(pool.map(get, range(100))) == {200}
    assert store.engine.pool.checkedout() == 0


def test_postgresql_gets_a_pool_for_parallel_queries() -> None:
    engine = make_engine("postgresql+psycopg://postgres@127.0.0.1:5432/test")
    try:
        assert pool_capacity(engine) == 20 and engine.pool.size() == 10
    finally:
        engine.dispose()
