"""The guide's event-processing behaviour: skip without plugins, eventFilter twice, drop when full,
exceptions isolated, serial delivery, close (drain / abandon). No sleeps: events and barriers only."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator

import pytest

from headwater.dispatch import DispatchSettings, LineageDispatch, start_dispatch
from headwater.dispatch.ratelog import RateLimitedLog
from headwater.dispatch.sample import tiny_event
from headwater.dispatch.testing import ListExtract, RecordingPlugin, StaticFactory, discovery_of
from headwater.extract import RunInfo
from headwater.model import LineageInfo

WORKER = "headwater-lineage-worker"
MAIN = threading.current_thread().name


def sql(i: int) -> str:
    return f"INSERT INTO t SELECT a FROM s WHERE k = {i}"


def events(n: int) -> dict[str, list[LineageInfo]]:
    return {sql(i): [tiny_event(f"q{i}")] for i in range(1, n + 1)}


def run(i: int) -> RunInfo:
    return RunInfo(query_id=f"q{i}")


def dispatch_of(
    *plugins: RecordingPlugin, extract: ListExtract | None = None, queue_size: int = 50000, **kw: object
) -> LineageDispatch:
    settings = DispatchSettings(plugin_dir=None, lineage_event_queue_size=queue_size)  # type: ignore[arg-type]
    factories = [StaticFactory(p.name(), lambda ctx, p=p: p) for p in plugins]
    return start_dispatch(settings, extract=extract or ListExtract(), discovery=discovery_of(*factories), **kw)  # type: ignore[arg-type]


def log_lines(caplog: pytest.LogCaptureFixture) -> list[tuple[str, str]]:
    return [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "headwater.dispatch"]


class Gate:
    """Blocks ``exec`` on chosen events until released; says when it entered."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()

    def __call__(self, event: LineageInfo) -> None:
        self.entered.set()
        assert self.release.wait(30), "test never released the plugin"


@pytest.fixture
def calls() -> Iterator[list]:
    yield []


def test_no_plugin_means_no_extraction(calls: list) -> None:
    extract = ListExtract(events(3))
    made: list[int] = []
    with dispatch_of(extract=extract) as d:
        for i in (1, 2, 3):
            d.collector.statement_succeeded(sql(i), lambda i=i: made.append(i) or run(i))  # type: ignore[func-returns-value]
        snap = d.snapshot()
    assert extract.calls == [] and made == []
    assert (snap.submitted, snap.skipped, snap.extracted) == (3, 3, 0)


def test_no_willing_plugin_means_no_extraction(calls: list) -> None:
    extract = ListExtract(events(2))
    p, q = RecordingPlugin("p", calls, wants=False), RecordingPlugin("q", calls, wants=False)
    with dispatch_of(p, q, extract=extract) as d:
        d.collector.statement_succeeded(sql(1), run(1))
        d.collector.statement_succeeded(sql(2), run(2))
        snap = d.snapshot()
    assert extract.calls == []
    assert (snap.submitted, snap.skipped) == (2, 2)
    assert [c for c in calls if c[1] == "event_filter"] == [
        ("p", "event_filter", MAIN),
        ("q", "event_filter", MAIN),
    ] * 2


def test_event_filter_is_evaluated_on_the_producer_and_again_on_the_worker(calls: list) -> None:
    extract = ListExtract(events(1))
    with dispatch_of(RecordingPlugin("p", calls), extract=extract) as d:
        d.collector.statement_succeeded(sql(1), run(1), dialect="mysql")
    assert extract.calls == [(sql(1), run(1), "mysql")]
    assert calls == [
        ("p", "initialize", None),
        ("p", "event_filter", MAIN),
        ("p", "event_filter", WORKER),
        ("p", "exec", tiny_event("q1").event_id),
        ("p", "close", None),
    ]


def test_worker_filter_can_decline_what_the_producer_filter_accepted(calls: list) -> None:
    answers = iter([True, False])  # producer thread: yes; worker: no
    p = RecordingPlugin("p", calls, wants=lambda: next(answers))
    with dispatch_of(p, extract=ListExtract(events(1))) as d:
        d.collector.statement_succeeded(sql(1), run(1))
    assert [c[1] for c in calls] == ["initialize", "event_filter", "event_filter", "close"]
    assert d.snapshot().plugins["p"].filtered_out == 1 and d.snapshot().extracted == 1


