"""The SQLite floor of the store's ingest: how fast SQLite alone writes the rows the store writes.

Records the store benchmark's warehouse (``store_bench.warehouse``) with ``record_batch`` in batches
of 500, keeping every ``executemany`` the store issues (its only bulk-write path on SQLite), then
replays those exact rows with plain ``sqlite3`` into a fresh store file of the same schema: one
``BEGIN IMMEDIATE`` … ``COMMIT`` per batch, no Python work but the calls. The replay's events/s is
the ceiling for any Python code in front of this schema; variants drop rows or an index to show
what a leaner layout would allow. ``record()`` (one event per transaction) is measured the same way
against a replay of its rows, one transaction per event.

Rounds alternate (store, floor, store, floor, …) so that both see the same load; each rate is the
median over the rounds, as wall-clock and as CPU time of this process (SQLite runs inside it, so
CPU time is what the code costs, whatever else the machine runs).

    .venv/bin/python bench/store_write_floor.py                 # 8,000 events of 135 column edges
    .venv/bin/python bench/store_write_floor.py --scale 0.3 --rounds 3
    .venv/bin/python bench/store_write_floor.py --scale 0.5 --postgresql    # + the same into PostgreSQL

With ``--postgresql`` the events are also recorded into a fresh schema of ``HEADWATER_BENCH_PG``
(there is no floor: the server works in its own process), reporting wall-clock events/s and the
client's CPU time per event (the Python side of the write path).

Last, issue 14's targets are printed scaled to this run's speed (``scaled_targets``): they were set
as events/s on a host where the floor ran at 1,931/s. (PostgreSQL's is scaled by SQLite's floor too:
a rough guide, since its server is another process.)
"""

from __future__ import annotations

import argparse
import gc
import random
import sqlite3
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, text

from headwater.model import TableRef
from headwater.store import open_store, write
from store_bench import LAYERS, PG, make_event, warehouse

Batch = list[tuple[str, list[tuple[Any, ...]]]]
Rate = tuple[float, float]
"""(events/s wall-clock, events/s CPU time)"""


def _clock() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def _rate(n: int, t0: tuple[float, float]) -> Rate:
    wall, cpu = _clock()
    return n / (wall - t0[0]), n / max(cpu - t0[1], 1e-9)


def _quiet_heap() -> None:
    """Collect, then freeze what this process holds (``gc.freeze``): the bench's own objects (its
    events, and every row the store wrote, kept for the replay) would otherwise be walked by each full
    collection that falls in a timed part. A ``record()`` leaves a few long-lived objects behind (the
    store's caches), so a full collection comes every few hundred of them; one that walks the bench's
    ~1.8 million objects halved the measured rate of ``record() x 300`` in some rounds and not in
    others."""
    gc.collect()
    gc.freeze()


