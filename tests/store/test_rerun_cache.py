"""A writer that finds the store as it left it (no one else recorded since: the same largest event
id, ``OpenEdges.top``) takes its cached jobs' newest event rows and times from its cache and reads
neither them nor their open edges. Every table is what a writer without the cache leaves, across
two writers on one database writing in turn, deletions, purges, late events and as-of answers."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import aliased
from tests.store.conftest import _clear, copy_event, spy_on_reads

from headwater.model import LineageInfo
from headwater.store import LineageStore, open_store, write
from headwater.store.schema import edges, events, nodes

MAPPING = {"a": [("s", "a")], "b": [("s", "b"), ("u", "b")]}
CHANGED = {"a": [("s", "a")], "b": [("u", "b")]}
WIDER = {"a": [("s", "a"), ("u", "a")], "b": [("s", "b")]}


def _run(
    n: int,
    mapping: dict[str, list[tuple[str, str]]] = MAPPING,
    target: str = "t",
    at: str | None = None,
    literal: int | None = None,
) -> LineageInfo:
    """A run of the job writing ``target`` (same statement text), its own query id and time;
    ``literal``: its filter compares with this number (a re-run with other literals: the filter's
    edge changes its expression)."""
    event = copy_event(
        target,
        mapping,
        query_id=f"q{target}{n}",
        timestamp=at or f"2024-05-01T10:{n:02d}:00Z",
        filters=(("s", "c"),),
        sql=f"INSERT INTO {target} SELECT a, b FROM s, u WHERE s.c > {literal or 0}",
    )
    if literal is None:
        return event
    (ind,) = event.dataset_indirect
    return replace(event, dataset_indirect=(replace(ind, expression=f"s.c > {literal}"),))


def _snapshot(store: LineageStore) -> list[list[tuple[Any, ...]]]:
    """Every edge, event and node by natural keys (no ids: PostgreSQL's sequences go on after a clear)."""
    src, dst, job = aliased(nodes), aliased(nodes), aliased(nodes)
    e = edges.c
    q = (
        select(
            e.type,
            src.c.name,
            dst.c.name,
            e.subtype,
            e.dependency,
            e.expression,
            e.labels,
            e.masking,
            job.c.name,
            events.c.event_id,
            e.valid_from,
            e.valid_to,
        )
        .join(src, src.c.id == e.src_id)
        .join(dst, dst.c.id == e.dst_id)
        .outerjoin(job, job.c.id == e.job_id)
        .outerjoin(events, events.c.id == e.event_pk)
    )
    with store.engine.connect() as conn:
        rows = [tuple(r) for r in conn.execute(q)]
        evs = [tuple(r) for r in conn.execute(select(events.c.event_id, events.c.event_us, events.c.deleted_us))]
        props = [tuple(r) for r in conn.execute(select(nodes.c.type, nodes.c.name, nodes.c.properties))]
    return [sorted(rows, key=repr), sorted(evs, key=repr), sorted(props, key=repr)]


def _origins(store: LineageStore, field: str, as_of: str | None = None) -> list[str]:
    """An as-of answer (the fields ``field`` comes from)."""
    return sorted(o.field.short for o in store.get_field_origin(field, as_of=as_of).origins)


def _job(store: LineageStore, target: str) -> str:
    with store.engine.connect() as conn:
        names = conn.execute(select(nodes.c.name).where(nodes.c.type == "JOB")).scalars()
        return next(n for n in names if n.endswith(f".{target}"))


def _with_and_without_cache(
    url: str, monkeypatch: pytest.MonkeyPatch, scenario: Callable[[LineageStore, LineageStore], Any]
) -> tuple[Any, Any, list[list[int]]]:
    """``scenario`` on two writers of ``url`` with the cache, then (the tables cleared) without it;
    the snapshots, the answers the scenario returned, and the jobs ``_latest`` read with the cache."""
    reads = spy_on_reads(monkeypatch, write, "_latest")
    out = []
    for with_cache in (True, False):
        if not with_cache:  # no entries kept, and every recording through the general diff
            monkeypatch.setattr(write, "_keep_open", lambda *a: None)
            monkeypatch.setattr(write, "_rerun", lambda *a: False)
            _clear(url)
        store, other = open_store(url), open_store(url)
        answers = scenario(store, other)
        out.append((_snapshot(store), answers))
        store.close()
        other.close()
        if with_cache:
            cached_reads = list(reads)
    (cached, cached_answers), (plain, plain_answers) = out
    assert cached == plain
    assert cached_answers == plain_answers
    assert cached[0]
    return cached, cached_answers, cached_reads


@pytest.fixture
def both(store_url: str) -> Iterator[str]:
    yield store_url
    _clear(store_url)


def _alternating(store: LineageStore, other: LineageStore) -> list[Any]:
    """Two writers re-running two jobs in turn, each changing what the other cached."""
    answers = []
    for n in (1, 2, 3):
        store.record_batch([_run(n), _run(n, target="v")])
    other.record(_run(4, CHANGED, target="v"))  # the other writer changes the job store did not touch last
    store.record(_run(5))  # store finds another writer's events: checks what it records, drops the rest
    store.record(_run(6, target="v"))  # its entry of v was stale
    store.record(_run(7, target="v"))
    other.record(_run(8, WIDER))
    other.record(_run(9, WIDER, target="v"))
    store.record_batch([_run(10), _run(10, CHANGED, target="v")])
    store.record(_run(11))
    store.record_batch([_run(15, literal=3), _run(16, literal=4), _run(17, literal=4), _run(18, literal=5)])
    other.record(_run(19, literal=6))
    store.record_batch([_run(20, literal=7), _run(21, literal=7)])
    other.record(_run(22, WIDER, literal=6))
    store.record(_run(23, literal=7))
    answers.append(_origins(store, "t.b", as_of="2024-05-01T10:08:30Z"))
    other.record(_run(12, at="2024-05-01T09:00:00Z"))  # late, by the other writer
    store.record(_run(24))
    store.record(_run(25, WIDER, target="v"))
    answers.append(_origins(store, "v.b", as_of="2024-05-01T10:13:30Z"))
    answers.append(_origins(store, "t.b"))
    return answers


def test_two_writers_in_turn_leave_what_no_cache_leaves(both: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _with_and_without_cache(both, monkeypatch, _alternating)


def test_a_stale_entry_of_a_job_not_recorded_is_dropped(both: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The other writer changes v; this writer then records t (its check sees only t), then v: the
    cache must not trust its old entry of v, although no one wrote since its last recording."""

    def scenario(store: LineageStore, other: LineageStore) -> list[Any]:
        for n in (1, 2, 3):
            store.record(_run(n))
            store.record(_run(n, target="v"))
        other.record(_run(4, CHANGED, target="v"))
        store.record(_run(5))
        store.record(_run(6, target="v"))
        store.record(_run(7, target="v"))
        return [_origins(store, "v.b")]

    _with_and_without_cache(both, monkeypatch, scenario)


def test_deletions_between_reruns(both: str, monkeypatch: pytest.MonkeyPatch) -> None:
    def scenario(store: LineageStore, other: LineageStore) -> list[Any]:
        answers = []
        for n in (1, 2, 3):
            store.record_batch([_run(n), _run(n, target="v")])
        store.delete_lineage(event_id=_run(3).event_id, at="2024-05-01T10:03:30Z")  # by this writer
        store.record(_run(4))
        store.record(_run(5, target="v"))
        other.delete_lineage(job=_job(store, "v"), at="2024-05-01T10:05:30Z")  # by the other one
        store.record(_run(6))
        store.record(_run(7, target="v"))
        store.record(_run(8, CHANGED))
        other.delete_lineage(event_id=_run(8, CHANGED).event_id, purge=True)  # purged: events go
        store.record(_run(9, CHANGED))
        store.record(_run(10))
        store.record_batch([_run(11, target="v"), _run(12)])
        answers.append(_origins(store, "t.b", as_of="2024-05-01T10:08:30Z"))
        answers.append(_origins(store, "v.b"))
        return answers

    _with_and_without_cache(both, monkeypatch, scenario)


def test_a_lone_writer_reads_no_newest_events_of_cached_jobs(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """SQLite: re-runs of jobs the writer recorded, with no one else writing in between, read neither
    the jobs' newest events nor their open edges."""
    url = f"sqlite:///{tmp_path / 'a.db'}"

    def scenario(store: LineageStore, other: LineageStore) -> None:
        store.record_batch([_run(1), _run(1, target="v")])
        store.record_batch([_run(2), _run(2, target="v")])  # read once, kept
        loads.clear()
        latest.clear()
        store.record_batch([_run(3), _run(3, CHANGED, target="v")])
        store.record(_run(4, WIDER))
        store.record(_run(5, at="2024-05-01T09:30:00Z"))  # late: the cached time tells
        store.record(_run(6, target="v"))
        seen.append((list(loads), list(latest)))

    loads = spy_on_reads(monkeypatch, write, "_load_open")
    latest = spy_on_reads(monkeypatch, write, "_latest")
    seen: list[tuple[list[list[int]], list[list[int]]]] = []
    _with_and_without_cache(url, monkeypatch, scenario)
    cached_loads, cached_latest = seen[0]
    assert not [s for s in cached_loads if s]
    assert not [j for j in cached_latest if j]
    _, plain_latest = seen[1]
    assert [j for j in plain_latest if j]


def test_reruns_with_other_literals_skip_the_general_diff(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """SQLite: a re-run that asserts its job's edges but for expressions (other literals) is compared
    edge by edge with the recording that left them (``write._rerun``), not through ``_wanted``; one
    that asserts other edges, or comes late, takes the general diff."""
    url = f"sqlite:///{tmp_path / 'a.db'}"
    general: list[str] = []
    wanted = write._wanted
    monkeypatch.setattr(write, "_wanted", lambda f, *a: (general.append(f.event_id), wanted(f, *a))[1])
    marks: dict[str, list[str]] = {}

    def scenario(store: LineageStore, other: LineageStore) -> list[Any]:
        store.record_batch([_run(1, literal=1), _run(1, target="v")])
        store.record_batch([_run(2, literal=2), _run(2, target="v")])
        general.clear()
        store.record_batch([_run(3, literal=3), _run(3, target="v"), _run(4, literal=3), _run(5, literal=5)])
        store.record(_run(6, literal=6))
        store.record(_run(7, literal=7, at="2024-05-01T09:00:00Z"))  # late
        store.record(_run(8, CHANGED, literal=8))  # other edges
        store.record(_run(9, CHANGED, literal=9))
        store.record(_run(10, literal=9))
        marks.setdefault("general", list(general))
        return [_origins(store, "t.b", as_of="2024-05-01T10:08:30Z"), _origins(store, "t.a")]

    _with_and_without_cache(url, monkeypatch, scenario)
    late, changed, back = _run(7, literal=7).event_id, _run(8, CHANGED).event_id, _run(10).event_id
    assert marks["general"] == [late, changed, back]
