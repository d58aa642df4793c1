"""Which rows a run reads: ``--since`` (inclusive), ``--until`` (exclusive) and the watermark.

The watermark is the last time read and the query ids read at exactly that time, so a row that
shares the watermark's time but was not read yet is still taken.

>>> from headwater.history.record import LogRecord, parse_time
>>> t = parse_time("2024-05-01 10:00:00")
>>> w = Window(after=Watermark(t, frozenset({"q1"})))
>>> w.admits(LogRecord("x", "q1", timestamp=t)), w.admits(LogRecord("x", "q2", timestamp=t))
(False, True)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from headwater.history.record import LogRecord, format_time, parse_time


@dataclass(frozen=True, slots=True)
class Watermark:
    """The newest time read from a source, and the query ids read at that time."""

    timestamp: datetime
    query_ids: frozenset[str] = field(default_factory=frozenset)

    def to_dict(self) -> dict[str, object]:
        return {"timestamp": format_time(self.timestamp), "query_ids": sorted(self.query_ids)}

    @classmethod
    def from_dict(cls, d: dict[str, object]) -> Watermark:
        ts = parse_time(d["timestamp"])
        assert ts is not None
        return cls(ts, frozenset(str(q) for q in d.get("query_ids") or ()))  # type: ignore[attr-defined]

    def advanced(self, record: LogRecord) -> Watermark:
        """This watermark moved to include ``record`` (unchanged when the record is older)."""
        ts = record.timestamp
        if ts is None or ts < self.timestamp:
            return self
        if ts == self.timestamp:
            return Watermark(ts, self.query_ids | {record.key})
        return Watermark(ts, frozenset({record.key}))


@dataclass(frozen=True, slots=True)
class Window:
    """``since`` ≤ time < ``until``, and after the watermark ``after`` (less ``lookback``)."""

    since: datetime | None = None
    until: datetime | None = None
    after: Watermark | None = None
    lookback: timedelta = timedelta(0)

    @property
    def lower(self) -> datetime | None:
        """The earliest time a row can have (inclusive), for sources that filter when they read."""
        bounds = [b for b in (self.since, self.after.timestamp - self.lookback if self.after else None) if b]
        return max(bounds) if bounds else None

    @property
    def bounded(self) -> bool:
        return self.since is not None or self.until is not None or self.after is not None

    def admits(self, record: LogRecord) -> bool:
        ts = record.timestamp
        if ts is None:
            return not self.bounded  # a row without a time can only be placed in an unbounded read
        if self.since is not None and ts < self.since:
            return False
        if self.until is not None and ts >= self.until:
            return False
        if self.after is not None:
            if self.lookback:
                return ts >= self.after.timestamp - self.lookback
            if ts < self.after.timestamp:
                return False
            if ts == self.after.timestamp and record.key in self.after.query_ids:
                return False
        return True
