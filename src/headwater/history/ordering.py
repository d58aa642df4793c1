"""Sessions and work units: statements of one session in time order; whole sessions per task.

A session's statements are replayed in order by one extractor, so ``USE``, DDL and views affect the
statements after them; sessions are independent of each other. Tasks pack whole sessions (in order of
their first statement) up to about ``size`` statements; the plan does not depend on the number of
workers, so every worker count records the same batches in the same order.

>>> from headwater.history.record import LogRecord, parse_time
>>> rows = [LogRecord("b2", session="b", timestamp=parse_time(3)),
...         LogRecord("a1", session="a", timestamp=parse_time(2)),
...         LogRecord("b1", session="b", timestamp=parse_time(1))]
>>> [[r.sql for r in s.records] for s in group_sessions(rows)]
[['b1', 'b2'], ['a1']]
>>> [len(t) for t in plan_tasks(group_sessions(rows), size=2)]
[1, 1]
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from headwater.history.record import LogRecord


@dataclass(frozen=True, slots=True)
class Session:
    key: str
    records: tuple[LogRecord, ...]


def group_sessions(records: Iterable[LogRecord]) -> list[Session]:
    """Sessions with their statements sorted by (time, read position), ordered by first statement."""
    by_key: dict[str, list[LogRecord]] = {}
    for r in records:
        by_key.setdefault(r.session, []).append(r)
    sessions = [Session(k, tuple(sorted(rs, key=LogRecord.sort_key))) for k, rs in by_key.items()]
    sessions.sort(key=lambda s: (s.records[0].sort_key(), s.key))
    return sessions


def plan_tasks(sessions: Iterable[Session], size: int = 500) -> list[list[Session]]:
    """Consecutive sessions packed into tasks of at least ``size`` statements (the last may be smaller);
    a session is never split."""
    tasks: list[list[Session]] = []
    current: list[Session] = []
    count = 0
    for s in sessions:
        current.append(s)
        count += len(s.records)
        if count >= size:
            tasks.append(current)
            current, count = [], 0
    if current:
        tasks.append(current)
    return tasks
