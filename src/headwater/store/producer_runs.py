"""Runs of another producer for a job whose lineage headwater extracted: the store keeps
headwater's facts and records the run.

``openlineage-dbt`` (``dbt-ol``) sends column lineage parsed without transformation types or
indirect lineage, and names an ephemeral model as if it were a table. When ``headwater ingest
--dbt`` (or any headwater extraction) recorded the job's current lineage, a RunEvent of another
producer for that job asserts no edges of its own: it is recorded as a run (its state and time, the
event as sent), and the job's lineage stays the extracted one. A job only the other producer knows
is recorded with the producer's lineage, which a later extraction replaces.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, select

from headwater.model.ol_restore import headwater_facet
from headwater.store.facts import Facts
from headwater.store.schema import OPEN, edges, events, nodes
from headwater.store.types import NodeType


def extracted_jobs(conn: Connection, names: Sequence[str]) -> dict[str, str | None]:
    """The job names among ``names`` whose open edges a headwater event recorded, each with the
    statement fingerprint of its latest headwater event (the current version's)."""
    found: set[str] = set()
    latest: dict[str, tuple[int, str | None]] = {}
    for start in range(0, len(names), 500):
        part = names[start : start + 500]
        headwater = (nodes.c.type == NodeType.JOB.value, nodes.c.name.in_(part), events.c.kind == "headwater")
        q = (
            select(nodes.c.name)
            .distinct()
            .join(edges, edges.c.job_id == nodes.c.id)
            .join(events, events.c.id == edges.c.event_pk)
            .where(*headwater, edges.c.valid_to == OPEN)
        )
        found.update(conn.execute(q).scalars())
        q2 = select(nodes.c.name, events.c.event_us, events.c.fingerprint).join(events, events.c.job_id == nodes.c.id)
        for name, t, fp in conn.execute(q2.where(*headwater)):
            if name not in latest or t >= latest[name][0]:
                latest[name] = (t, fp)
    return {name: latest[name][1] if name in latest else None for name in found}


def runs_only_where_extracted(conn: Connection, run_events: Sequence[Mapping[str, Any]], facts: Sequence[Facts]) -> int:
    """Strip the lineage of other producers' ``facts`` whose job headwater extracted (in place: the
    run is one of the job's current version); returns how many were stripped."""
    foreign = [f for e, f in zip(run_events, facts, strict=True) if headwater_facet(e) is None and f.job and f.edges]
    if not foreign:
        return 0
    extracted = extracted_jobs(conn, sorted({f.job[1] for f in foreign if f.job}))
    stripped = 0
    for f in foreign:
        if f.job and f.job[1] in extracted:
            f.nodes = {f.job: f.nodes[f.job]}
            f.edges = []
            f.fingerprint = extracted[f.job[1]]
            stripped += 1
    return stripped
