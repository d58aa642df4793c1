"""The store at a glance, for the explorer's home page: datasets grouped by catalog and database,
the most connected first, and the latest recorded statements.

>>> from headwater.store import open_store
>>> from headwater.dispatch.sample import tiny_event
>>> store = open_store("sqlite://")
>>> _ = store.record(tiny_event("q1"))
>>> with store.engine.connect() as conn:
...     o = overview(conn)
>>> [(g.name, sorted((d.node.short, d.degree) for d in g.datasets)) for g in o.databases]
[('internal.db', [('s', 1), ('t', 1)])]
>>> [r.job.type for r in o.recent]
['JOB']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, func, select, union_all

from headwater.store.names import from_us, split_name
from headwater.store.resolve import fetch_nodes
from headwater.store.results import NodeInfo
from headwater.store.schema import edges, events, nodes
from headwater.store.traverse import valid_at
from headwater.store.types import EdgeType, NodeType

_N = nodes.c
_E = edges.c
_EV = events.c
_FLOW = (EdgeType.READ.value, EdgeType.WRITE.value)
_DATASETS = tuple(t.value for t in NodeType if t.value in ("DATASET", "VIEW"))
DATASET_CAP = 20_000
"""The most datasets the overview reads; past it, ``truncated`` says so."""


@dataclass(frozen=True, slots=True)
class DatasetEntry:
    node: NodeInfo
    degree: int  # statements reading or writing it (READ and WRITE edges) at the time asked


@dataclass(frozen=True, slots=True)
class DatabaseGroup:
    name: str  # catalog.database (the dataset name without its last part)
    datasets: list[DatasetEntry]  # the most connected first, at most ``per_database``
    total: int
    degree: int  # the sum over all its datasets


@dataclass(frozen=True, slots=True)
class RecentChange:
    job: NodeInfo
    event_time: Any
    kind: str
    status: str | None


@dataclass(frozen=True, slots=True)
class Overview:
    databases: list[DatabaseGroup]  # the most connected first
    recent: list[RecentChange]  # latest first
    total_datasets: int
    truncated: bool


def overview(
    conn: Connection, as_of: int | None = None, per_database: int = 12, databases: int = 50, recent: int = 10
) -> Overview:
    """Datasets existing at ``as_of`` grouped by database, and the ``recent`` latest statements."""
    stmt = select(_N.id, _N.name).where(_N.type.in_(_DATASETS))
    if as_of is not None:
        stmt = stmt.where(_N.created_us <= as_of)
    rows = conn.execute(stmt.order_by(_N.id).limit(DATASET_CAP + 1)).all()
    truncated = len(rows) > DATASET_CAP
    rows = rows[:DATASET_CAP]
    ends = union_all(
        select(_E.src_id.label("node")).where(_E.type.in_(_FLOW), valid_at(as_of)),
        select(_E.dst_id.label("node")).where(_E.type.in_(_FLOW), valid_at(as_of)),
    ).subquery()
    degree = dict(conn.execute(select(ends.c.node, func.count()).group_by(ends.c.node)).all())
    groups: dict[str, list[tuple[int, int]]] = {}
    for nid, name in rows:
        groups.setdefault(".".join(split_name(name)[:-1]), []).append((degree.get(nid, 0), nid))
    ranked = sorted(groups.items(), key=lambda kv: (-sum(d for d, _ in kv[1]), kv[0]))[:databases]
    shown = {name: sorted(members, key=lambda m: (-m[0], m[1]))[:per_database] for name, members in ranked}
    infos = fetch_nodes(conn, [nid for members in shown.values() for _, nid in members])
    out = [
        DatabaseGroup(
            name,
            [DatasetEntry(infos[nid], d) for d, nid in shown[name] if nid in infos],
            len(members),
            sum(d for d, _ in members),
        )
        for name, members in ranked
    ]
    latest = select(_EV.job_id, _EV.event_us, _EV.kind, _EV.status).where(_EV.job_id.is_not(None))
    if as_of is not None:
        latest = latest.where(_EV.event_us <= as_of)
    ev_rows = conn.execute(latest.order_by(_EV.event_us.desc(), _EV.id.desc()).limit(recent)).all()
    jobs = fetch_nodes(conn, [r.job_id for r in ev_rows])
    changes = [RecentChange(jobs[r.job_id], from_us(r.event_us), r.kind, r.status) for r in ev_rows if r.job_id in jobs]
    return Overview(out, changes, len(rows), truncated)
