"""Dispatch counters (Doris keeps none): cheap to bump from any thread, read as one consistent snapshot.

>>> c = Counters(["jsonl"])
>>> c.add("submitted"), c.add("skipped")
(1, 1)
>>> c.plugin("jsonl", "dispatched")
>>> s = c.snapshot(queue_depth=0)
>>> (s.submitted, s.skipped, s.plugins["jsonl"].dispatched)
(1, 1, 1)
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field

STATEMENT_COUNTERS = (
    "submitted",
    "skipped",
    "excluded",
    "extract_errors",
    "extracted",
    "dropped",
    "abandoned",
)
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


class Counters:
    """Thread-safe counters behind one lock."""

    def __init__(self, plugin_names: Iterable[str] = ()) -> None:
        self._lock = threading.Lock()
        self._stmt = dict.fromkeys(STATEMENT_COUNTERS, 0)
        self._plugins = {n: dict.fromkeys(PLUGIN_COUNTERS, 0) for n in plugin_names}

    def add(self, key: str, n: int = 1) -> int:
        """Add ``n`` to a statement counter and return its new value."""
        with self._lock:
            self._stmt[key] += n
            return self._stmt[key]

    def plugin(self, name: str, key: str, n: int = 1) -> None:
        with self._lock:
            counts = self._plugins.setdefault(name, dict.fromkeys(PLUGIN_COUNTERS, 0))
            counts[key] += n

    def snapshot(self, queue_depth: int) -> CounterSnapshot:
        with self._lock:
            return CounterSnapshot(
                **self._stmt,
                queue_depth=queue_depth,
                plugins={n: PluginCounts(**c) for n, c in self._plugins.items()},
            )
