"""``ingest`` asks the store (``--catalog store``) beside the writer: a look-up waits for the batches
being recorded only when one of them can change its answer."""

from __future__ import annotations

import threading
from pathlib import Path

from headwater.cli.ingest_cmd import EVENT, Item, _touches
from headwater.cli.recording import Recorder
from headwater.model import TableRef
from headwater.project import ProjectContext
from headwater.store import open_store
from headwater.store.catalog import StoreCatalog


def test_a_lookup_waits_only_for_batches_that_touch_its_answer(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'w.db'}")
    first = ProjectContext().extract("f.sql", "INSERT INTO db.a SELECT x, y FROM db.s").events
    store.record_batch(first)
    later = ProjectContext().extract("g.sql", "INSERT INTO db.b SELECT p, q, r FROM db.s").events
    go = threading.Event()

    def write(items: list) -> None:
        go.wait(30)  # the writer holds this batch until a look-up waits for it
        store.record_batch([i.value for i in items])

    recorder = Recorder(write, 10, touches=_touches)
    catalog = StoreCatalog(store)

    def wait() -> None:
        go.set()
        recorder.drain()

    catalog.before_lookup, catalog.in_flight = wait, recorder.in_flight
    try:
        for e in later:
            recorder.add(Item("g.sql:1", EVENT, e))
        recorder.cut()  # in flight: the writer waits
        a = catalog.table(TableRef("internal", "db", "a"))
        assert a is not None and [c.name for c in a.columns] == ["x", "y"]
        assert catalog.waited == 0 and not go.is_set()  # db.a: nothing in flight touches it
        b = catalog.table(TableRef("internal", "db", "b"))
        assert catalog.waited == 1  # db.b is being written: the answer is the one after the batch
        assert b is not None and [c.name for c in b.columns] == ["p", "q", "r"]
    finally:
        go.set()
        recorder.close()


def test_a_lookup_waits_when_its_answer_is_of_a_job_being_recorded_again(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'w.db'}")
    store.record_batch(ProjectContext().extract("f.sql", "INSERT INTO db.a SELECT x FROM db.s").events)
    # the same job (f.sql#1) now writes db.c: recording it closes its write of db.a
    moved = ProjectContext().extract("f.sql", "INSERT INTO db.c SELECT x FROM db.s").events
    go = threading.Event()
    recorder = Recorder(lambda items: (go.wait(30), store.record_batch([i.value for i in items])), 10, touches=_touches)
    catalog = StoreCatalog(store)
    catalog.before_lookup = lambda: (go.set(), recorder.drain())  # type: ignore[func-returns-value]
    catalog.in_flight = recorder.in_flight
    try:
        recorder.add(Item("f.sql:1", EVENT, moved[0]))
        recorder.cut()
        answer = catalog.table(TableRef("internal", "db", "a"))
        assert catalog.waited == 1
        assert answer == StoreCatalog(store).table(TableRef("internal", "db", "a"))  # as after the batch
    finally:
        go.set()
        recorder.close()
