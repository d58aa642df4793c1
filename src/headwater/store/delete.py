"""``delete_lineage``: close (or, with ``purge``, erase) the edges of an event, a job or a dataset.

Closing keeps history: as-of queries before the deletion still see the edges. A closed event stays
recorded, so replaying it changes nothing; a purged one is forgotten and can be recorded again.
"""

from __future__ import annotations

from sqlalchemy import ColumnElement, Connection, delete, or_, select, update

from headwater.store import indirect
from headwater.store.errors import InvalidInput, NodeNotFound
from headwater.store.names import now_us
from headwater.store.resolve import resolve
from headwater.store.results import DeleteResult
from headwater.store.schema import OPEN, edges, events, nodes
from headwater.store.types import (
    ENTITY_TYPES,
    MAPS_TO_ALL,
    PROCESS_TYPES,
    STORAGE_EDGE_TYPES,
    WRITES_FIELD,
    EdgeType,
    NodeType,
)
from headwater.store.write import bump_membership_epoch, insert_edges

_E = edges.c


def delete_lineage(
    conn: Connection,
    event_id: str | None = None,
    job: str | int | None = None,
    dataset: str | int | None = None,
    purge: bool = False,
    at: int | None = None,
    mark_events: bool = True,
) -> DeleteResult:
    """Exactly one of ``event_id``, ``job`` (a job, a step, or a pipeline: its steps with it),
    ``dataset``; ``at`` (µs) is the closing time.
    ``mark_events=False`` closes without marking the events deleted (a job retired, ``jobs.py``)."""
    chosen = [k for k, v in (("event_id", event_id), ("job", job), ("dataset", dataset)) if v is not None]
    if len(chosen) != 1:
        raise InvalidInput("event_id|job|dataset", "give exactly one")
    events_q: ColumnElement[bool] | None = None
    bump_membership_epoch(conn)  # edges close: writers' caches of them (memberships, jobs' open edges) are stale
    if event_id is not None:
        pk = conn.execute(select(events.c.id).where(events.c.event_id == event_id)).scalar_one_or_none()
        if pk is None:
            raise NodeNotFound(f"event {event_id}")
        which = _E.event_pk == pk
        events_q = events.c.id == pk
    elif job is not None:
        node = resolve(conn, job, types=PROCESS_TYPES)
        ids = [node.id]
        if node.type == NodeType.PIPELINE:  # a pipeline is its steps too: its lineage is theirs
            steps = select(nodes.c.id).where(nodes.c.parent_id == node.id, nodes.c.type == NodeType.PIPELINE_STEP)
            ids += list(conn.execute(steps).scalars())
        which = _E.job_id.in_(ids)
        events_q = events.c.job_id.in_(ids)
    else:
        assert dataset is not None
        node = resolve(conn, dataset, types=(NodeType.DATASET, NodeType.EXTERNAL, *sorted(ENTITY_TYPES)))
        members = select(nodes.c.id).where(nodes.c.parent_id == node.id)
        which = or_(_E.src_id == node.id, _E.dst_id == node.id, _E.src_id.in_(members), _E.dst_id.in_(members))
    # dataset-level mappings count as the MAPS_TO edges they stand for (one per column they apply
    # to while open), as when they were stored that way; their WRITES_FIELD companions do not count
    jobs = [
        j
        for j in conn.execute(
            select(_E.job_id).distinct().where(which, _E.type.in_((*STORAGE_EDGE_TYPES, EdgeType.MAPS_TO.value)))
        ).scalars()
        if j is not None
    ]
    virtual_before = indirect.count(conn, None, jobs) if jobs else 0
    plain = _E.type.not_in(STORAGE_EDGE_TYPES)
    if purge:
        history = _written_history(conn, which) if dataset is not None else []
        purged = conn.execute(delete(edges).where(which, plain)).rowcount
        conn.execute(delete(edges).where(which, _E.type.in_(STORAGE_EDGE_TYPES)))
        insert_edges(
            conn,
            [[WRITES_FIELD, ds, f, None, None, None, None, False, j, None, 1, 1, a, b] for j, ds, f, a, b in history],
        )
        purged += virtual_before - (indirect.count(conn, None, jobs) if jobs else 0)
        gone = conn.execute(delete(events).where(events_q)).rowcount if events_q is not None else 0
        return DeleteResult(0, purged, gone)
    kept = _still_written(conn, which) if dataset is not None else []
    t = at if at is not None else now_us()
    closed = 0
    for kind in (plain, _E.type.in_(STORAGE_EDGE_TYPES)):
        n = conn.execute(update(edges).where(which, kind, _E.valid_to == OPEN, _E.valid_from <= t).values(valid_to=t))
        # edges starting after the closing time end where they start: they never were valid
        m = conn.execute(
            update(edges).where(which, kind, _E.valid_to == OPEN, _E.valid_from > t).values(valid_to=_E.valid_from)
        )
        if kind is plain:
            closed = n.rowcount + m.rowcount
    insert_edges(
        conn, [[WRITES_FIELD, ds, f, None, None, None, None, False, j, None, 1, 1, t, OPEN] for j, ds, f, _ in kept]
    )
    closed += virtual_before - (indirect.count(conn, None, jobs) if jobs else 0)
    marked = 0
    if events_q is not None and mark_events:
        marked = conn.execute(
            update(events).where(events_q, events.c.deleted_us.is_(None)).values(deleted_us=t)
        ).rowcount
    return DeleteResult(closed, 0, marked)


