"""The SQLite floor of the store's ingest: how fast SQLite alone writes the rows the store writes.

Records the store benchmark's warehouse (``store_bench.warehouse``) with ``record_batch`` in batches
of 500, keeping every ``executemany`` the store issues (its only bulk-write path on SQLite), then
replays those exact rows with plain ``sqlite3`` into a fresh store file of the same schema: one
``BEGIN IMMEDIATE`` … ``COMMIT`` per batch, no Python work but the calls. The replay's events/s is
the ceiling for any Python code in front of this schema; variants drop rows or an index to show
what a leaner layout would allow.

    .venv/bin/python bench/store_write_floor.py                 # 8,000 events of 135 column edges
    .venv/bin/python bench/store_write_floor.py --scale 0.3
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from headwater.store import open_store, write
from store_bench import LAYERS, warehouse

Batch = list[tuple[str, list[tuple[Any, ...]]]]


def record(path: Path, events: Sequence[Any]) -> tuple[float, list[Batch]]:
    """Events/s of the store itself, and the rows of each of its write transactions."""
    batches: list[Batch] = []
    original = write._executemany

    def keep(conn: Any, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        batches[-1].append((sql, [tuple(r) for r in rows]))
        original(conn, sql, rows)

    write._executemany = keep  # type: ignore[assignment]
    store = open_store(f"sqlite:///{path}")
    try:
        t0 = time.perf_counter()
        for i in range(0, len(events), 500):
            batches.append([])
            store.record_batch(events[i : i + 500])
        dt = time.perf_counter() - t0
    finally:
        write._executemany = original  # type: ignore[assignment]
        store.close()
    return len(events) / dt, batches


def replay(
    path: Path,
    batches: list[Batch],
    events: int,
    keep_row: Callable[[str, tuple[Any, ...]], bool] = lambda sql, row: True,
    drop_index: str | None = None,
) -> float:
    """Events/s of plain sqlite3 writing ``batches`` into a fresh store file at ``path``."""
    open_store(f"sqlite:///{path}").close()  # the store's schema, migrated
    conn = sqlite3.connect(path, isolation_level=None)
    for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "cache_size=-65536"):
        conn.execute(f"PRAGMA {pragma}")
    if drop_index:
        conn.execute(f"DROP INDEX {drop_index}")
    work = [[(sql, [r for r in rows if keep_row(sql, r)]) for sql, rows in batch] for batch in batches]
    t0 = time.perf_counter()
    for batch in work:
        conn.execute("BEGIN IMMEDIATE")
        for sql, rows in batch:
            conn.executemany(sql, rows)
        conn.execute("COMMIT")
    dt = time.perf_counter() - t0
    conn.close()
    return events / dt


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=1.0, help="1.0 = 10,000 tables, 8,000 events")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    events, _ = warehouse(max(LAYERS * 4, int(10_000 * args.scale)), random.Random(args.seed))
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        store_rate, batches = record(d / "store.db", events)
        rows = sum(len(r) for b in batches for _, r in b)
        n = len(events)
        print(f"{n:,} events of 135 column edges; the store wrote {rows:,} rows ({rows / n:.1f} per event)")
        print(f"  store, record_batch of 500:                      {store_rate:8,.0f} events/s")
        floor = replay(d / "replay.db", batches, n)
        print(f"  plain sqlite3 replay of the same rows:           {floor:8,.0f} events/s (the floor)")
        no_contains = replay(
            d / "lean1.db",
            batches,
            n,
            lambda sql, r: not (sql.startswith("INSERT INTO hw_edges") and r[0] == "CONTAINS"),
        )
        print(f"  replay without CONTAINS edge rows:               {no_contains:8,.0f} events/s")
        no_event_ix = replay(d / "lean2.db", batches, n, drop_index="ix_hw_edges_event")
        print(f"  replay without the ix_hw_edges_event index:      {no_event_ix:8,.0f} events/s")
        print(f"store / floor = {store_rate / floor:.2f}: the share of the time SQLite itself takes")


if __name__ == "__main__":
    main()
