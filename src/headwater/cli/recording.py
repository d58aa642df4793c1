"""Recording beside extraction, and stopping cleanly on Ctrl-C or SIGTERM.

``Recorder`` takes the items extraction yields, one at a time, and records them ``batch`` per
transaction in the order given, in a writer thread fed by a bounded queue: extraction goes on while
a batch is written, and at most ``depth`` batches' worth of items wait (``depth * batch``, however
small the batches a file's end cuts), so memory stays flat however long the input.
Where the batches end depends only on the items and ``cut()`` calls (the end of a file or task), never
on timing, so an interrupted run continued gives the batches, and so the store, of a clean run.

``stop_signals`` turns SIGINT and SIGTERM into a flag the extraction loop reads between statements
(``Interrupted`` is raised there): the statement being extracted finishes, what was extracted is
recorded, and the command says so in one line. A second signal stops at once; the transaction in
flight then rolls back (the store keeps every batch committed before it).
"""

from __future__ import annotations

import queue
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType
from typing import Any

EXIT_CODES = {signal.SIGINT: 130, signal.SIGTERM: 143}


class Interrupted(BaseException):
    """The user asked the run to stop (SIGINT / SIGTERM); ``code`` is the exit code that says which."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.code = EXIT_CODES.get(signal.Signals(signum), 128 + signum)


@dataclass
class StopFlag:
    """Set by the first SIGINT / SIGTERM; ``check()`` raises ``Interrupted`` once it is."""

    signum: int | None = None

    def check(self) -> None:
        if self.signum is not None:
            raise Interrupted(self.signum)


@contextmanager
def stop_signals() -> Iterator[StopFlag]:
    """SIGINT and SIGTERM set the flag (the first time; the second time they stop the process at once:
    SIGINT as ``KeyboardInterrupt``, SIGTERM by its default action). Outside the main thread, nothing
    is installed and the flag is never set."""
    flag = StopFlag()
    if threading.current_thread() is not threading.main_thread():
        yield flag
        return

    def handler(signum: int, _frame: FrameType | None) -> None:
        if flag.signum is None:
            flag.signum = signum
            return
        if signum == signal.SIGTERM:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.raise_signal(signal.SIGTERM)
        raise KeyboardInterrupt

    before = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield flag
    finally:
        for s, h in before.items():
            signal.signal(s, h)


def interrupted_line(statements: int, total: int, recorded: int, unit: str = "statements") -> str:
    """The one line an interrupted command prints.

    >>> interrupted_line(7500, 20000, 7500)
    'interrupted after 7,500 of 20,000 statements: 7,500 recorded; the same command continues'
    """
    return f"interrupted after {statements:,} of {total:,} {unit}: {recorded:,} recorded; the same command continues"


Write = Callable[[Sequence[Any]], None]


class Recorder:
    """Items recorded ``batch`` at a time by ``write`` in a writer thread (``threaded``), in order.

    ``add`` an item (with ``done``: what it completes, e.g. one statement, counted in ``done_count``
    once its batch is committed); ``cut`` ends a batch early (the end of a file); ``close`` records
    what is left and waits for the writer. An exception of ``write`` (the store failing as a whole)
    comes back from the next ``add``, ``cut`` or ``close``.
    """

    def __init__(
        self,
        write: Write,
        batch: int,
        *,
        threaded: bool = True,
        depth: int = 2,
        touches: Callable[[Any], Iterable[Hashable]] | None = None,
    ) -> None:
        self.write = write
        self.batch = batch
        self.touches = touches
        """What an item changes in the store (its target, its job): ``in_flight`` counts them."""
        self._in_flight: Counter[Hashable] = Counter()
        self.touched: set[Hashable] = set()
        """What the batches cut so far touch (``touches``): cleared by whoever reads it."""
        self._lock = threading.Lock()
        self.pending: list[Any] = []
        self.pending_done = 0
        self.done_count = 0  # what the committed batches completed (statements)
        self.written = 0  # items committed
        self.busy_s = 0.0  # time spent writing
        self.started = time.perf_counter()
        self.finished: float | None = None
        self._error: BaseException | None = None
        self._queue: queue.Queue[tuple[list[Any], int, list[Hashable]] | None] | None = None
        self._thread: threading.Thread | None = None
        self._room = threading.Condition()
        self._waiting = 0  # items (a batch of none: one) handed to the writer and not yet committed
        self.limit = depth * batch
        """Items that may wait for the writer: past it, ``add`` waits (a batch cut at a file's end
        counts its items, not as a whole batch, so a project of one-statement files keeps extraction
        ahead of recording as far as a project of long files does)."""
        self.waited_s = 0.0  # time extraction waited for room
        if threaded:
            self._queue = queue.Queue()
            self._thread = threading.Thread(target=self._run, name="headwater-recorder", daemon=True)
            self._thread.start()

    def add(self, item: Any, done: int = 0) -> None:
        self.pending.append(item)
        self.pending_done += done
        if len(self.pending) >= self.batch:
            self.cut()

    def count(self, done: int) -> None:
        """Count ``done`` things completed with no item (a statement with no event)."""
        if self.pending:
            self.pending_done += done
        elif self._queue is None or self._thread is None:
            self.done_count += done
        else:
            self._put(([], done, []))

    def cut(self) -> None:
        """End the batch being filled (the end of a file or task): what follows starts a new one."""
        if self._error is not None:
            raise self._error
        if not self.pending and not self.pending_done:
            return
        items, done = self.pending, self.pending_done
        self.pending, self.pending_done = [], 0
        keys: list[Hashable] = []
        if self.touches is not None:
            keys = [k for item in items for k in self.touches(item)]
            self.touched.update(keys)
        if self._queue is None:
            self._commit(items, done)
            return
        with self._lock:
            self._in_flight.update(keys)
        self._put((items, done, keys))

    def _put(self, job: tuple[list[Any], int, list[Hashable]]) -> None:
        assert self._queue is not None
        size = len(job[0]) or 1
        with self._room:
            if self._waiting and self._waiting + size > self.limit:
                t = time.perf_counter()
                while self._waiting and self._waiting + size > self.limit and self._error is None:
                    self._room.wait(0.2)
                self.waited_s += time.perf_counter() - t
            if self._error is not None:
                raise self._error
            self._waiting += size
        self._queue.put(job)

    def drain(self) -> None:
        """Wait until every batch cut so far is committed (what the item being filled holds stays):
        a read of the store then sees what recording inline would have shown it."""
        if self._queue is not None:
            while self._queue.unfinished_tasks and self._error is None:
                with self._queue.all_tasks_done:
                    self._queue.all_tasks_done.wait(0.2)
        if self._error is not None:
            raise self._error

    def sync(self) -> None:
        """Record everything added so far and wait for it."""
        self.cut()
        self.drain()

    def in_flight(self) -> frozenset[Hashable]:
        """What the batches handed to the writer and not yet committed touch (``touches``): a read
        of the store that none of them touches answers as it would after ``drain``."""
        with self._lock:
            return frozenset(self._in_flight)

    def _commit(self, items: list[Any], done: int, keys: Sequence[Hashable] = ()) -> None:
        if items:
            t = time.perf_counter()
            try:
                self.write(items)
            finally:
                if keys:
                    with self._lock:
                        self._in_flight.subtract(keys)
                        self._in_flight = +self._in_flight
            self.busy_s += time.perf_counter() - t
            self.written += len(items)
        self.done_count += done

    def _run(self) -> None:
        assert self._queue is not None
        while True:
            job = self._queue.get()
            try:
                if job is None:
                    return
                if self._error is None:  # after the store failed: drain, write nothing more
                    self._commit(*job)
            except BaseException as exc:  # handed to the extracting thread
                self._error = exc
            finally:
                if job is not None:
                    with self._room:
                        self._waiting -= len(job[0]) or 1
                        self._room.notify_all()
                self._queue.task_done()

    def close(self) -> None:
        """Record what is pending, wait until every batch is written; raise the writer's error."""
        try:
            self.cut()
        finally:
            if self._thread is not None and self._queue is not None:
                self._queue.put(None)  # after every batch: the writer records them all, then stops
                while self._thread.is_alive():
                    self._thread.join(0.2)
            self.finished = time.perf_counter()
        if self._error is not None:
            raise self._error

    def abandon(self) -> None:
        """Stop without recording what is pending (an error in the extracting thread); wait for the
        batches already handed to the writer."""
        self.pending, self.pending_done = [], 0
        if self._thread is not None and self._queue is not None:
            self._queue.put(None)
            self._thread.join(60)
