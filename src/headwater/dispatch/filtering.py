"""Asking a plugin whether it wants events: an exception counts as false and is logged (rate-limited)."""

from __future__ import annotations

import logging

from headwater.dispatch.activation import LoadedPlugin
from headwater.dispatch.counters import Counters
from headwater.dispatch.ratelog import RateLimitedLog

log = logging.getLogger("headwater.dispatch")


class FilterGate:
    """Calls ``event_filter()`` safely, counting and logging the errors per plugin."""

    def __init__(self, counters: Counters, log_interval: float = 1.0) -> None:
        self._counters = counters
        self._interval = log_interval
        self._logs: dict[str, RateLimitedLog] = {}

    def wants(self, lp: LoadedPlugin) -> bool:
        try:
            return lp.plugin.event_filter() is True
        except Exception:
            self.failed(lp)
            return False

    def failed(self, lp: LoadedPlugin) -> None:
        """Count and log (rate-limited) the exception being handled, raised by ``lp``'s ``event_filter()``."""
        self._counters.plugin(lp.name, "filter_errors")
        limiter = self._logs.setdefault(lp.name, RateLimitedLog(log, self._interval))
        limiter.log(
            logging.ERROR, "event_filter() of lineage plugin %s raised; treated as false", lp.name, exc_info=True
        )
