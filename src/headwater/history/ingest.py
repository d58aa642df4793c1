"""A history run end to end: read the window, group sessions, extract in N processes, record in
batches, then move the watermark.

Which rows: ``since`` (inclusive) if given, else after the source's watermark; ``until``
(exclusive) if given. The watermark moves forward only in runs without ``until`` (a window that
ends in the past is a backfill and must not skip what lies after it).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from headwater.history.extract import EVENT, FAILED, NOT_SUCCEEDED, SKIPPED, Outcome
from headwater.history.ordering import group_sessions, plan_tasks
from headwater.history.parallel import ExtractSpec, run_tasks
from headwater.history.record import LogRecord
from headwater.history.sources.base import ReadProblem, Source
from headwater.history.watermark import WatermarkStore
from headwater.history.window import Watermark, Window
from headwater.model import LineageInfo
from headwater.store import LineageStore


@dataclass
class Counters:
    """Running totals of a history run (what the progress bar and the summary show)."""

    rows_read: int = 0
    unreadable: int = 0
    not_succeeded: int = 0
    statements: int = 0
    events: int = 0
    skipped: int = 0
    failed: int = 0
    recorded: int = 0
    duplicates: int = 0
    sessions: int = 0
    rows_done: int = 0
    reused: int = field(default=0, compare=False)  # statements answered from an earlier shape (a speed figure)
    rules: Counter[str] = field(default_factory=Counter)

    def add(self, o: Outcome) -> None:
        if o.kind == NOT_SUCCEEDED:
            self.not_succeeded += 1
            return
        self.statements += 1
        self.reused += o.reused
        if o.kind == EVENT:
            self.events += len(o.events)
        elif o.kind == SKIPPED:
            self.skipped += 1
            self.rules[o.detail or "no-event"] += 1
        elif o.kind == FAILED:
            self.failed += 1


@dataclass(frozen=True, slots=True)
class Problem:
    """A statement or row reported by the run: the query id (or file:line) and what went wrong."""

    where: str
    message: str


@dataclass
class IngestOptions:
    """Everything a history run needs besides its source and store."""

    spec: ExtractSpec = field(default_factory=ExtractSpec)
    since: datetime | None = None
    until: datetime | None = None
    lookback: timedelta = timedelta(0)
    use_watermark: bool = True
    workers: int = 1
    task_size: int = 500
    batch: int = 500


@dataclass
class IngestSummary:
    source: str
    counters: Counters
    problems: list[Problem]
    watermark_before: Watermark | None
    watermark_after: Watermark | None


Progress = Callable[[str, Counters, int], None]
"""Called with the phase (``reading``, ``extracting``, ``done``), the totals so far, and the number
of rows to extract (0 while reading); ``Counters.rows_done`` is the rows extracted so far."""


def ingest_history(
    source: Source,
    store: LineageStore,
    options: IngestOptions | None = None,
    watermarks: WatermarkStore | None = None,
    progress: Progress | None = None,
) -> IngestSummary:
    """Ingest the lineage of ``source``'s successful statements into ``store``; see the module doc."""
    opts = options or IngestOptions()
    tell = progress or (lambda phase, counters, total: None)
    before = watermarks.get(source.name) if (watermarks is not None and opts.use_watermark) else None
    window = Window(opts.since, opts.until, before if opts.since is None else None, opts.lookback)
    counters = Counters()
    problems: list[Problem] = []

    records: list[LogRecord] = []
    mark = before
    for item in source.read(window):
        if isinstance(item, ReadProblem):
            counters.unreadable += 1
            problems.append(Problem(item.where, item.message))
            continue
        counters.rows_read += 1
        records.append(item)
        if item.timestamp is not None:
            mark = Watermark(item.timestamp, frozenset({item.key})) if mark is None else mark.advanced(item)
        if counters.rows_read % 2000 == 0:
            tell("reading", counters, 0)
    tell("reading", counters, 0)

    sessions = group_sessions(records)
    counters.sessions = len(sessions)
    total = len(records)
    del records
    pending: list[LineageInfo] = []

    def flush() -> None:
        if pending:
            res = store.record_batch(pending)
            counters.recorded += res.recorded
            counters.duplicates += res.duplicates
            pending.clear()

    tasks = plan_tasks(sessions, opts.task_size)
    for task, outcomes in zip(tasks, run_tasks(tasks, opts.spec, opts.workers), strict=True):
        counters.rows_done += sum(len(s.records) for s in task)
        for o in outcomes:
            counters.add(o)
            if o.kind == FAILED:
                problems.append(Problem(f"query {o.query_id}", o.detail or "failed"))
            pending.extend(o.events)
            if len(pending) >= opts.batch:
                flush()
        tell("extracting", counters, total)
    flush()
    tell("done", counters, total)

    after = before
    if watermarks is not None and opts.use_watermark and opts.until is None and mark is not None and mark != before:
        watermarks.put(source.name, mark)
        after = mark
    return IngestSummary(source.name, counters, problems, before, after)
