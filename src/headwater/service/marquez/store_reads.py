"""The store reads behind the Marquez endpoints: source systems, datasets, fields, process nodes and
their inputs and outputs, as set queries over the graph tables (current edges only)."""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, and_, func, select

from headwater.store.names import dataset_name, field_name
from headwater.store.schema import OPEN, edges, jobs, nodes
from headwater.store.types import EdgeType, NodeType
from headwater.store.write import chunks

PROCESS = (NodeType.JOB.value, NodeType.PIPELINE.value, NodeType.PIPELINE_STEP.value)
"""Node types Marquez sees as jobs."""
_N = nodes.c
_E = edges.c


@dataclass
class Node:
    """A node as the Marquez mapping needs it."""

    id: int
    type: str
    name: str
    parent_id: int | None
    created_us: int
    properties: dict[str, Any] = field(default_factory=dict)


def _props(text: str | None) -> dict[str, Any]:
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


_COLS = (_N.id, _N.type, _N.name, _N.parent_id, _N.created_us, _N.properties)


def _node(r: Any) -> Node:
    return Node(r.id, r.type, r.name, r.parent_id, r.created_us, _props(r.properties))


def by_ids(conn: Connection, ids: Iterable[int]) -> dict[int, Node]:
    out: dict[int, Node] = {}
    for part in chunks(sorted(set(ids))):
        out.update((r.id, _node(r)) for r in conn.execute(select(*_COLS).where(_N.id.in_(part))))
    return out


def systems(conn: Connection, ids: Collection[int] | None = None) -> dict[int, str]:
    """Source systems by id (all, or those of ``ids``)."""
    q = select(_N.id, _N.name).where(_N.type == NodeType.SOURCE_SYSTEM.value)
    if ids is None:
        return {r.id: r.name for r in conn.execute(q)}
    out: dict[int, str] = {}
    for part in chunks(sorted(set(ids))):
        out.update((r.id, r.name) for r in conn.execute(q.where(_N.id.in_(part))))
    return out


def dataset_systems(conn: Connection) -> dict[str, tuple[int, int]]:
    """Systems holding datasets: name → (first creation time, datasets)."""
    q = (
        select(_N.parent_id, func.min(_N.created_us), func.count())
        .where(_N.type == NodeType.DATASET.value, _N.parent_id.is_not(None))
        .group_by(_N.parent_id)
    )
    counts = {r[0]: (int(r[1]), int(r[2])) for r in conn.execute(q)}
    names = systems(conn, counts)
    return {names[i]: c for i, c in counts.items() if i in names}


def find_dataset(conn: Connection, namespace: str, name: str) -> Node | None:
    full = dataset_name(namespace, *name.split("."))
    row = conn.execute(select(*_COLS).where(_N.type == NodeType.DATASET.value, _N.name == full)).first()
    return _node(row) if row is not None else None


def find_field(conn: Connection, dataset: Node, column: str) -> Node | None:
    q = select(*_COLS).where(_N.type == NodeType.FIELD.value, _N.name == field_name(dataset.name, column))
    row = conn.execute(q).first()
    return _node(row) if row is not None else None


def datasets_in(conn: Connection, namespace: str, limit: int, offset: int) -> tuple[list[Node], int]:
    """The datasets of a source system, by name, one page of them, and how many there are."""
    sys_id = conn.execute(
        select(_N.id).where(_N.type == NodeType.SOURCE_SYSTEM.value, _N.name == dataset_name(namespace))
    ).scalar()
    if sys_id is None:
        return [], 0
    where = and_(_N.type == NodeType.DATASET.value, _N.parent_id == sys_id)
    total = int(conn.execute(select(func.count()).where(where)).scalar() or 0)
    rows = conn.execute(select(*_COLS).where(where).order_by(_N.name).limit(limit).offset(offset))
    return [_node(r) for r in rows], total


def fields_of(conn: Connection, dataset_ids: Collection[int]) -> dict[int, list[Node]]:
    """Each dataset's fields in the order they were first recorded."""
    out: dict[int, list[Node]] = {i: [] for i in dataset_ids}
    for part in chunks(sorted(set(dataset_ids))):
        q = select(*_COLS).where(_N.type == NodeType.FIELD.value, _N.parent_id.in_(part)).order_by(_N.id)
        for r in conn.execute(q):
            out[r.parent_id].append(_node(r))
    return out


def processes(conn: Connection) -> list[Node]:
    """Every job, pipeline and step."""
    return [_node(r) for r in conn.execute(select(*_COLS).where(_N.type.in_(PROCESS)).order_by(_N.name))]


def process_io(conn: Connection, ids: Collection[int]) -> dict[int, tuple[list[int], list[int]]]:
    """Each process's current input and output datasets (ids)."""
    out: dict[int, tuple[list[int], list[int]]] = {i: ([], []) for i in ids}
    for part in chunks(sorted(set(ids))):
        reads = select(_E.dst_id, _E.src_id).where(
            _E.type == EdgeType.READ.value, _E.dst_id.in_(part), _E.valid_to == OPEN
        )
        writes = select(_E.src_id, _E.dst_id).where(
            _E.type == EdgeType.WRITE.value, _E.src_id.in_(part), _E.valid_to == OPEN
        )
        for job, ds in conn.execute(reads):
            out[job][0].append(ds)
        for job, ds in conn.execute(writes):
            out[job][1].append(ds)
    return out


def last_writes(conn: Connection, dataset_ids: Collection[int]) -> dict[int, int]:
    """When each dataset's current writing edges began (the newest), where it has one."""
    out: dict[int, int] = {}
    for part in chunks(sorted(set(dataset_ids))):
        q = (
            select(_E.dst_id, func.max(_E.valid_from))
            .where(_E.type == EdgeType.WRITE.value, _E.dst_id.in_(part), _E.valid_to == OPEN)
            .group_by(_E.dst_id)
        )
        out.update((int(r[0]), int(r[1])) for r in conn.execute(q))
    return out


def job_times(conn: Connection, ids: Collection[int]) -> dict[int, tuple[int, int, str | None, int | None]]:
    """``hw_jobs`` of each job: first seen, last seen, project file and line."""
    out: dict[int, tuple[int, int, str | None, int | None]] = {}
    j = jobs.c
    for part in chunks(sorted(set(ids))):
        q = select(j.job_id, j.first_seen_us, j.last_seen_us, j.file, j.line).where(j.job_id.in_(part))
        out.update((r.job_id, (r.first_seen_us, r.last_seen_us, r.file, r.line)) for r in conn.execute(q))
    return out


def find_processes(conn: Connection, names: Collection[str]) -> list[Node]:
    """Process nodes with one of these full names."""
    q = select(*_COLS).where(_N.type.in_(PROCESS), _N.name.in_(sorted(set(names))))
    return [_node(r) for r in conn.execute(q)]
