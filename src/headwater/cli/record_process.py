"""Recording in a process of its own, beside extraction.

Recording a large event is Python work (its facts, its rows): in a thread it holds the interpreter
while extraction waits for it. ``Writer`` is ``ingest``'s ``write`` for ``Recorder``: it records in
the recorder's thread, or hands each batch to a ``RecordingProcess``, a child that records it into
its own connection of the same store and answers with what it counted, so that the two run on two
cores. The recorder's thread keeps the order, the bounded queue and the error handling; only where
the rows are written changes, so the store is the one a thread would leave.

The child ignores SIGINT and SIGTERM (the parent decides when to stop: it finishes the batch in flight
and closes the pipe), and it stops when the pipe closes, also when the parent was killed: the batch it
was recording is committed, or rolled back with its transaction.
"""

from __future__ import annotations

import copyreg
import io
import os
import pickle
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from types import MappingProxyType
from typing import Any

from sqlalchemy.engine import make_url

from headwater.model.event import LineageInfo
from headwater.model.ol_naming import OpenLineageNaming
from headwater.model.secrets import is_redacted, mark_redacted

MOVE_AFTER_S = 3.0
MOVE_SHARE = 0.15
"""``--recorder auto`` moves recording to a process once it has taken ``MOVE_AFTER_S`` seconds and
``MOVE_SHARE`` of the run so far: below that, the process's start-up (~1 s of the other core) and
memory (~100 MB, its own interpreter) cost more than the thread's share of the interpreter."""


def _proxy(items: dict[Any, Any]) -> MappingProxyType[Any, Any]:
    return MappingProxyType(items)


def _reduce_proxy(m: MappingProxyType[Any, Any]) -> tuple[Callable[..., Any], tuple[Any, ...]]:
    return _proxy, (dict(m),)


_TABLE = copyreg.dispatch_table.copy()
_TABLE[MappingProxyType] = _reduce_proxy


def dumps(obj: Any) -> bytes:
    """``obj`` pickled, read-only mappings (an event's properties) included.

    >>> loads(dumps({"p": MappingProxyType({"a": 1})}))
    {'p': mappingproxy({'a': 1})}
    """
    buf = io.BytesIO()
    pickler = pickle.Pickler(buf, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = _TABLE
    pickler.dump(obj)
    return buf.getvalue()


loads = pickle.loads


def separable(url: str) -> bool:
    """Whether another process can record into the store at ``url`` (not a store in memory, which is
    this process's own) on a core of its own.

    >>> separable("sqlite://"), separable("sqlite:///:memory:")
    (False, False)
    """
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database in (None, "", ":memory:"):
        return False
    return bool(sys.executable) and len(os.sched_getaffinity(0)) > 1


class Writer:
    """Where ``ingest``'s batches are recorded (``Recorder``'s ``write``): here, by ``record_here`` in
    the recorder's thread, or in a ``RecordingProcess``, whose counts go to ``counted``. ``choice`` is
    ``thread``, ``process`` or ``auto``: here until recording proves heavy (``MOVE_AFTER_S``,
    ``MOVE_SHARE``), then in a process for the rest of the run. Batches keep their order either way (one
    writer at a time: the recorder's thread), so the store is the same."""

    def __init__(
        self,
        record_here: Callable[[Sequence[Any]], None],
        counted: Callable[[Any], None],
        url: str,
        naming: OpenLineageNaming,
        batch: int,
        choice: str,
    ) -> None:
        self.record_here = record_here
        self.counted = counted
        self._spec = (url, naming, batch)
        self.process: RecordingProcess | None = None
        self.movable = choice == "auto" and separable(url)
        self.moved_after = 0  # items recorded here before recording moved to a process
        self.busy_s = 0.0  # time recording here
        self._started = time.perf_counter()
        if choice == "process" and separable(url):
            self.process = RecordingProcess(*self._spec)

    def __call__(self, items: Sequence[Any]) -> None:
        elapsed = time.perf_counter() - self._started
        if self.movable and self.busy_s >= MOVE_AFTER_S and self.busy_s >= MOVE_SHARE * elapsed:
            self.movable = False
            try:
                self.process = RecordingProcess(*self._spec)
            except OSError:  # no process to be had (a limit on processes): the thread goes on
                self.process = None
        if self.process is not None:
            self.counted(self.process(items))
            return
        t = time.perf_counter()
        try:
            self.record_here(items)
        finally:
            self.busy_s += time.perf_counter() - t
        self.moved_after += len(items)

    def close(self) -> None:
        """Stop the recording process, if one was started (after ``Recorder.close``)."""
        if self.process is not None:
            self.process.close()


class RecordingProcess:
    """``write(items)`` in a child process: ``RecordingProcess(url, naming, batch)(items)`` records
    ``items`` (``ingest_cmd.Item``) with ``ingest_cmd.record_items`` there and returns its counts
    (an ``IngestTotals``) here; an error that stops recording there is raised here.

    The child is ``python -m headwater.cli.record_process`` (not a fork: no connection, lock or thread
    of this process is copied; not multiprocessing's spawn, which would run the importing script
    again), in a process group of its own, so that a Ctrl-C at the terminal reaches this process only.
    """

    def __init__(self, url: str, naming: OpenLineageNaming, batch: int) -> None:
        to_child, from_here = os.pipe()
        to_here, from_child = os.pipe()
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}  # this code, not another
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-m", __name__, str(to_child), str(from_child)],
                pass_fds=(to_child, from_child),
                env=env,
                process_group=0,
            )
        finally:
            os.close(to_child)
            os.close(from_child)
        self._send = Connection(from_here, readable=False)
        self._receive = Connection(to_here, writable=False)
        self._send.send_bytes(dumps((url, naming, batch)))

    def __call__(self, items: Sequence[Any]) -> Any:
        redacted = [isinstance(i.value, LineageInfo) and is_redacted(i.value) for i in items]
        try:
            self._send.send_bytes(dumps((list(items), redacted)))
            kind, value = loads(self._receive.recv_bytes())
        except (EOFError, OSError):
            raise RecordingStopped(self._exitcode()) from None
        if kind == "error":
            raise value
        return value

    def _exitcode(self) -> int | None:
        try:
            return self._process.wait(5)
        except subprocess.TimeoutExpired:
            return None

    def close(self) -> None:
        """Close the pipes (the child stops once its batch is committed) and wait for the child."""
        self._send.close()
        self._receive.close()
        try:
            self._process.wait(60)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()


