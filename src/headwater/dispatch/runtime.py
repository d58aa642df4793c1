"""Wiring it together: discover → activate → start the worker → hand out the collector → close.

>>> from headwater.dispatch.settings import DispatchSettings
>>> d = start_dispatch(DispatchSettings(plugin_dir=None), discovery=Discovery())  # type: ignore[arg-type]
>>> d.collector.statement_succeeded("INSERT INTO t SELECT * FROM s", RunInfo(query_id="q"))
>>> d.close()
True
>>> d.snapshot().skipped
1
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from importlib.metadata import EntryPoint

from headwater.catalog import Catalog
from headwater.dispatch.activation import Activation, LoadedPlugin, activate
from headwater.dispatch.collector import Collector
from headwater.dispatch.counters import Counters, CounterSnapshot
from headwater.dispatch.discovery import Discovery, discover
from headwater.dispatch.event_queue import BoundedQueue
from headwater.dispatch.extraction import ExtractFn, ExtractorStep
from headwater.dispatch.filtering import FilterGate
from headwater.dispatch.ratelog import RateLimitedLog
from headwater.dispatch.settings import DispatchSettings, load_settings
from headwater.dispatch.worker import DispatchWorker
from headwater.extract import RunInfo
from headwater.model import LineageInfo

log = logging.getLogger("headwater.dispatch")

__all__ = ["LineageDispatch", "RunInfo", "start_dispatch"]


class LineageDispatch:
    """A running dispatch: ``collector`` for producers, ``snapshot()`` for counters, then ``close()``."""

    def __init__(
        self,
        settings: DispatchSettings,
        discovery: Discovery,
        activation: Activation,
        extract: ExtractFn,
        drop_log: RateLimitedLog | None = None,
    ) -> None:
        self.settings = settings
        self.discovery = discovery
        self.activation = activation
        self.counters = Counters(lp.name for lp in activation.plugins)
        self.queue: BoundedQueue[LineageInfo] = BoundedQueue(settings.lineage_event_queue_size)
        gate = FilterGate(self.counters)
        self.collector = Collector(activation.plugins, self.queue, self.counters, extract, gate, drop_log)
        self.worker = DispatchWorker(
            activation.plugins, self.queue, self.counters, gate, settings.lineage_dispatch_batch
        )
        self.worker.start()
        self._closed = False

    @property
    def plugins(self) -> list[LoadedPlugin]:
        return self.activation.plugins

    def snapshot(self) -> CounterSnapshot:
        """All counters and the current queue depth."""
        return self.counters.snapshot(len(self.queue))

    def close(self, timeout: float | None = None, policy: str | None = None) -> bool:
        """Stop collecting, drain (or abandon) the queue, then close every plugin; True if the worker stopped.

        ``timeout`` and ``policy`` default to ``lineage_close_timeout`` and ``lineage_close_policy``.
        """
        if self._closed:
            return True
        self._closed = True
        self.collector.close()
        timeout = self.settings.lineage_close_timeout if timeout is None else timeout
        policy = policy or self.settings.lineage_close_policy
        stopped = self.worker.stop(timeout, abandon=policy == "abandon")
        for lp in self.activation.plugins:
            try:
                lp.plugin.close()
            except Exception:
                log.exception("Lineage plugin %s failed to close", lp.name)
        return stopped

    def __enter__(self) -> LineageDispatch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def start_dispatch(
    settings: DispatchSettings | None = None,
    *,
    extract: ExtractFn | None = None,
    catalog: Catalog | None = None,
    dialect: str = "doris",
    discovery: Discovery | None = None,
    entry_points_fn: Callable[[], Iterable[EntryPoint]] | None = None,
    drop_log: RateLimitedLog | None = None,
) -> LineageDispatch:
    """Discover and activate plugins per ``settings`` (read with ``load_settings()`` when None) and start.

    ``extract`` defaults to the headwater Extractor (``dialect`` and ``catalog`` configure it).
    """
    settings = settings or load_settings()
    if discovery is None:
        discovery = discover(settings.plugin_dir, entry_points_fn) if entry_points_fn else discover(settings.plugin_dir)
    activation = activate(discovery, settings)
    return LineageDispatch(settings, discovery, activation, extract or ExtractorStep(dialect, catalog), drop_log)
