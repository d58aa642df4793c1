"""One state of lineage, read from a store at a time: every column edge, column and job then current.

A ``Snapshot`` holds what a diff compares, by name (node ids differ between stores): the column
edges into each written column (source, transformation type, dependency, expression; the
dataset-level JOIN / FILTER / GROUP_BY / SORT mappings as one INDIRECT edge per column, as every
query reads them, ``store/indirect.py``), the columns of each written table, and each job with its
file, line, status and targets.

>>> from headwater.store import open_store
>>> from headwater.extract import extract_script
>>> store = open_store("sqlite://")
>>> _ = store.record_batch(extract_script("CREATE TABLE db.t AS SELECT a, b + 1 AS c FROM db.s WHERE a > 0").events)
>>> with store.engine.connect() as conn:
...     snap = read_snapshot(conn)
>>> sorted((e.source, e.subtype) for e in snap.edges_into("internal.db.t.c"))
[('internal.db.s.a', 'FILTER'), ('internal.db.s.b', 'TRANSFORMATION')]
>>> snap.tables["internal.db.t"]
('internal.db.t.a', 'internal.db.t.c')
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, and_, select

from headwater.store import indirect
from headwater.store.jobs import display_name
from headwater.store.resolve import fetch_nodes
from headwater.store.schema import OPEN, edges, events, jobs
from headwater.store.traverse import EDGE_COLUMNS
from headwater.store.types import MAPS_TO_ALL, WRITES_FIELD, EdgeType
from headwater.store.write import chunks

_E = edges.c
_MAPS_TO = EdgeType.MAPS_TO.value
_WRITE = EdgeType.WRITE.value
_STORED = (*EDGE_COLUMNS, _E.event_pk)


@dataclass(frozen=True, slots=True, order=True)
class ColumnEdge:
    """A column edge: ``source`` feeds ``target`` (field names) through ``subtype`` (IDENTITY,
    TRANSFORMATION, AGGREGATION; JOIN, FILTER, … for INDIRECT), written by ``job``."""

    target: str
    source: str
    dependency: str
    subtype: str
    expression: str
    job: str

    @property
    def key(self) -> tuple[str, str, str, str, str]:
        """The edge without its job: what says whether two states have the same edge."""
        return (self.target, self.source, self.dependency, self.subtype, self.expression)


@dataclass(frozen=True, slots=True)
class JobState:
    """A job as the snapshot sees it: where its statement is, whether it extracted completely, what it
    writes, and its column edges (for telling a moved job from a changed one)."""

    name: str
    file: str | None
    line: int | None
    status: str | None
    targets: tuple[str, ...]
    edges: frozenset[tuple[str, str, str, str, str]] = frozenset()
    """(target, source, dependency, subtype, expression) of each of its edges."""


@dataclass(slots=True)
class Snapshot:
    """Lineage at one time (see the module docstring)."""

    edges: dict[str, list[ColumnEdge]] = field(default_factory=dict)
    """Written column → the edges into it."""
    tables: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Written table → its written columns (field names), sorted."""
    jobs: dict[str, JobState] = field(default_factory=dict)
    writers: dict[str, list[str]] = field(default_factory=dict)
    """Written column → the jobs that write it."""

    def edges_into(self, column: str) -> list[ColumnEdge]:
        return self.edges.get(column, [])

    @property
    def columns(self) -> set[str]:
        return {c for cols in self.tables.values() for c in cols}

    def table_of(self, column: str) -> str | None:
        """The written table that has ``column``, if any."""
        table = column.rsplit(".", 1)[0]
        return table if column in self.tables.get(table, ()) else None


def _valid(as_of: int | None) -> Any:
    return _E.valid_to == OPEN if as_of is None else and_(_E.valid_from <= as_of, _E.valid_to > as_of)


def _rows(conn: Connection, types: Iterable[str], as_of: int | None) -> list[Any]:
    return list(conn.execute(select(*_STORED).where(_E.type.in_(list(types)), _valid(as_of))))