def test_one_willing_plugin_is_enough_and_the_unwilling_one_gets_nothing(calls: list) -> None:
    no, yes = RecordingPlugin("no", calls, wants=False), RecordingPlugin("yes", calls)
    with dispatch_of(no, yes, extract=ListExtract(events(1))) as d:
        d.collector.statement_succeeded(sql(1), run(1))
    assert (no.events, [e.context.query_id for e in yes.events]) == ([], ["q1"])
    snap = d.snapshot().plugins
    assert (snap["no"].filtered_out, snap["yes"].dispatched) == (1, 1)


def test_filter_exception_counts_as_false_and_is_logged(calls: list, caplog: pytest.LogCaptureFixture) -> None:
    def boom() -> bool:
        raise ValueError("filter broke")

    extract = ListExtract(events(1))
    with dispatch_of(RecordingPlugin("p", calls, wants=boom), extract=extract) as d:
        d.collector.statement_succeeded(sql(1), run(1))
    assert extract.calls == []
    assert d.snapshot().plugins["p"].filter_errors == 1 and d.snapshot().skipped == 1
    assert log_lines(caplog)[-1] == ("ERROR", "event_filter() of lineage plugin p raised; treated as false")


def test_plugins_are_called_serially_in_activation_order(calls: list) -> None:
    a, b = RecordingPlugin("a", calls), RecordingPlugin("b", calls)
    with dispatch_of(a, b, extract=ListExtract(events(2))) as d:
        d.collector.statement_succeeded(sql(1), run(1))
        d.collector.statement_succeeded(sql(2), run(2))
    e1, e2 = tiny_event("q1").event_id, tiny_event("q2").event_id
    assert [(n, m, x) for n, m, x in calls if m in ("exec", "close")] == [
        ("a", "exec", e1),
        ("b", "exec", e1),
        ("a", "exec", e2),
        ("b", "exec", e2),
        ("a", "close", None),
        ("b", "close", None),
    ]


def test_plugin_exception_is_logged_and_isolated(calls: list, caplog: pytest.LogCaptureFixture) -> None:
    def fail_first(event: LineageInfo) -> None:
        if event.context.query_id == "q1":
            raise RuntimeError("sink down")

    a, b = RecordingPlugin("a", calls, on_exec=fail_first), RecordingPlugin("b", calls)
    with dispatch_of(a, b, extract=ListExtract(events(2))) as d:
        d.collector.statement_succeeded(sql(1), run(1))
        d.collector.statement_succeeded(sql(2), run(2))
    e1 = tiny_event("q1").event_id
    assert [e.context.query_id for e in a.events] == ["q1", "q2"]
    assert [e.context.query_id for e in b.events] == ["q1", "q2"]
    failures = [r for r in caplog.records if r.levelname == "ERROR" and r.name == "headwater.dispatch"]
    assert [r.getMessage() for r in failures] == [f"Lineage plugin a failed on event {e1}"]
    assert failures[0].exc_info is not None and str(failures[0].exc_info[1]) == "sink down"
    snap = d.snapshot().plugins
    assert (snap["a"].dispatched, snap["a"].failed, snap["b"].dispatched, snap["b"].failed) == (1, 1, 2, 0)


def test_full_queue_drops_new_events_keeps_queued_ones_and_logs(calls: list, caplog: pytest.LogCaptureFixture) -> None:
    gate = Gate()
    clock = [100.0]
    drop_log = RateLimitedLog(logging.getLogger("headwater.dispatch"), 1.0, clock=lambda: clock[0])
    slow = RecordingPlugin("slow", calls, on_exec=lambda e: gate(e) if e.context.query_id == "q1" else None)
    d = dispatch_of(slow, extract=ListExtract(events(8)), queue_size=2, drop_log=drop_log)
    c = d.collector
    c.statement_succeeded(sql(1), run(1))
    assert gate.entered.wait(30)  # q1 is in exec, out of the queue
    for i in range(2, 7):  # q2, q3 fill the queue; q4, q5, q6 are dropped
        c.statement_succeeded(sql(i), run(i))
    clock[0] += 1.0
    c.statement_succeeded(sql(7), run(7))  # dropped, and logged again one interval later
    snap = d.snapshot()
    assert (snap.extracted, snap.dropped, snap.queue_depth) == (7, 4, 2)
    gate.release.set()
    assert d.close()
    assert [e.context.query_id for e in slow.events] == ["q1", "q2", "q3"]
    assert d.snapshot().plugins["slow"].dispatched == 3
    assert [m for lvl, m in log_lines(caplog) if lvl == "WARNING" and "queue is full" in m] == [
        "the lineage event queue is full with size 2, discard the lineage event: q4 (dropped so far: 1)",
        "the lineage event queue is full with size 2, discard the lineage event: q7 (dropped so far: 4)",
    ]


