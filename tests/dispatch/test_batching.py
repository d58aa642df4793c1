"""Batches: a plugin that overrides ``exec_batch`` gets what is queued in one call, in order; a failed
batch is delivered again event by event; plain plugins keep getting one ``exec`` per event. The worker
is started on a filled queue, so what it takes together is known without timing."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from headwater.dispatch import DispatchSettings, load_settings
from headwater.dispatch.activation import LoadedPlugin
from headwater.dispatch.counters import Counters
from headwater.dispatch.event_queue import BoundedQueue
from headwater.dispatch.filtering import FilterGate
from headwater.dispatch.sample import tiny_event
from headwater.dispatch.settings import SettingsError
from headwater.dispatch.spi import PluginContext
from headwater.dispatch.testing import RecordingPlugin
from headwater.dispatch.worker import DispatchWorker
from headwater.model import LineageInfo
from headwater.plugins.store import StorePlugin
from headwater.store import open_store


class BatchPlugin(RecordingPlugin):
    """Records each ``exec_batch`` call; ``refuse`` makes every batch fail; ``bad`` events fail in ``exec``."""

    def __init__(self, name: str, calls: list[tuple[str, str, Any]], refuse: bool = False, bad: str = "") -> None:
        super().__init__(name, calls, on_exec=self._check)
        self.refuse = refuse
        self.bad = bad
        self.batches: list[list[str]] = []

    def _check(self, event: LineageInfo) -> None:
        if event.context.query_id == self.bad:
            raise ValueError(f"cannot take {self.bad}")

    def exec_batch(self, events: Sequence[LineageInfo]) -> None:
        self.batches.append([e.context.query_id for e in events])
        if self.refuse:
            raise RuntimeError("batch refused")
        self.events.extend(events)


def run_worker(plugins: list[RecordingPlugin], n: int, batch: int) -> Counters:
    """Queue ``n`` events, then start a worker and let it drain the queue."""
    queue: BoundedQueue[LineageInfo] = BoundedQueue(1000)
    for i in range(1, n + 1):
        assert queue.offer(tiny_event(f"q{i}"))
    counters = Counters([p.name() for p in plugins])
    loaded = [LoadedPlugin(p.name(), p, None, PluginContext(p.name(), None)) for p in plugins]
    worker = DispatchWorker(loaded, queue, counters, FilterGate(counters), batch)
    worker.start()
    assert worker.stop(timeout=30, abandon=False)
    return counters


def ids(plugin: RecordingPlugin) -> list[str]:
    return [e.context.query_id for e in plugin.events]


def test_batch_plugin_gets_the_queue_in_order_in_batches_of_at_most_the_setting() -> None:
    calls: list = []
    batcher, plain = BatchPlugin("batcher", calls), RecordingPlugin("plain", calls)
    counters = run_worker([batcher, plain], n=5, batch=2)
    assert batcher.batches == [["q1", "q2"], ["q3", "q4"]]  # q5 came alone: one exec
    assert ids(batcher) == ids(plain) == ["q1", "q2", "q3", "q4", "q5"]
    assert [c[1] for c in calls if c[0] == "plain"].count("exec") == 5
    snap = counters.snapshot(0)
    assert snap.plugins["batcher"].dispatched == snap.plugins["plain"].dispatched == 5


def test_without_a_batch_plugin_every_event_is_taken_alone() -> None:
    calls: list = []
    plain = RecordingPlugin("plain", calls)
    run_worker([plain], n=3, batch=500)
    assert ids(plain) == ["q1", "q2", "q3"]
    assert [c[1] for c in calls].count("event_filter") == 3  # once per event, as before batching


def test_failed_batch_is_delivered_event_by_event_and_only_the_bad_event_fails(
    caplog: pytest.LogCaptureFixture,
) -> None:
    calls: list = []
    batcher = BatchPlugin("batcher", calls, refuse=True, bad="q2")
    with caplog.at_level(logging.WARNING, logger="headwater.dispatch"):
        counters = run_worker([batcher], n=3, batch=10)
    assert batcher.batches == [["q1", "q2", "q3"]]
    assert ids(batcher) == ["q1", "q2", "q3"]  # each given to exec once more, in order; q2's raised
    snap = counters.snapshot(0).plugins["batcher"]
    assert (snap.dispatched, snap.failed) == (2, 1)
    messages = [r.getMessage() for r in caplog.records]
    assert "Lineage plugin batcher failed on a batch of 3 events; delivering them one by one" in messages
    assert any(m.startswith("Lineage plugin batcher failed on event") for m in messages)


def test_a_declining_batch_plugin_counts_every_event_filtered_out() -> None:
    calls: list = []
    batcher = BatchPlugin("batcher", calls)
    batcher.wants = False
    counters = run_worker([batcher], n=4, batch=10)
    assert batcher.batches == [] and batcher.events == []
    assert counters.snapshot(0).plugins["batcher"].filtered_out == 4


def test_store_plugin_records_a_queued_burst_in_one_transaction_and_a_replay_changes_nothing(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'lineage.db'}"
    plugin = StorePlugin()
    plugin.initialize(PluginContext("store", None, {"url": url}))
    try:
        run_worker([plugin], n=20, batch=500)  # type: ignore[list-item]
        run_worker([plugin], n=20, batch=500)  # type: ignore[list-item]
    finally:
        plugin.close()
    store = open_store(url)
    with store.engine.connect() as conn:
        recorded = conn.exec_driver_sql("SELECT count(*), count(DISTINCT recorded_us) FROM hw_events").one()
    assert tuple(recorded) == (20, 1)  # the queued burst in one transaction; the replay added none


def test_dispatch_batch_setting() -> None:
    assert DispatchSettings().lineage_dispatch_batch == 500
    assert load_settings(env={"HEADWATER_LINEAGE_DISPATCH_BATCH": "1"}, cwd=Path("/x")).lineage_dispatch_batch == 1
    with pytest.raises(SettingsError, match="lineage_dispatch_batch must be a positive integer, got '0'"):
        load_settings(env={}, overrides={"lineage_dispatch_batch": "0"}, cwd=Path("/x"))