def read_snapshot(conn: Connection, as_of: int | None = None) -> Snapshot:
    """The lineage valid at ``as_of`` (microseconds; None: what is current)."""
    stored = _rows(conn, (_MAPS_TO, MAPS_TO_ALL, WRITES_FIELD, _WRITE), as_of)
    maps = [r for r in stored if r.type == _MAPS_TO]
    maps += indirect.expand(conn, [r for r in stored if r.type == MAPS_TO_ALL], as_of)
    written = [r for r in stored if r.type == WRITES_FIELD]
    writes = [r for r in stored if r.type == _WRITE]
    ids = {i for r in [*maps, *written] for i in (r.src_id, r.dst_id)} | {r.job_id for r in maps if r.job_id}
    ids |= {i for r in writes for i in (r.src_id, r.dst_id)}
    infos = fetch_nodes(conn, ids)
    snap = Snapshot()
    job_names = {i: display_name(n.name) for i, n in infos.items() if n.type in ("JOB", "PIPELINE")}
    per_job: dict[int, set[tuple[str, str, str, str, str]]] = {}
    per_table: dict[str, set[str]] = {}
    writers: dict[str, set[str]] = {}
    for r in maps:
        target, source = infos[r.dst_id].name, infos[r.src_id].name
        job = job_names.get(r.job_id, "") if r.job_id is not None else ""
        edge = ColumnEdge(target, source, r.dependency or "", r.subtype or "", r.expression or "", job)
        snap.edges.setdefault(target, []).append(edge)
        per_job.setdefault(r.job_id or 0, set()).add(edge.key)
    parents = {infos[r.dst_id].parent_id for r in [*maps, *written]} - set(infos) - {None}
    infos.update(fetch_nodes(conn, parents))  # type: ignore[arg-type]
    for r in [*maps, *written]:
        column = infos[r.dst_id]
        parent = infos.get(column.parent_id) if column.parent_id is not None else None
        if parent is not None:
            per_table.setdefault(parent.name, set()).add(column.name)
        if r.job_id in job_names:
            writers.setdefault(column.name, set()).add(job_names[r.job_id])
    for edges_in in snap.edges.values():
        edges_in.sort()
    snap.tables = {t: tuple(sorted(cols)) for t, cols in sorted(per_table.items())}
    snap.writers = {c: sorted(j) for c, j in sorted(writers.items())}
    targets: dict[int, set[str]] = {}
    for r in writes:
        targets.setdefault(r.src_id, set()).add(infos[r.dst_id].name)
        snap.tables.setdefault(infos[r.dst_id].name, ())
    _add_jobs(conn, snap, {j: job_names[j] for j in targets if j in job_names}, targets, per_job, writes)
    return snap


def _add_jobs(
    conn: Connection,
    snap: Snapshot,
    names: dict[int, str],
    targets: dict[int, set[str]],
    per_job: dict[int, set[tuple[str, str, str, str, str]]],
    writes: list[Any],
) -> None:
    where: dict[int, tuple[str | None, int | None]] = {}
    status: dict[int, str | None] = {}
    ids = sorted(names)
    event_of = {r.src_id: r.event_pk for r in writes if r.event_pk is not None}
    for part in chunks(ids):
        for row in conn.execute(select(jobs.c.job_id, jobs.c.file, jobs.c.line).where(jobs.c.job_id.in_(part))):
            where[row.job_id] = (row.file, row.line)
    pks = sorted(set(event_of.values()))
    by_pk: dict[int, str | None] = {}
    for part in chunks(pks):
        for row in conn.execute(select(events.c.id, events.c.status).where(events.c.id.in_(part))):
            by_pk[row.id] = row.status
    for j in ids:
        status[j] = by_pk.get(event_of.get(j, -1))
    for j in ids:
        file, line = where.get(j, (None, None))
        snap.jobs[names[j]] = JobState(
            names[j], file, line, status[j], tuple(sorted(targets[j])), frozenset(per_job.get(j, ()))
        )
    snap.jobs = dict(sorted(snap.jobs.items()))


__all__ = ["ColumnEdge", "JobState", "Snapshot", "read_snapshot"]
