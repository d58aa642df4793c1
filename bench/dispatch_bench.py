"""Dispatch benchmark: what the collector costs a producer, and what the worker sustains.

Run: ``.venv/bin/python bench/dispatch_bench.py`` (``--quick`` for a short run). Extraction is never
measured here: the extract step returns a prebuilt event.

1. ``statement_succeeded`` when no plugin wants events (target < 2 µs), beside an empty call;
2. ``statement_succeeded`` when a plugin wants the event (extraction excluded): filter, counters, offer;
3. worker throughput to a no-op plugin (target > 100,000 events/s), from a full queue;
4. drops over time behind a plugin that sleeps 10 ms per event, with a producer at full speed;
5. the ``store`` plugin behind a burst (a full queue of guide-sized events into SQLite): one event per
   transaction (``lineage_dispatch_batch = 1``) against what is queued in one (the default, 500).
"""

from __future__ import annotations

import argparse
import logging
import platform
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from headwater.dispatch import DispatchSettings, LineageDispatch, start_dispatch
from headwater.dispatch.activation import LoadedPlugin
from headwater.dispatch.counters import Counters
from headwater.dispatch.event_queue import BoundedQueue
from headwater.dispatch.filtering import FilterGate
from headwater.dispatch.sample import tiny_event
from headwater.dispatch.spi import LineagePlugin, PluginContext
from headwater.dispatch.testing import StaticFactory, discovery_of
from headwater.dispatch.worker import DispatchWorker
from headwater.extract import RunInfo
from headwater.model import LineageInfo
from headwater.plugins.store import StorePlugin
from store_bench import guide_event

SQL = "INSERT INTO t SELECT a FROM s"
RUN = RunInfo(query_id="bench")


class NoOp(LineagePlugin):
    """Wants events (or not); counts them; can hold the worker on the first event."""

    def __init__(self, wants: bool = True, hold: threading.Event | None = None, sleep: float = 0.0) -> None:
        self.wants = wants
        self.hold = hold
        self.sleep = sleep
        self.count = 0
        self.target = 0
        self.done = threading.Event()
        self.entered = threading.Event()

    def name(self) -> str:
        return "noop"

    def event_filter(self) -> bool:
        return self.wants

    def exec(self, event: LineageInfo) -> None:
        if self.hold is not None and not self.entered.is_set():
            self.entered.set()
            self.hold.wait()
        if self.sleep:
            time.sleep(self.sleep)
        self.count += 1
        if self.count == self.target:
            self.done.set()


def dispatch_with(plugins: list[LineagePlugin], queue_size: int, extract: Callable) -> LineageDispatch:
    settings = DispatchSettings(plugin_dir=None, lineage_event_queue_size=queue_size)  # type: ignore[arg-type]
    factories = [StaticFactory(p.name(), lambda ctx, p=p: p) for p in plugins]
    return start_dispatch(settings, extract=extract, discovery=discovery_of(*factories))


def per_call_ns(fn: Callable[[], None], n: int) -> float:
    """Best of three runs of ``n`` calls, in ns per call (loop overhead included)."""
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter_ns()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter_ns() - t0) / n)
    return best


def bench_not_wanted(n: int) -> None:
    events = [tiny_event("q")]

    def extract(*_: object) -> list[LineageInfo]:
        return events

    def empty(sql: str, run: RunInfo, dialect: str | None = None) -> None:
        return None

    baseline = per_call_ns(lambda: empty(SQL, RUN, "mysql"), n)
    print("1. statement_succeeded when no plugin wants the event")
    print(f"   empty Python call with the same arguments : {baseline:8.0f} ns/call")
    for label, plugins in (("no plugin loaded", []), ("one plugin, event_filter() False", [NoOp(wants=False)])):
        with dispatch_with(plugins, 50000, extract) as d:
            c = d.collector
            ns = per_call_ns(lambda c=c: c.statement_succeeded(SQL, RUN, "mysql"), n)
            assert d.snapshot().extracted == 0
        print(f"   {label:<42}: {ns:8.0f} ns/call  ({ns / baseline:4.1f}x an empty call; target < 2000 ns)")


def bench_submit(n: int) -> None:
    events = [tiny_event("q")]

    def extract(*_: object) -> list[LineageInfo]:
        return events

    hold = threading.Event()
    plugin = NoOp(hold=hold)
    with dispatch_with([plugin], n * 3 + 1, extract) as d:
        c = d.collector
        c.statement_succeeded(SQL, RUN, "mysql")
        plugin.entered.wait()  # the worker is held: the producer runs alone
        ns = per_call_ns(lambda: c.statement_succeeded(SQL, RUN, "mysql"), n)
        snap = d.snapshot()
        assert snap.dropped == 0 and snap.queue_depth == 3 * n
        d.queue.clear()
        hold.set()
    print("2. statement_succeeded when a plugin wants the event (extraction excluded, worker held)")
    print(f"   filter + pre-check + counters + offer      : {ns:8.0f} ns/call")


