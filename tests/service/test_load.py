"""The server under concurrent readers and writers: a write waiting for the store's write lock
does not stop reads (writes are decoded and recorded in worker threads, one at a time on SQLite),
and many clients at once stay within the store's pool."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from tests.service.conftest import running
from tests.store.conftest import copy_event, guide

from headwater.model import event_to_dict
from headwater.service import create_app
from headwater.store import LineageStore, open_store
from headwater.store.engine import pool_capacity

ORIGIN = ("/api/v1/field-origin", {"field": "lineage_customer_summary.total_amount"})


@pytest.fixture
def sqlite_server(tmp_path: Path) -> Iterator[tuple[str, LineageStore]]:
    store = open_store(f"sqlite:///{tmp_path / 'l.db'}")
    store.record(guide())
    with running(create_app(store)) as base:
        yield base, store


def test_reads_are_answered_while_a_write_waits_for_the_lock(sqlite_server: tuple[str, LineageStore]) -> None:
    base, store = sqlite_server
    posted: list[int] = []
    event = event_to_dict(copy_event("copy_1", {"amount": [("lineage_orders", "amount")]}, query_id="c1"))
    with store._lock:  # another writer of this process holds SQLite's one write slot
        writer = threading.Thread(
            target=lambda: posted.append(httpx.post(f"{base}/api/v1/events", json=event, timeout=120).status_code)
        )
        writer.start()
        time.sleep(0.5)  # the POST has arrived and waits for the lock
        for _ in range(5):  # answered meanwhile: the waiting write holds no event loop
            r = httpx.get(base + ORIGIN[0], params=ORIGIN[1], timeout=60)
            assert [o["field"]["short"] for o in r.json()["origins"]] == ["lineage_orders.amount"]
        assert writer.is_alive() and not posted
    writer.join(120)
    assert posted == [201]
    r = httpx.get(f"{base}/api/v1/field-impact", params={"field": "lineage_orders.amount"}, timeout=60)
    assert "copy_1.amount" in {i["field"]["short"] for i in r.json()["impacted"]}


def test_ten_writers_and_ten_readers_at_once(sqlite_server: tuple[str, LineageStore]) -> None:
    base, store = sqlite_server
    checked_out: list[int] = []
    writing, most = [0], [0]
    record_batch, guard = store.record_batch, threading.Lock()

    def counted(events: object) -> object:  # how many writes are in the store at once
        with guard:
            writing[0] += 1
            most[0] = max(most, writing)[0]
        try:
            return record_batch(events)
        finally:
            with guard:
                writing[0] -= 1

    store.record_batch = counted  # type: ignore[method-assign]

    def write(k: int) -> int:
        event = copy_event(f"copy_{k}", {"amount": [("lineage_orders", "amount")]}, query_id=f"c{k}")
        with httpx.Client(base_url=base, timeout=120) as client:
            return client.post("/api/v1/events", json=event_to_dict(event)).status_code

    def read(_: int) -> list[str]:
        checked_out.append(store.engine.pool.checkedout())
        r = httpx.get(base + ORIGIN[0], params=ORIGIN[1], timeout=120)
        return [o["field"]["short"] for o in r.json()["origins"]]

    with ThreadPoolExecutor(20) as pool:
        writes = [pool.submit(write, k) for k in range(30)]
        reads = [pool.submit(read, k) for k in range(60)]
        assert [w.result() for w in writes] == [201] * 30
        assert all(r.result() == ["lineage_orders.amount"] for r in reads)
    assert max(checked_out) <= pool_capacity(store.engine)
    assert most == [1]  # SQLite writes one at a time: the others wait in the event loop, not in threads
    r = httpx.get(f"{base}/api/v1/field-impact", params={"field": "lineage_orders.amount"}, timeout=60)
    shorts = {i["field"]["short"] for i in r.json()["impacted"]}
    assert {f"copy_{k}.amount" for k in range(30)} <= shorts
    assert store.get_lineage_stats().events_recorded == 31
