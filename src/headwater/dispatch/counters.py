"""Dispatch counters (Doris keeps none): lock-free to bump from any thread, read as a snapshot.

Each counter is an ``itertools.count``: ``next()`` on it is one atomic C call under the GIL, several
times cheaper than taking a lock, which matters on the producer's hot path.

>>> c = Counters(["jsonl"])
>>> c.add("submitted"), c.add("skipped"), c.add("extracted", 3)
(1, 1, 3)
>>> c.plugin("jsonl", "dispatched")
>>> s = c.snapshot(queue_depth=0)
>>> (s.submitted, s.skipped, s.extracted, s.plugins["jsonl"].dispatched)
(1, 1, 3, 1)
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

STATEMENT_COUNTERS = ("submitted", "skipped", "excluded", "extract_errors", "extracted", "dropped", "abandoned")
PLUGIN_COUNTERS = ("dispatched", "failed", "filtered_out", "filter_errors")


@dataclass(frozen=True, slots=True)
class PluginCounts:
    """Per plugin: events delivered, ``exec`` failures, events it declined, ``event_filter`` errors."""

    dispatched: int = 0
    failed: int = 0
    filtered_out: int = 0
    filter_errors: int = 0


@dataclass(frozen=True, slots=True)
class CounterSnapshot:
    """Statements submitted; skipped (no plugin wanted them); excluded (no event by the rules);
    extract_errors; events extracted, dropped (queue full), abandoned (at close); queue depth."""

    submitted: int = 0
    skipped: int = 0
    excluded: int = 0
    extract_errors: int = 0
    extracted: int = 0
    dropped: int = 0
    abandoned: int = 0
    queue_depth: int = 0
    plugins: dict[str, PluginCounts] = field(default_factory=dict)

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {k: getattr(self, k) for k in (*STATEMENT_COUNTERS, "queue_depth")}
        out["plugins"] = {n: {k: getattr(p, k) for k in PLUGIN_COUNTERS} for n, p in self.plugins.items()}
        return out


def _value(counter: itertools.count) -> int:  # type: ignore[type-arg]
    """The next value a count would give, without taking it (``repr`` is ``count(N)``)."""
    return int(repr(counter)[6:-1])


class Counters:
    """Named counters; ``bump(key)`` gives a zero-argument incrementer for hot paths."""

    def __init__(self, plugin_names: Iterable[str] = ()) -> None:
        self._stmt = {k: itertools.count(1) for k in STATEMENT_COUNTERS}
        self._plugins = {n: {k: itertools.count(1) for k in PLUGIN_COUNTERS} for n in plugin_names}
        self._lock = threading.Lock()

    def bump(self, key: str) -> Callable[[], int]:
        """A callable adding one to a statement counter and returning the new value."""
        return self._stmt[key].__next__

    def plugin_bump(self, name: str, key: str) -> Callable[[], int]:
        """A callable adding one to a plugin's counter."""
        with self._lock:
            counts = self._plugins.setdefault(name, {k: itertools.count(1) for k in PLUGIN_COUNTERS})
        return counts[key].__next__

    def add(self, key: str, n: int = 1) -> int:
        """Add ``n`` to a statement counter and return its new value."""
        counter = self._stmt[key]
        if n <= 0:
            return _value(counter) - 1
        value = next(counter)  # counts start at 1: next() gives the value after this increment
        for _ in range(n - 1):
            value = next(counter)
        return value

    def plugin(self, name: str, key: str, n: int = 1) -> None:
        counts = self._plugins.get(name)
        if counts is None:
            with self._lock:
                counts = self._plugins.setdefault(name, {k: itertools.count(1) for k in PLUGIN_COUNTERS})
        for _ in range(n):
            next(counts[key])

    def snapshot(self, queue_depth: int) -> CounterSnapshot:
        return CounterSnapshot(
            **{k: _value(c) - 1 for k, c in self._stmt.items()},
            queue_depth=queue_depth,
            plugins={n: PluginCounts(**{k: _value(c) - 1 for k, c in cs.items()}) for n, cs in self._plugins.items()},
        )