def bench_worker(n: int) -> None:
    events = [tiny_event("q")]

    def extract(*_: object) -> list[LineageInfo]:
        return events

    hold = threading.Event()
    plugin = NoOp(hold=hold)
    plugin.target = n + 1
    with dispatch_with([plugin], n + 1, extract) as d:
        c = d.collector
        c.statement_succeeded(SQL, RUN)
        plugin.entered.wait()
        for _ in range(n):
            c.statement_succeeded(SQL, RUN)
        t0 = time.perf_counter()
        hold.set()
        plugin.done.wait()
        drained = time.perf_counter() - t0
    rate = n / drained
    print("3. worker throughput to a no-op plugin (queue pre-filled, producer idle)")
    print(f"   {n} events in {drained * 1000:5.0f} ms             : {rate:10,.0f} events/s", end="")
    print(f" ({rate / 100_000:.1f}x the 100,000/s target)")

    plugin = NoOp()
    plugin.target = n
    with dispatch_with([plugin], n, extract) as d:
        c = d.collector
        t0 = time.perf_counter()
        for _ in range(n):
            c.statement_succeeded(SQL, RUN)
        produced = time.perf_counter() - t0
        plugin.done.wait(60)
        both = time.perf_counter() - t0
        snap = d.snapshot()
    end_to_end = snap.plugins["noop"].dispatched / both
    print(f"   with the producer running concurrently     : {end_to_end:10,.0f} events/s end to end", end="")
    print(f" (producer {n / produced:,.0f} statements/s, dropped {snap.dropped})")


def bench_drops(seconds: float, queue_size: int) -> None:
    events = [tiny_event("q")]

    def extract(*_: object) -> list[LineageInfo]:
        return events

    plugin = NoOp(sleep=0.010)
    d = dispatch_with([plugin], queue_size, extract)
    stop = threading.Event()
    c = d.collector

    def produce() -> None:
        while not stop.is_set():
            for _ in range(1000):
                c.statement_succeeded(SQL, RUN)

    producer = threading.Thread(target=produce, daemon=True)
    print(f"4. drops behind a plugin that sleeps 10 ms per event (lineage_event_queue_size={queue_size})")
    print("   elapsed   submitted   dispatched     dropped   queue_depth   dropped %")
    t0 = time.perf_counter()
    producer.start()
    steps = 4
    for _ in range(steps):
        time.sleep(seconds / steps)
        s = d.snapshot()
        share = 100.0 * s.dropped / max(s.extracted, 1)
        print(
            f"   {time.perf_counter() - t0:6.2f}s {s.submitted:11,d} {s.plugins['noop'].dispatched:12,d} "
            f"{s.dropped:11,d} {s.queue_depth:13,d} {share:10.3f}"
        )
    stop.set()
    producer.join()
    d.close(timeout=0, policy="abandon")


def drain_into_store(events: list[LineageInfo], batch: int, path: Path) -> float:
    """Seconds for a worker to deliver a pre-filled queue of ``events`` to the store plugin."""
    plugin = StorePlugin()
    plugin.initialize(PluginContext("store", None, {"url": f"sqlite:///{path}"}))
    queue: BoundedQueue[LineageInfo] = BoundedQueue(len(events))
    for e in events:
        queue.offer(e)
    counters = Counters(["store"])
    loaded = [LoadedPlugin("store", plugin, None, PluginContext("store", None))]
    worker = DispatchWorker(loaded, queue, counters, FilterGate(counters), batch)
    t0 = time.perf_counter()
    worker.start()
    worker.stop(timeout=None, abandon=False)
    seconds = time.perf_counter() - t0
    plugin.close()
    assert counters.snapshot(0).plugins["store"].dispatched == len(events)
    return seconds


def bench_store_plugin(n: int) -> None:
    events = [guide_event(k, 200) for k in range(n)]
    print(f"5. the store plugin behind a burst of {n:,} guide-sized events (queue pre-filled, SQLite)")
    with tempfile.TemporaryDirectory() as tmp:
        one = drain_into_store(events, 1, Path(tmp) / "one.db")
        many = drain_into_store(events, 500, Path(tmp) / "many.db")
    print(f"   lineage_dispatch_batch = 1   (record per event)  : {n / one:10,.0f} events/s")
    print(f"   lineage_dispatch_batch = 500 (record_batch)      : {n / many:10,.0f} events/s ({one / many:.1f}x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer iterations")
    args = parser.parse_args()
    logging.getLogger("headwater").setLevel(logging.CRITICAL)  # the drop warnings would interleave the tables
    n = 100_000 if args.quick else 1_000_000
    print(f"Python {platform.python_version()} on {platform.machine()}, {sys.platform}; {n:,} calls per figure")
    bench_not_wanted(n)
    bench_submit(n // 5)
    bench_worker(n // 5)
    bench_drops(1.0 if args.quick else 2.0, 1000)
    bench_drops(1.0 if args.quick else 2.0, 50000)
    bench_store_plugin(1000 if args.quick else 5000)


if __name__ == "__main__":
    main()