def test_statements_without_events_and_failed_extraction_never_raise(
    calls: list, caplog: pytest.LogCaptureFixture
) -> None:
    class Broken(ListExtract):
        def __call__(self, sql: str, run: RunInfo, dialect: str | None = None) -> list[LineageInfo]:
            found = list(super().__call__(sql, run, dialect))
            if "broken" in sql:
                raise ValueError("cannot parse")
            return found

    extract = Broken({})
    with dispatch_of(RecordingPlugin("p", calls), extract=extract) as d:
        d.collector.statement_succeeded("INSERT INTO t VALUES (1)", run(1))  # extractor: no event
        d.collector.statement_succeeded("SELECT * FROM t", run(2))  # never reaches the extractor
        d.collector.statement_succeeded("INSERT broken", run(3))
        d.collector.statement_succeeded(sql(4), lambda: 1 / 0)  # type: ignore[arg-type,return-value]
        snap = d.snapshot()
    assert [c[0] for c in extract.calls] == ["INSERT INTO t VALUES (1)", "INSERT broken"]
    assert (snap.submitted, snap.excluded, snap.extract_errors, snap.extracted) == (4, 2, 1, 0)
    assert ("WARNING", "Lineage extraction failed for query q3: cannot parse") in log_lines(caplog)
    assert ("ERROR", "Unexpected error in lineage collection") in log_lines(caplog)


def test_close_drains_then_closes_plugins(calls: list) -> None:
    gate = Gate()
    p = RecordingPlugin("p", calls, on_exec=lambda e: gate(e) if e.context.query_id == "q1" else None)
    d = dispatch_of(p, extract=ListExtract(events(3)))
    for i in (1, 2, 3):
        d.collector.statement_succeeded(sql(i), run(i))
    assert gate.entered.wait(30)
    gate.release.set()
    assert d.close(timeout=30, policy="drain") is True
    assert [c[1:] for c in calls if c[1] in ("exec", "close")] == [
        ("exec", tiny_event("q1").event_id),
        ("exec", tiny_event("q2").event_id),
        ("exec", tiny_event("q3").event_id),
        ("close", None),
    ]
    d.collector.statement_succeeded(sql(1), run(1))  # after close: nobody wants it
    assert (d.snapshot().skipped, d.snapshot().abandoned) == (1, 0)


def test_close_abandon_discards_the_queue(calls: list, caplog: pytest.LogCaptureFixture) -> None:
    gate = Gate()
    p = RecordingPlugin("p", calls, on_exec=lambda e: gate(e) if e.context.query_id == "q1" else None)
    d = dispatch_of(p, extract=ListExtract(events(3)))
    for i in (1, 2, 3):
        d.collector.statement_succeeded(sql(i), run(i))
    assert gate.entered.wait(30)
    assert d.close(timeout=0, policy="abandon") is False  # the worker is still inside exec(q1)
    gate.release.set()
    d.worker.join()
    assert [e.context.query_id for e in p.events] == ["q1"]
    assert (d.snapshot().abandoned, d.snapshot().plugins["p"].dispatched) == (2, 1)
    assert ("WARNING", "Abandoned 2 queued lineage events at close") in log_lines(caplog)
    assert ("WARNING", "Lineage worker still busy after 0s; abandoned 0 queued lineage events") in log_lines(caplog)


def test_concurrent_producers_count_exactly(calls: list) -> None:
    gate = Gate()
    threads, per_thread, capacity = 8, 500, 100
    extract = ListExtract({"INSERT INTO t SELECT a FROM s": [tiny_event("q")]})
    slow = RecordingPlugin("slow", calls, on_exec=lambda e: gate(e) if not gate.entered.is_set() else None)
    d = dispatch_of(slow, extract=extract, queue_size=capacity)
    c = d.collector
    c.statement_succeeded("INSERT INTO t SELECT a FROM s", run(0))
    assert gate.entered.wait(30)  # the worker holds one event; the queue is empty
    start = threading.Barrier(threads)

    def produce() -> None:
        start.wait()
        for _ in range(per_thread):
            c.statement_succeeded("INSERT INTO t SELECT a FROM s", run(1))

    workers = [threading.Thread(target=produce) for _ in range(threads)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    snap = d.snapshot()
    total = threads * per_thread
    assert (snap.submitted, snap.extracted, snap.dropped, snap.queue_depth) == (
        total + 1,
        total + 1,
        total - capacity,
        capacity,
    )
    gate.release.set()
    assert d.close()
    assert d.snapshot().plugins["slow"].dispatched == capacity + 1
