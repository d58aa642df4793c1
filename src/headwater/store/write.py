"""Store a batch of ``Facts`` in one transaction: idempotent, set-based, time-aware.

1. events already recorded are dropped (``event_id`` is unique: a replay changes nothing);
2. nodes are upserted, parents first, and their ids read back in bulk;
3. for every job (scope) of the batch, its open edges are loaded once and the batch's recordings
   are applied in time order in memory: an edge asserted again stays open, a new or changed one
   opens at the event time, and an edge the job no longer asserts (from another run) closes;
4. CONTAINS edges (system → dataset → field) open for every membership not already open;
5. the resulting inserts and closes are written with ``executemany``.

A recording older than its job's latest one only adds history: its edges that are not open are
inserted closed at the latest recording's time, and open ones it confirms start earlier.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, bindparam, func, select, update
from sqlalchemy.dialects import postgresql, sqlite

from headwater.store.facts import EdgeSpec, Facts, NodeKey, NodeSpec
from headwater.store.names import now_us
from headwater.store.schema import OPEN, edges, events, nodes
from headwater.store.types import EdgeType, NodeType

CHUNK = 500

_E = edges.c


@dataclass(slots=True)
class WriteResult:
    """What a recording changed: events recorded and skipped as replays, edges opened and closed."""

    recorded: int = 0
    duplicates: int = 0
    edges_opened: int = 0
    edges_closed: int = 0
    event_ids: list[str] = field(default_factory=list)

    def add(self, other: WriteResult) -> None:
        self.recorded += other.recorded
        self.duplicates += other.duplicates
        self.edges_opened += other.edges_opened
        self.edges_closed += other.edges_closed
        self.event_ids.extend(other.event_ids)


@dataclass(slots=True)
class _Edge:
    """An open edge of a scope: stored (``id`` set) or pending insertion (``row`` set)."""

    attrs: tuple[Any, ...]
    run_key: str
    valid_from: int
    id: int | None = None
    row: list[Any] | None = None


EDGE_COLUMNS = (
    "type",
    "src_id",
    "dst_id",
    "subtype",
    "dependency",
    "expression",
    "labels",
    "masking",
    "job_id",
    "event_pk",
    "up_cost",
    "down_cost",
    "valid_from",
    "valid_to",
)
_FROM, _TO = EDGE_COLUMNS.index("valid_from"), EDGE_COLUMNS.index("valid_to")


def insert_edges(conn: Connection, rows: Sequence[Sequence[Any]]) -> None:
    """Bulk insert of edge rows (``EDGE_COLUMNS`` order): COPY on PostgreSQL, executemany on SQLite."""
    if not rows:
        return
    cols = ", ".join(EDGE_COLUMNS)
    if conn.dialect.name == "postgresql":
        cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
        with cursor.copy(f"COPY {edges.name} ({cols}) FROM STDIN") as copy:
            for r in rows:
                copy.write_row(r)
        return
    marks = ", ".join("?" * len(EDGE_COLUMNS))
    conn.exec_driver_sql(f"INSERT INTO {edges.name} ({cols}) VALUES ({marks})", [tuple(r) for r in rows])


def chunks(items: Sequence[Any], size: int = CHUNK) -> Iterator[Sequence[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def _insert(conn: Connection, table: Any) -> Any:
    dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
    return dialect.insert(table).on_conflict_do_nothing()


def _rank(spec: NodeSpec, specs: dict[NodeKey, NodeSpec]) -> int:
    rank = 0
    while spec.parent is not None and spec.parent in specs:
        spec = specs[spec.parent]
        rank += 1
    return rank


def ensure_nodes(conn: Connection, specs: dict[NodeKey, NodeSpec], now: int) -> dict[NodeKey, int]:
    """Ids of the given nodes, inserting the missing ones (parents before children)."""
    ids: dict[NodeKey, int] = {}

    def read(names: Sequence[str]) -> None:
        for part in chunks(names):
            for nid, typ, name in conn.execute(
                select(nodes.c.id, nodes.c.type, nodes.c.name).where(nodes.c.name.in_(part))
            ):
                if (typ, name) in specs:
                    ids[(typ, name)] = nid

    read(sorted({k[1] for k in specs}))
    missing = [s for k, s in specs.items() if k not in ids]
    by_rank: dict[int, list[NodeSpec]] = {}
    for s in missing:
        by_rank.setdefault(_rank(s, specs), []).append(s)
    for rank in sorted(by_rank):
        rows = [
            {
                "type": s.type,
                "name": s.name,
                "short": s.short,
                "parent_id": ids.get(s.parent) if s.parent else None,
                "properties": json.dumps(s.properties, sort_keys=True) if s.properties else None,
                "created_us": now,
            }
            for s in by_rank[rank]
        ]
        conn.execute(_insert(conn, nodes), rows)
        read(sorted({s.name for s in by_rank[rank]}))
    return ids


def _new_events(conn: Connection, batch: Sequence[Facts], job_ids: dict[str, int | None], now: int) -> dict[str, int]:
    rows = [
        {
            "event_id": f.event_id,
            "kind": f.kind,
            "job_id": job_ids[f.event_id],
            "run_key": f.run_key,
            "event_us": f.event_us,
            "recorded_us": now,
            "status": f.status,
            "payload": f.payload,
        }
        for f in batch
    ]
    stmt = _insert(conn, events).returning(events.c.id, events.c.event_id)
    return {event_id: pk for pk, event_id in conn.execute(stmt, rows)}


def _load_open(conn: Connection, scopes: Sequence[int]) -> dict[int, dict[tuple[Any, ...], _Edge]]:
    state: dict[int, dict[tuple[Any, ...], _Edge]] = {s: {} for s in scopes}
    for part in chunks(scopes):
        q = (
            select(
                _E.id,
                _E.job_id,
                _E.type,
                _E.src_id,
                _E.dst_id,
                _E.subtype,
                _E.dependency,
                _E.expression,
                _E.labels,
                _E.masking,
                _E.valid_from,
                events.c.run_key,
            )
            .select_from(edges.outerjoin(events, events.c.id == _E.event_pk))
            .where(_E.job_id.in_(part), _E.valid_to == OPEN)
        )
        for r in conn.execute(q):
            key = (r.type, r.src_id, r.dst_id, r.subtype)
            attrs = (r.dependency, r.expression, r.labels, bool(r.masking))
            state[r.job_id][key] = _Edge(attrs, r.run_key or "", r.valid_from, id=r.id)
    return state


def _latest(conn: Connection, jobs: Sequence[int]) -> dict[int, int]:
    out: dict[int, int] = {}
    for part in chunks(jobs):
        q = select(events.c.job_id, func.max(events.c.event_us)).where(events.c.job_id.in_(part))
        out.update({j: t for j, t in conn.execute(q.group_by(events.c.job_id)) if t is not None})
    return out


def _lock_jobs(conn: Connection, jobs: Sequence[int]) -> None:
    """Serialise concurrent recordings of one job (PostgreSQL; SQLite writers are serial)."""
    if conn.dialect.name == "postgresql" and jobs:
        for part in chunks(sorted(jobs)):
            conn.execute(select(nodes.c.id).where(nodes.c.id.in_(part)).order_by(nodes.c.id).with_for_update())


class _Diff:
    """Accumulates the inserts, closes and start-time changes of one batch."""

    def __init__(self) -> None:
        self.pending: list[_Edge] = []
        self.closes: list[dict[str, int]] = []
        self.starts: list[dict[str, int]] = []

    def close(self, e: _Edge, t: int) -> None:
        if e.id is not None:
            self.closes.append({"b_id": e.id, "b_t": max(t, e.valid_from)})
        elif e.row is not None:
            if t <= e.valid_from:
                e.row = None
            else:
                e.row[_TO] = t

    def open(
        self,
        spec: EdgeSpec,
        ids: dict[NodeKey, int],
        attrs: tuple[Any, ...],
        scope: int | None,
        evpk: int,
        run_key: str,
        t: int,
        until: int = OPEN,
    ) -> _Edge:
        row = [
            spec.type,
            ids[spec.src],
            ids[spec.dst],
            spec.subtype,
            *attrs,
            scope,
            evpk,
            spec.up_cost,
            spec.down_cost,
            t,
            until,
        ]
        e = _Edge(attrs, run_key, t, row=row)
        self.pending.append(e)
        return e


def _wanted(
    f: Facts, ids: dict[NodeKey, int]
) -> dict[int | None, dict[tuple[Any, ...], tuple[EdgeSpec, tuple[Any, ...]]]]:
    """The edges a recording asserts, per scope, merged by key (labels united, masking or-ed)."""
    out: dict[int | None, dict[tuple[Any, ...], tuple[EdgeSpec, tuple[Any, ...]]]] = {}
    job = ids[f.job] if f.job else None
    for s in f.edges:
        scope = ids[s.scope] if s.scope else job
        key = (s.type, ids[s.src], ids[s.dst], s.subtype)
        per = out.setdefault(scope, {})
        prev = per.get(key)
        if prev is None:
            per[key] = (s, (s.dependency, s.expression, ",".join(s.labels) or None, s.masking))
        else:
            dep, expr, labels, masking = prev[1]
            merged = [x for x in dict.fromkeys([*(labels or "").split(","), *s.labels]) if x]
            per[key] = (prev[0], (dep, expr, ",".join(merged) or None, masking or s.masking))
    return out


def apply(conn: Connection, batch: Sequence[Facts]) -> WriteResult:
    """Record ``batch`` inside the caller's transaction."""
    result = WriteResult()
    now = now_us()
    unique: dict[str, Facts] = {}
    for f in batch:
        if f.event_id in unique:
            result.duplicates += 1
        else:
            unique[f.event_id] = f
    seen: set[str] = set()
    for part in chunks(list(unique)):
        seen.update(conn.execute(select(events.c.event_id).where(events.c.event_id.in_(part))).scalars())
    todo = [f for f in unique.values() if f.event_id not in seen]
    result.duplicates += len(unique) - len(todo)
    if not todo:
        return result
    specs: dict[NodeKey, NodeSpec] = {}
    for f in todo:
        for k, s in f.nodes.items():
            specs.setdefault(k, s)
    ids = ensure_nodes(conn, specs, now)
    jobs = sorted({ids[f.job] for f in todo if f.job})
    _lock_jobs(conn, jobs)
    latest = _latest(conn, jobs)
    pks = _new_events(conn, todo, {f.event_id: ids[f.job] if f.job else None for f in todo}, now)
    result.duplicates += len(todo) - len(pks)  # recorded concurrently by another writer
    todo = sorted((f for f in todo if f.event_id in pks), key=lambda f: f.event_us)
    result.recorded = len(todo)
    result.event_ids = [f.event_id for f in todo]
    wanted = [(f, _wanted(f, ids)) for f in todo]
    scopes = sorted({s for _, w in wanted for s in w if s is not None})
    state = _load_open(conn, scopes)
    diff = _Diff()
    for f, per_scope in wanted:
        t, evpk = f.event_us, pks[f.event_id]
        late_until = latest.get(ids[f.job]) if f.job else None
        late = late_until is not None and t < late_until
        for scope, want in per_scope.items():
            current = state.setdefault(scope, {}) if scope is not None else {}
            for key, (spec, attrs) in want.items():
                cur = current.get(key)
                if cur is not None and cur.attrs == attrs:
                    if late and cur.valid_from > t:
                        if cur.id is not None:
                            diff.starts.append({"b_id": cur.id, "b_t": t})
                        elif cur.row is not None:
                            cur.row[_FROM] = t
                        cur.valid_from = t
                    continue
                if late:
                    if cur is None:
                        assert late_until is not None
                        diff.open(spec, ids, attrs, scope, evpk, f.run_key, t, late_until)
                    continue
                if cur is not None:
                    diff.close(cur, t)
                current[key] = diff.open(spec, ids, attrs, scope, evpk, f.run_key, t)
            if not late and scope is not None:
                for key in [k for k, e in current.items() if k not in want and e.run_key != f.run_key]:
                    diff.close(current.pop(key), t)
        if f.job and not late:
            latest[ids[f.job]] = t
    contains = _contains(conn, todo, specs, ids)
    inserts = [e.row for e in diff.pending if e.row is not None] + contains
    insert_edges(conn, inserts)
    if diff.closes:
        conn.execute(
            update(edges).where(_E.id == bindparam("b_id")).values(valid_to=bindparam("b_t")),
            diff.closes,
        )
    if diff.starts:
        conn.execute(
            update(edges).where(_E.id == bindparam("b_id")).values(valid_from=bindparam("b_t")),
            diff.starts,
        )
    result.edges_opened = len(inserts)
    result.edges_closed = len(diff.closes)
    return result


