"""``delete_lineage``: close (or, with ``purge``, erase) the edges of an event, a job or a dataset.

Closing keeps history: as-of queries before the deletion still see the edges. A closed event stays
recorded, so replaying it changes nothing; a purged one is forgotten and can be recorded again.
"""

from __future__ import annotations

from sqlalchemy import ColumnElement, Connection, delete, or_, select, update

from headwater.store.errors import InvalidInput, NodeNotFound
from headwater.store.names import now_us
from headwater.store.resolve import resolve
from headwater.store.results import DeleteResult
from headwater.store.schema import OPEN, edges, events, nodes
from headwater.store.types import ENTITY_TYPES, PROCESS_TYPES, NodeType

_E = edges.c


def delete_lineage(
    conn: Connection,
    event_id: str | None = None,
    job: str | int | None = None,
    dataset: str | int | None = None,
    purge: bool = False,
    at: int | None = None,
) -> DeleteResult:
    """Exactly one of ``event_id``, ``job``, ``dataset``; ``at`` (µs) is the closing time."""
    chosen = [k for k, v in (("event_id", event_id), ("job", job), ("dataset", dataset)) if v is not None]
    if len(chosen) != 1:
        raise InvalidInput("event_id|job|dataset", "give exactly one")
    events_q: ColumnElement[bool] | None = None
    if event_id is not None:
        pk = conn.execute(select(events.c.id).where(events.c.event_id == event_id)).scalar_one_or_none()
        if pk is None:
            raise NodeNotFound(f"event {event_id}")
        which = _E.event_pk == pk
        events_q = events.c.id == pk
    elif job is not None:
        node = resolve(conn, job, types=PROCESS_TYPES)
        which = _E.job_id == node.id
        events_q = events.c.job_id == node.id
    else:
        assert dataset is not None
        node = resolve(conn, dataset, types=(NodeType.DATASET, NodeType.EXTERNAL, *sorted(ENTITY_TYPES)))
        members = select(nodes.c.id).where(nodes.c.parent_id == node.id)
        which = or_(_E.src_id == node.id, _E.dst_id == node.id, _E.src_id.in_(members), _E.dst_id.in_(members))
    if purge:
        purged = conn.execute(delete(edges).where(which)).rowcount
        gone = conn.execute(delete(events).where(events_q)).rowcount if events_q is not None else 0
        return DeleteResult(0, purged, gone)
    t = at if at is not None else now_us()
    closed = conn.execute(
        update(edges).where(which, _E.valid_to == OPEN, _E.valid_from <= t).values(valid_to=t)
    ).rowcount
    # edges starting after the closing time end where they start: they never were valid
    closed += conn.execute(
        update(edges).where(which, _E.valid_to == OPEN, _E.valid_from > t).values(valid_to=_E.valid_from)
    ).rowcount
    marked = 0
    if events_q is not None:
        marked = conn.execute(
            update(events).where(events_q, events.c.deleted_us.is_(None)).values(deleted_us=t)
        ).rowcount
    return DeleteResult(closed, 0, marked)