def record(
    path: Path, events: Sequence[Any], single: Sequence[Any] = ()
) -> tuple[Rate, list[Batch], Rate, list[Batch]]:
    """Events/s of the store itself (``record_batch`` of 500, then ``record`` of ``single`` one by
    one into the same store), and the rows of each of its write transactions: the rows of its bulk
    inserts (``write.insert_many``, one row per ``executemany`` item here whatever the statements
    the store made of them), of its other ``executemany`` calls, and the membership rows SQLite
    wrote from node rows (``write.insert_memberships``, read back). The time spent keeping the rows
    is not counted in the store's rates."""
    batches: list[Batch] = []
    spent = [0.0, 0.0]  # wall, CPU of keeping rows
    # (the code before ``insert_many`` had only ``_executemany``: the bench measures both)
    originals = (write._executemany, getattr(write, "insert_many", None), getattr(write, "insert_memberships", None))

    def kept(t0: tuple[float, float]) -> None:
        wall, cpu = _clock()
        spent[0] += wall - t0[0]
        spent[1] += cpu - t0[1]

    def keep(conn: Any, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        t0 = _clock()
        batches[-1].append((sql, [tuple(r) for r in rows]))
        kept(t0)
        originals[0](conn, sql, rows)

    def keep_many(conn: Any, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        t0 = _clock()
        batches[-1].append((sql, [tuple(r) for r in rows]))
        kept(t0)
        originals[1](conn, sql, rows)  # type: ignore[misc]

    def keep_memberships(conn: Any, *args: Any) -> Any:
        written = originals[2](conn, *args)  # type: ignore[misc]
        t0 = _clock()
        # (first, last) ids before, the set of ids inserted since; on SQLite one range either way
        first, last = args if len(args) == 2 else (min(args[0]), max(args[0]))
        cols = ", ".join(write.EDGE_COLUMNS)
        q = (
            f"SELECT {cols} FROM hw_edges WHERE type = 'CONTAINS' AND dst_id BETWEEN ? AND ? "
            f"AND valid_to = {write.OPEN} AND job_id IS NULL ORDER BY dst_id"
        )
        cursor = write._cursor(conn)
        rows = cursor.execute(q, (first, last)).fetchall()
        cursor.close()
        batches[-1].append((write.EDGE_INSERT, rows))
        kept(t0)
        return written  # the rows written (None before they were counted)

    def timed(n: int, t0: tuple[float, float]) -> Rate:
        wall, cpu = _clock()
        return n / (wall - t0[0] - spent[0]), n / max(cpu - t0[1] - spent[1], 1e-9)

    write._executemany = keep  # type: ignore[assignment]
    if originals[1] is not None:
        write.insert_many = keep_many  # type: ignore[assignment]
        write.insert_memberships = keep_memberships  # type: ignore[assignment]
    store = open_store(f"sqlite:///{path}")
    _quiet_heap()
    try:
        t0 = _clock()
        for i in range(0, len(events), 500):
            batches.append([])
            store.record_batch(events[i : i + 500])
        batch_rate = timed(len(events), t0)
        first_single = len(batches)
        _quiet_heap()
        spent[:] = [0.0, 0.0]
        t0 = _clock()
        for e in single:
            batches.append([])
            store.record(e)
        single_rate = timed(len(single), t0) if single else (0.0, 0.0)
    finally:
        write._executemany = originals[0]  # type: ignore[assignment]
        if originals[1] is not None:
            write.insert_many, write.insert_memberships = originals[1], originals[2]  # type: ignore[assignment]
        store.close()
    return batch_rate, batches[:first_single], single_rate, batches[first_single:]


def replay(
    path: Path,
    batches: list[Batch],
    events: int,
    keep_row: Callable[[str, tuple[Any, ...]], bool] = lambda sql, row: True,
    drop_index: str | None = None,
    before: Sequence[Batch] = (),
) -> Rate:
    """Events/s of plain sqlite3 writing ``batches`` into a fresh store file at ``path`` (after
    ``before``, untimed: the store the batches were written into)."""
    open_store(f"sqlite:///{path}").close()  # the store's schema, migrated
    conn = sqlite3.connect(path, isolation_level=None)
    for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "cache_size=-16384"):
        conn.execute(f"PRAGMA {pragma}")
    if drop_index:
        conn.execute(f"DROP INDEX {drop_index}")
    work = [[(sql, [r for r in rows if keep_row(sql, r)]) for sql, rows in batch] for batch in batches]

    def run(todo: Sequence[Batch]) -> None:
        for batch in todo:
            conn.execute("BEGIN IMMEDIATE")
            for sql, rows in batch:
                conn.executemany(sql, rows)
            conn.execute("COMMIT")

    run(before)
    t0 = _clock()
    run(work)
    rate = _rate(events, t0)
    conn.close()
    return rate


def postgresql(events: Sequence[Any], single: Sequence[Any]) -> tuple[Rate, Rate]:
    """``record_batch`` of 500 and then ``record`` of ``single`` into a fresh PostgreSQL schema."""
    schema = f"hw_floor_{uuid.uuid4().hex[:8]}"
    admin = create_engine(PG, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        store = open_store(f"{PG}?options=-csearch_path%3D{schema}")
        _quiet_heap()
        t0 = _clock()
        for i in range(0, len(events), 500):
            store.record_batch(events[i : i + 500])
        batch = _rate(len(events), t0)
        _quiet_heap()
        t0 = _clock()
        for e in single:
            store.record(e)
        one = _rate(len(single), t0) if single else (0.0, 0.0)
        store.close()
        return batch, one
    finally:
        with admin.connect() as c:
            c.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


ISSUE_FLOOR = 1_931
"""The floor (``record_batch``'s rows, CPU events/s) when issue 14 set its targets. Hosts of this
machine kind differ by up to ~1.7x from day to day (the floor ran at 2,095 to 3,241 in December 2026),
so a target read against events/s of another day says little; scaled by this run's floor over this
one, it is the target at this run's speed."""
TARGETS = (("SQLite record_batch", 1_800), ("SQLite record()", 1_000), ("PostgreSQL record_batch (wall)", 1_200))
"""Issue 14's item 4, in events/s at ``ISSUE_FLOOR``."""


def scaled_targets(floor_cpu: float) -> str:
    """Issue 14's targets at the speed of a run whose floor is ``floor_cpu`` CPU events/s.

    >>> print(scaled_targets(3_862))
    issue 14's targets at this run's speed (its floor 3,862 = 2.00 x the 1,931 they were set against):
      SQLite record_batch >= 3,600, SQLite record() >= 2,000, PostgreSQL record_batch (wall) >= 2,400
    """
    k = floor_cpu / ISSUE_FLOOR
    targets = ", ".join(f"{name} >= {target * k:,.0f}" for name, target in TARGETS)
    return (
        f"issue 14's targets at this run's speed (its floor {floor_cpu:,.0f} = {k:.2f} x the {ISSUE_FLOOR:,} "
        f"they were set against):\n  {targets}"
    )


def _median(rates: list[Rate]) -> Rate:
    return statistics.median(r[0] for r in rates), statistics.median(r[1] for r in rates)


def _show(label: str, rate: Rate, floor: Rate | None = None) -> None:
    ratio = f"   {rate[0] / floor[0]:.2f} / {rate[1] / floor[1]:.2f} of the floor" if floor else ""
    print(f"  {label:48} {rate[0]:8,.0f} wall {rate[1]:8,.0f} CPU events/s{ratio}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=1.0, help="1.0 = 10,000 tables, 8,000 events")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds of store and floor")
    ap.add_argument("--single", type=int, default=300, help="events recorded one per transaction")
    ap.add_argument("--variants", action="store_true", help="also replay without CONTAINS rows / an index")
    ap.add_argument("--postgresql", action="store_true", help="also record into PostgreSQL (HEADWATER_BENCH_PG)")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    events, layers = warehouse(max(LAYERS * 4, int(10_000 * args.scale)), rng)
    single = [
        make_event(TableRef("internal", "extra", f"x{k}"), rng.choice(layers[-1]), rng.choice(layers[-2]), 10**7 + k)
        for k in range(args.single)
    ]
    n = len(events)
    stores, floors, singles, single_floors = [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        for k in range(args.rounds):
            store_rate, batches, single_rate, single_batches = record(d / f"store{k}.db", events, single)
            stores.append(store_rate)
            singles.append(single_rate)
            floors.append(replay(d / f"replay{k}.db", batches, n))
            if single:
                single_floors.append(replay(d / f"replay1_{k}.db", single_batches, len(single), before=batches))
        rows = sum(len(r) for b in batches for _, r in b)
        print(f"{n:,} events of 135 column edges; the store wrote {rows:,} rows ({rows / n:.1f} per event)")
        print(f"medians of {args.rounds} alternating rounds (wall-clock / CPU time of this process):")
        floor = _median(floors)
        _show("store, record_batch of 500", _median(stores), floor)
        _show("plain sqlite3 replay of the same rows (floor)", floor)
        if single:
            single_floor = _median(single_floors)
            _show(f"store, record() x {len(single)} (one per transaction)", _median(singles), single_floor)
            _show("plain sqlite3 replay, one transaction per event", single_floor)
        if args.postgresql:
            batch, one = postgresql(events, single)
            print(
                f"  PostgreSQL, record_batch of 500: {batch[0]:8,.0f} wall events/s, client CPU "
                f"{1e6 / batch[1]:6,.0f} us per event"
            )
            if single:
                print(
                    f"  PostgreSQL, record() x {len(single)}:    {one[0]:8,.0f} wall events/s, client CPU "
                    f"{1e6 / one[1]:6,.0f} us per event"
                )
        print(scaled_targets(floor[1]))
        if args.variants:
            no_contains = replay(
                d / "lean1.db",
                batches,
                n,
                lambda sql, r: not (sql.startswith("INSERT INTO hw_edges") and r[0] == "CONTAINS"),
            )
            _show("replay without CONTAINS edge rows", no_contains)
            _show(
                "replay without the ix_hw_edges_event index",
                replay(d / "lean2.db", batches, n, drop_index="ix_hw_edges_event"),
            )


if __name__ == "__main__":
    main()
