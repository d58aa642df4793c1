"""The single daemon worker: takes events in order and hands each to every plugin that wants it."""

from __future__ import annotations

import logging
import threading

from headwater.dispatch.activation import LoadedPlugin
from headwater.dispatch.counters import Counters
from headwater.dispatch.event_queue import BoundedQueue
from headwater.dispatch.filtering import FilterGate
from headwater.model import LineageInfo

log = logging.getLogger("headwater.dispatch")


class DispatchWorker:
    """Plugins are called serially in activation order, so a slow plugin delays every later event."""

    def __init__(
        self,
        plugins: list[LoadedPlugin],
        queue: BoundedQueue[LineageInfo],
        counters: Counters,
        gate: FilterGate,
    ) -> None:
        self._plugins = plugins
        self._queue = queue
        self._counters = counters
        self._gate = gate
        self._table = [
            (
                lp,
                lp.plugin.event_filter,
                lp.plugin.exec,
                counters.plugin_bump(lp.name, "dispatched"),
                counters.plugin_bump(lp.name, "filtered_out"),
                counters.plugin_bump(lp.name, "failed"),
            )
            for lp in plugins
        ]
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
        take = self._queue.take
        while (event := take()) is not None:
            self.dispatch(event)

    def dispatch(self, event: LineageInfo) -> None:
        """Offer one event to each plugin whose ``event_filter()`` is true now; never raises."""
        for lp, event_filter, exec_, dispatched, filtered_out, failed in self._table:
            try:
                wanted = event_filter() is True
            except Exception:
                self._gate.failed(lp)
                wanted = False
            if not wanted:
                filtered_out()
                continue
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