def _still_written(conn: Connection, which: ColumnElement[bool]) -> list[tuple[int, int, int, int]]:
    """(job, dataset, column, start) for columns whose last open witness ``which`` removes while the job
    keeps an open MAPS_TO_ALL into the dataset (deleting one source of a join keeps the other
    source's JOIN mapping on every column): they get a WRITES_FIELD edge instead."""
    gone = conn.execute(
        select(_E.job_id, _E.dst_id, _E.valid_from).where(
            which, _E.type.in_(indirect.WITNESS_TYPES), _E.valid_to == OPEN, _E.job_id.is_not(None)
        )
    ).all()
    if not gone:
        return []
    jobs = sorted({j for j, _, _ in gone})
    parent = {
        n: p
        for n, p in conn.execute(select(nodes.c.id, nodes.c.parent_id).where(nodes.c.id.in_({f for _, f, _ in gone})))
    }
    others = ~which
    mapped = {
        (j, d)
        for j, d in conn.execute(
            select(_E.job_id, _E.dst_id).where(_E.type == MAPS_TO_ALL, _E.valid_to == OPEN, _E.job_id.in_(jobs), others)
        )
    }
    left = {
        (j, f)
        for j, f in conn.execute(
            select(_E.job_id, _E.dst_id).where(
                _E.type.in_(indirect.WITNESS_TYPES), _E.valid_to == OPEN, _E.job_id.in_(jobs), others
            )
        )
    }
    start: dict[tuple[int, int, int], int] = {}
    for j, f, t in gone:
        ds = parent.get(f)
        if ds is not None and (j, ds) in mapped and (j, f) not in left:
            start[(j, ds, f)] = min(t, start.get((j, ds, f), t))
    return [(j, ds, f, t) for (j, ds, f), t in sorted(start.items())]


def _written_history(conn: Connection, which: ColumnElement[bool]) -> list[tuple[int, int, int, int, int]]:
    """(job, dataset, column, valid_from, valid_to) of every witness ``which`` erases, open or closed,
    into a dataset where the job keeps a ``MAPS_TO_ALL`` edge: a purge replaces each with a
    ``WRITES_FIELD`` row of the same validity, so the dataset-level mappings of the other sources keep
    applying to the same columns at the same times (purging one source of a join erases its own
    mappings, not the other source's history)."""
    gone = conn.execute(
        select(_E.job_id, _E.dst_id, _E.valid_from, _E.valid_to).where(
            which, _E.type.in_(indirect.WITNESS_TYPES), _E.job_id.is_not(None)
        )
    ).all()
    if not gone:
        return []
    jobs = sorted({j for j, _, _, _ in gone})
    parent = {
        n: p
        for n, p in conn.execute(
            select(nodes.c.id, nodes.c.parent_id).where(nodes.c.id.in_({f for _, f, _, _ in gone}))
        )
    }
    mapped = {
        (j, d)
        for j, d in conn.execute(
            select(_E.job_id, _E.dst_id).where(_E.type == MAPS_TO_ALL, _E.job_id.in_(jobs), ~which).distinct()
        )
    }
    return sorted(
        (j, parent[f], f, a, b) for j, f, a, b in gone if parent.get(f) is not None and (j, parent[f]) in mapped
    )