class RecordingStopped(RuntimeError):
    """The recording process ended while a batch was handed to it."""

    def __init__(self, exitcode: int | None) -> None:
        how = f"exit code {exitcode}"
        if exitcode is not None and exitcode < 0:
            how = f"killed by {signal.Signals(-exitcode).name}"
        super().__init__(
            f"the recording process stopped ({how}); what it committed stays, and the same command continues"
        )


def _serve(receive: Connection, send: Connection) -> None:
    """The child: record each batch received, answer with its counts, until the pipe closes."""
    from headwater.cli.ingest_cmd import IngestTotals, record_items
    from headwater.store import open_store

    url, naming, batch = loads(receive.recv_bytes())
    lineage = None
    failed: Exception | None = None
    try:
        lineage = open_store(url, upgrade=False, naming=naming)
    except Exception as exc:  # the server went away since the parent opened it: each batch says so
        failed = _picklable(exc)
    try:
        while True:
            try:
                data = receive.recv_bytes()
            except (EOFError, OSError):
                return
            totals = IngestTotals()
            items, redacted = loads(data)
            for item, done in zip(items, redacted, strict=True):
                if done:  # extraction redacted it: the store need not scan it again
                    mark_redacted(item.value)
            answer: tuple[str, Any] = ("error", failed)
            if lineage is not None:
                try:
                    record_items(lineage, items, batch, totals)
                    answer = ("done", totals)
                except Exception as exc:  # the store failing as a whole: the parent raises it
                    answer = ("error", _picklable(exc))
            try:
                send.send_bytes(dumps(answer))
            except (EOFError, OSError):
                return
    finally:
        if lineage is not None:
            lineage.close()


def _picklable(exc: Exception) -> Exception:
    try:
        return loads(dumps(exc))  # type: ignore[no-any-return]
    except Exception:
        return RuntimeError(f"{type(exc).__name__}: {exc}")


def main(argv: Sequence[str]) -> None:
    """The child's entry (``python -m headwater.cli.record_process IN OUT``: the pipes' descriptors)."""
    for s in (signal.SIGINT, signal.SIGTERM):  # the parent decides when recording stops
        signal.signal(s, signal.SIG_IGN)
    _serve(Connection(int(argv[0]), writable=False), Connection(int(argv[1]), readable=False))


if __name__ == "__main__":  # run as a module: use the module's own functions, which the parent's pickles name
    from headwater.cli.record_process import main as _main

    _main(sys.argv[1:])
