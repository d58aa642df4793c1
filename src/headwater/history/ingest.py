"""A history run end to end: read the window, group sessions, extract in N processes, record in
batches, then move the watermark.

Which rows: ``since`` (inclusive) if given, else after the source's watermark; ``until``
(exclusive) if given. The watermark moves forward only in runs without ``until`` (a window that
ends in the past is a backfill and must not skip what lies after it).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from headwater.history.extract import EVENT, FAILED, NOT_SUCCEEDED, SKIPPED, Outcome
from headwater.history.ordering import Session, group_sessions, plan_tasks
from headwater.history.parallel import ExtractSpec, run_tasks
from headwater.history.record import LogRecord
from headwater.history.sources.base import ReadProblem, Source
from headwater.history.watermark import ResumeMarks, WatermarkStore
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
    resumed: int = 0  # rows of tasks an interrupted run recorded, not extracted again
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
    interrupted: bool = False


def plan_digest(source: str, window: Window, opts: IngestOptions, tasks: Sequence[Sequence[Session]]) -> str:
    """A digest of what a run does: its source, window, extraction and batch options, and each task's
    statements (their keys and texts, in order). Equal digests mean the same batches."""
    h = hashlib.sha256()
    after = window.after
    mark = (after.timestamp.isoformat(), sorted(after.query_ids)) if after is not None else None
    h.update(repr((source, window.since, window.until, mark, window.lookback, opts.spec)).encode())
    h.update(repr((opts.task_size, opts.batch)).encode())
    for task in tasks:
        h.update(b"\x1e")
        for session in task:
            h.update(b"\x1d" + session.key.encode())
            for r in session.records:
                h.update(b"\x1f" + r.key.encode() + b"\x00" + r.sql.encode() + repr(r.succeeded).encode())
    return h.hexdigest()


Progress = Callable[[str, Counters, int], None]
"""Called with the phase (``reading``, ``extracting``, ``done``), the totals so far, and the number
of rows to extract (0 while reading); ``Counters.rows_done`` is the rows extracted so far."""


def ingest_history(
    source: Source,
    store: LineageStore,
    options: IngestOptions | None = None,
    watermarks: WatermarkStore | None = None,
    progress: Progress | None = None,
    stop: Callable[[], bool] | None = None,
    resume: bool = True,
) -> IngestSummary:
    """Ingest the lineage of ``source``'s successful statements into ``store``; see the module doc.

    ``stop`` is asked after each task: when it says True, the run ends there (its batches recorded,
    the watermark where it was, ``interrupted`` set), and the next run of the same rows (``resume``)
    starts after the tasks it recorded, without extracting them again (``ResumeMarks``)."""
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
    del sessions
    plan = plan_digest(source.name, window, opts, tasks)
    marks = ResumeMarks(store.engine) if resume else None
    mark_before = marks.get(source.name) if marks is not None else None
    skip = mark_before[1] if mark_before is not None and mark_before[0] == plan else 0
    for task in tasks[:skip]:  # recorded by an interrupted run of the same plan: not extracted again
        rows = sum(len(s.records) for s in task)
        counters.rows_done += rows
        counters.resumed += rows
    stopped = False
    todo = tasks[skip:]
    extracted = run_tasks(todo, opts.spec, opts.workers)
    try:
        for k, (task, outcomes) in enumerate(zip(todo, extracted, strict=False), skip + 1):
            counters.rows_done += sum(len(s.records) for s in task)
            for o in outcomes:
                counters.add(o)
                if o.kind == FAILED:
                    problems.append(Problem(f"query {o.query_id}", o.detail or "failed"))
                pending.extend(o.events)
                if len(pending) >= opts.batch:
                    flush()
            flush()  # a batch never spans two tasks: a run continued from a task records the same batches
            if marks is not None and k < len(tasks):
                marks.put(source.name, plan, k)
            tell("extracting", counters, total)
            if stop is not None and stop() and k < len(tasks):
                stopped = True
                break
    finally:
        close = getattr(extracted, "close", None)
        if close is not None:
            close()  # the workers' pool: tasks not started are cancelled
    tell("done", counters, total)
    if stopped:
        return IngestSummary(source.name, counters, problems, before, before, interrupted=True)
    if marks is not None and (mark_before is not None or len(tasks) > 1):
        marks.drop(source.name)

    after = before
    if watermarks is not None and opts.use_watermark and opts.until is None and mark is not None and mark != before:
        watermarks.put(source.name, mark)
        after = mark
    return IngestSummary(source.name, counters, problems, before, after)
