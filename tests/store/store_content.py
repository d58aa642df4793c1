"""A store's content without its ids and clock times: what two stores must agree on to answer alike."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from headwater.store.schema import OPEN, edges, events, jobs, nodes


def content(url: str) -> dict[str, Any]:
    """Nodes (type, name); events (id, status, job, deleted); edges (type, source, target, subtype,
    job, owning event, open), each with how many times it occurs; jobs (name, runs, closed)."""
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            name = {i: (t, n) for i, t, n in conn.execute(sa.select(nodes.c.id, nodes.c.type, nodes.c.name))}
            event = {
                pk: (eid, status, name.get(job), deleted is not None)
                for pk, eid, status, job, deleted in conn.execute(
                    sa.select(events.c.id, events.c.event_id, events.c.status, events.c.job_id, events.c.deleted_us)
                )
            }
            rows: dict[tuple[Any, ...], int] = {}
            e = edges.c
            query = sa.select(e.type, e.src_id, e.dst_id, e.subtype, e.job_id, e.event_pk, e.valid_to)
            for typ, src, dst, sub, job, pk, until in conn.execute(query):
                key = (typ, name[src], name[dst], sub, name.get(job), event[pk][0] if pk else None, until == OPEN)
                rows[key] = rows.get(key, 0) + 1
            job_rows = {
                (name[j], runs, closed is not None)
                for j, runs, closed in conn.execute(sa.select(jobs.c.job_id, jobs.c.runs, jobs.c.closed_us))
            }
    finally:
        engine.dispose()
    return {"nodes": set(name.values()), "events": set(event.values()), "edges": rows, "jobs": job_rows}
