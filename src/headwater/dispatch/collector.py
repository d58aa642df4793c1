"""The producer API: ``statement_succeeded(sql, context)``, called after a statement succeeded.

Nothing here raises into the caller. When no plugin's ``event_filter()`` is true, nothing is extracted;
otherwise the statement is extracted on the caller's thread and its events are offered to the bounded
queue without blocking; when it is full the new event is dropped, counted and logged (rate-limited).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable

from headwater.dispatch.activation import LoadedPlugin
from headwater.dispatch.counters import Counters
from headwater.dispatch.event_queue import BoundedQueue
from headwater.dispatch.extraction import ExtractFn
from headwater.dispatch.filtering import FilterGate
from headwater.dispatch.ratelog import RateLimitedLog
from headwater.dispatch.spi import FailedStatement
from headwater.dispatch.worker import takes_failures
from headwater.extract import RunInfo
from headwater.model import LineageInfo

log = logging.getLogger("headwater.dispatch")

Context = RunInfo | Callable[[], RunInfo]

# Statements that can neither make an event nor change the catalog or session: not worth a parse.
_NEVER = frozenset(
    {
        *("select", "show", "describe", "desc", "explain", "set", "values", "pragma", "analyze", "vacuum"),
        *("begin", "start", "commit", "rollback", "savepoint", "release", "lock", "unlock"),
        *("grant", "revoke", "kill"),
    }
)
_WORD = re.compile(r"[\s(]*([A-Za-z]+)")
_FIRST_WORD = re.compile(r"(?:\s+|--[^\n]*\n?|/\*.*?\*/|\()*([A-Za-z]+)", re.S)
DROP_MESSAGE = "the lineage event queue is full with size %d, discard the lineage event: %s (dropped so far: %d)"
_INTO = re.compile(r"\binto\b", re.I)


def may_make_event(sql: str) -> bool:
    """False for statements that certainly make no event and change no catalog state.

    >>> may_make_event("  /* c */ SELECT 1"), may_make_event("select a into t2 from t")
    (False, True)
    >>> may_make_event("USE db"), may_make_event("(SELECT 1)")
    (True, False)
    """
    m = _WORD.match(sql) or _FIRST_WORD.match(sql)  # the second one skips leading comments
    if m is None:
        return False
    word = m.group(1).lower()
    return word not in _NEVER or (word == "select" and _INTO.search(sql) is not None)


class Collector:
    def __init__(
        self,
        plugins: list[LoadedPlugin],
        queue: BoundedQueue[LineageInfo],
        counters: Counters,
        extract: ExtractFn,
        gate: FilterGate,
        drop_log: RateLimitedLog | None = None,
    ) -> None:
        self._plugins = plugins
        self._filters = [(lp, lp.plugin.event_filter) for lp in plugins]
        self._queue = queue
        self._counters = counters
        self._submitted = counters.bump("submitted")
        self._skipped = counters.bump("skipped")
        self._extract = extract
        self._gate = gate
        self._drop_log = drop_log or RateLimitedLog(log, 1.0)
        self._extract_log = RateLimitedLog(log, 1.0)
        self._error_log = RateLimitedLog(log, 1.0)

    def close(self) -> None:
        """Later statements are counted as skipped: no plugin is open to want them."""
        self._filters = []

    def _wanted(self) -> bool:
        for lp, event_filter in self._filters:
            try:
                if event_filter() is True:
                    return True
            except Exception:
                self._gate.failed(lp)
        return False

    def wanted(self) -> bool:
        """Whether any loaded plugin's ``event_filter()`` is true now."""
        return self._wanted()

    def statement_succeeded(self, sql: str, context: Context, dialect: str | None = None) -> None:
        """Extract and queue the statement's events, if any plugin wants them. Never raises.

        ``context`` is a ``RunInfo`` or a callable making one (called only when an event is wanted).
        """
        try:
            self._submitted()
            if not self._wanted():
                self._skipped()
                return
            self._collect(sql, context, dialect)
        except Exception:
            self._error_log.log(logging.ERROR, "Unexpected error in lineage collection", exc_info=True)

    def _collect(self, sql: str, context: Context, dialect: str | None) -> None:
        if not may_make_event(sql):
            self._counters.add("excluded")
            return
        run = context() if callable(context) else context
        try:
            events = self._extract(sql, run, dialect)
        except Exception as exc:
            self._counters.add("extract_errors")
            self._extract_log.log(logging.WARNING, "Lineage extraction failed for query %s: %s", run.query_id, exc)
            return
        if not events:
            self._counters.add("excluded")
            return
        self._counters.add("extracted", len(events))
        for event in events:
            self.offer(event)

    def statement_failed(self, sql: str, context: Context, error: str, dialect: str | None = None) -> None:
        """A statement the database rejected: queued for the plugins that take failures (``exec_failure``),
        with what extraction makes of its text. The session is not changed (a rejected CREATE created
        nothing). Never raises; nothing happens when no such plugin wants events."""
        try:
            if not any(takes_failures(lp.plugin) for lp in self._plugins) or not self._wanted():
                return
            if not may_make_event(sql):
                return
            run = context() if callable(context) else context
            events = self._failed_extract(sql, run, dialect)
            for event in events:
                if not self._queue.offer(FailedStatement(event, error)):  # type: ignore[arg-type]
                    self._counters.add("dropped")
        except Exception:
            self._error_log.log(logging.ERROR, "Unexpected error in lineage collection", exc_info=True)

    def _failed_extract(self, sql: str, run: RunInfo, dialect: str | None) -> list[LineageInfo]:
        probe = getattr(self._extract, "probe", None)  # ExtractorStep: a run that keeps no state
        try:
            return list(probe(sql, run, dialect) if probe else self._extract(sql, run, dialect))
        except Exception:
            return []

    def offer(self, event: LineageInfo) -> bool:
        """Queue one event without blocking; on a full queue drop it, count it and log (rate-limited)."""
        if self._queue.offer(event):
            return True
        if self._queue.closed:
            self._counters.add("abandoned")
            return False
        dropped = self._counters.add("dropped")
        self._drop_log.log(
            logging.WARNING,
            DROP_MESSAGE,
            self._queue.capacity,
            event.context.query_id,
            dropped,
        )
        return False

    def plugin_names(self) -> list[str]:
        return [lp.name for lp in self._plugins]

    def __repr__(self) -> str:
        return f"Collector(plugins={self.plugin_names()!r})"
