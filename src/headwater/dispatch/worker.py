"""The single daemon worker: takes events in order and hands each to every plugin that wants it."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from headwater.dispatch.activation import LoadedPlugin
from headwater.dispatch.counters import Counters
from headwater.dispatch.event_queue import BoundedQueue
from headwater.dispatch.filtering import FilterGate
from headwater.dispatch.spi import FailedStatement, LineagePlugin
from headwater.model import LineageInfo

log = logging.getLogger("headwater.dispatch")


def takes_failures(plugin: LineagePlugin) -> bool:
    """Whether ``plugin`` overrides ``exec_failure`` (only those are given failed statements)."""
    return type(plugin).exec_failure is not LineagePlugin.exec_failure


def batches(plugin: LineagePlugin) -> bool:
    """Whether ``plugin`` overrides ``exec_batch`` (else every event goes through ``exec``)."""
    return type(plugin).exec_batch is not LineagePlugin.exec_batch


class DispatchWorker:
    """Plugins are called serially in activation order, so a slow plugin delays every later event.

    The worker takes one event, waiting for it, plus whatever else is queued (up to ``batch`` in all,
    never waiting for more) when some plugin takes batches; each plugin then gets those events in
    order: through ``exec_batch`` if it overrides it, else one ``exec`` each.
    """

    def __init__(
        self,
        plugins: list[LoadedPlugin],
        queue: BoundedQueue[LineageInfo],
        counters: Counters,
        gate: FilterGate,
        batch: int = 1,
    ) -> None:
        self._plugins = plugins
        self._queue = queue
        self._counters = counters
        self._gate = gate
        self._table = [
            (
                lp,
                lp.plugin.exec,
                lp.plugin.exec_batch if batches(lp.plugin) else None,
                counters.plugin_bump(lp.name, "dispatched"),
                counters.plugin_bump(lp.name, "filtered_out"),
                counters.plugin_bump(lp.name, "failed"),
            )
            for lp in plugins
        ]
        self._batch = batch if any(row[2] is not None for row in self._table) else 1
        self._thread = threading.Thread(target=self._run, name="headwater-lineage-worker", daemon=True)

    def start(self) -> None:
        self._thread.start()

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def join(self, timeout: float | None = None) -> None:
        """Wait for the thread to end (after ``stop``)."""
        self._thread.join(timeout)

    def _run(self) -> None:
        take, drain, more = self._queue.take, self._queue.drain, self._batch - 1
        while (event := take()) is not None:
            items = [event, *drain(more)] if more else [event]
            if not any(type(i) is FailedStatement for i in items):
                self.dispatch_all(items)
                continue
            run: list[LineageInfo] = []
            for item in items:  # events in batches, failures one by one, in queue order
                if type(item) is FailedStatement:
                    if run:
                        self.dispatch_all(run)
                        run = []
                    self.dispatch_failure(item)  # type: ignore[arg-type]
                else:
                    run.append(item)
            if run:
                self.dispatch_all(run)

    def dispatch_failure(self, failure: FailedStatement) -> None:
        """Offer a failed statement to each plugin that takes failures and wants events now."""
        for lp, *_ in self._table:
            if not takes_failures(lp.plugin) or not self._gate.wants(lp):
                continue
            try:
                lp.plugin.exec_failure(failure.event, failure.error)
            except Exception:
                log.exception(
                    "Lineage plugin %s failed on the failure of query %s", lp.name, failure.event.context.query_id
                )

    def dispatch(self, event: LineageInfo) -> None:
        """Offer one event to each plugin whose ``event_filter()`` is true now; never raises."""
        self.dispatch_all([event])

    def dispatch_all(self, events: list[LineageInfo]) -> None:
        """Offer ``events``, in order, to each plugin in turn; never raises."""
        wants = self._gate.wants
        for lp, exec_, exec_batch, dispatched, filtered_out, failed in self._table:
            if exec_batch is not None and len(events) > 1:
                if not wants(lp):
                    for _ in events:
                        filtered_out()
                    continue
                try:
                    exec_batch(events)
                except Exception:
                    log.warning(
                        "Lineage plugin %s failed on a batch of %d events; delivering them one by one",
                        lp.name,
                        len(events),
                        exc_info=True,
                    )
                else:
                    for _ in events:
                        dispatched()
                    continue
                for event in events:
                    self._deliver(lp, exec_, event, dispatched, failed)
                continue
            for event in events:
                if wants(lp):
                    self._deliver(lp, exec_, event, dispatched, failed)
                else:
                    filtered_out()

    @staticmethod
    def _deliver(
        lp: LoadedPlugin,
        exec_: Callable[[LineageInfo], None],
        event: LineageInfo,
        dispatched: Callable[[], int],
        failed: Callable[[], int],
    ) -> None:
        try:
            exec_(event)
        except Exception:
            failed()
            log.exception("Lineage plugin %s failed on event %s", lp.name, event.event_id)
        else:
            dispatched()

    def stop(self, timeout: float | None, abandon: bool) -> bool:
        """Stop taking events (after draining them, or dropping them when ``abandon``); True if stopped."""
        if abandon:
            n = self._queue.clear()
            if n:
                self._counters.add("abandoned", n)
                log.warning("Abandoned %d queued lineage events at close", n)
        self._queue.close()
        if self._thread.is_alive():
            self._thread.join(timeout)
        if self._thread.is_alive():
            left = self._queue.clear()
            self._counters.add("abandoned", left)
            log.warning("Lineage worker still busy after %ss; abandoned %d queued lineage events", timeout, left)
            return False
        return True