def _contains(
    conn: Connection, todo: Sequence[Facts], specs: dict[NodeKey, NodeSpec], ids: dict[NodeKey, int]
) -> list[dict[str, Any]]:
    """CONTAINS rows for memberships of the batch that are not open yet."""
    first: dict[tuple[int, int], int] = {}
    kinds: dict[tuple[int, int], tuple[str, str]] = {}
    for f in todo:
        for k, s in f.nodes.items():
            if s.parent is not None:
                pair = (ids[s.parent], ids[k])
                if pair not in first or f.event_us < first[pair]:
                    first[pair] = f.event_us
                    kinds[pair] = (s.parent[0], k[0])
    if not first:
        return []
    by_parent = sorted({p for p, c in first if kinds[(p, c)][1] == NodeType.FIELD})
    by_child = sorted({c for p, c in first if kinds[(p, c)][1] != NodeType.FIELD})
    open_pairs: set[tuple[int, int]] = set()
    base = select(_E.src_id, _E.dst_id).where(_E.type == EdgeType.CONTAINS.value, _E.valid_to == OPEN)
    for part in chunks(by_parent):
        open_pairs.update(tuple(r) for r in conn.execute(base.where(_E.src_id.in_(part))))
    for part in chunks(by_child):
        open_pairs.update(tuple(r) for r in conn.execute(base.where(_E.dst_id.in_(part))))
    return [
        [EdgeType.CONTAINS.value, p, c, None, None, None, None, False, None, None, 1, 1, t, OPEN]
        for (p, c), t in first.items()
        if (p, c) not in open_pairs
    ]
