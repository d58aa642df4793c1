"""Node properties: recordings keep them current, a project states more of them.

Node properties follow the recordings: a job's are those of its latest statement, a dataset's
gather what every recording said of it.

A node is inserted with the properties of the first recording that names it. A later recording
changes them: a job node's ``sql`` and ``source_command`` become those of the job's newest event (a
new version; an older event recorded late changes nothing, and ``job_history`` keeps every
version's SQL), and a dataset's properties gain what the recording says (a dataset first seen as a
table that a ``CREATE VIEW`` then defines becomes a ``VIEW``; a DDL's columns are replaced by the
newer DDL's).

Properties that a project states about nodes the store has (a dbt model's description, tags,
owner, layer), merged into those nodes: the keys under a prefix (``dbt.``) are replaced as a whole,
so a description removed from the project leaves the node; other keys are kept (``dataset_type``).
Nodes the store does not have are left out: properties describe lineage, they make none.

>>> from headwater.store import open_store
>>> from headwater.dispatch.sample import tiny_event
>>> store = open_store("sqlite://")
>>> _ = store.record(tiny_event("q1"))
>>> updates = {("DATASET", "internal.db.t"): {"dbt.layer": "marts"}, ("DATASET", "x.y"): {"a": "b"}}
>>> with store.engine.begin() as conn:
...     set_properties(conn, updates, "dbt.")
1
>>> store.resolve("internal.db.t").properties["dbt.layer"]
'marts'
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, select

from headwater.model import TableRef
from headwater.store.facts import Facts, NodeKey, NodeSpec
from headwater.store.names import dataset_name, field_name
from headwater.store.schema import nodes
from headwater.store.types import PROCESS_TYPES, NodeType
from headwater.store.write import _executemany, _in, sorted_json

_N = nodes.c
DBT_PREFIX = "dbt."
PROJECT_PREFIXES = (DBT_PREFIX,)  # keys a project states (``set_properties``), not a recording


def update_properties(
    conn: Connection,
    todo: Sequence[Facts],
    ids: dict[NodeKey, int],
    latest: dict[int, int],
    written: Mapping[int, str | None] | None = None,
    propped: Mapping[int, Sequence[tuple[NodeKey, NodeSpec]]] | None = None,
) -> None:
    """Write the properties the recordings ``todo`` (in time order) give their nodes, where they differ
    from the stored ones. ``latest``: each stored job's newest event time before this batch;
    ``written``: the stored properties of nodes this transaction inserted (not read again);
    ``propped``: the nodes with properties of each recording, by its ``id()`` (``write._mentions``),
    if known."""
    wanted: dict[int, tuple[bool, dict[str, Any]]] = {}  # node id -> (replace?, properties)
    for f in todo:
        for key, spec in propped.get(id(f), ()) if propped is not None else f.nodes.items():
            if not spec.properties:
                continue
            nid = ids[key]
            if key[0] in PROCESS_TYPES:
                if key != f.job or f.event_us < latest.get(nid, f.event_us):
                    continue  # another job's mention, or an older version recorded late
                wanted[nid] = (True, spec.properties)
            else:
                wanted[nid] = (False, {**wanted.get(nid, (False, {}))[1], **spec.properties})
    if not wanted:
        return
    written = written or {}
    stored: dict[int, str | None] = {nid: written[nid] for nid in wanted if nid in written}
    unread = sorted(nid for nid in wanted if nid not in written)
    if unread:
        stored.update(_in(conn, f"SELECT id, properties FROM {nodes.name} WHERE id IN ({{}})", unread))
    changes = []
    for nid, (whole, props) in wanted.items():
        before = stored.get(nid)
        old = json.loads(before) if before else {}
        # a new version's own properties (with what a project stated of the job), or more of them
        kept = {k: v for k, v in old.items() if k.startswith(PROJECT_PREFIXES)} if whole else old
        merged = kept | props
        text = sorted_json(merged)
        if text != before:
            changes.append({"nid": nid, "props": text})
    _write(conn, changes)


def dataset_key(table: TableRef) -> NodeKey:
    """The key of a table's dataset node (as ``from_event`` names it)."""
    return (NodeType.DATASET.value, dataset_name(table.catalog, table.database, table.name))


def field_key(table: TableRef, column: str) -> NodeKey:
    return (NodeType.FIELD.value, field_name(dataset_key(table)[1], column))


def job_key(name: str) -> NodeKey:
    """The key of a job node that a producer named ``name`` (``headwater.job``)."""
    return (NodeType.JOB.value, f"job:{name}")


def set_properties(conn: Connection, updates: Mapping[NodeKey, Mapping[str, str]], prefix: str) -> int:
    """Merge ``updates`` into the nodes' properties (keys starting with ``prefix`` replaced); returns
    how many nodes changed."""
    by_name: dict[str, list[NodeKey]] = {}
    for key in updates:
        by_name.setdefault(key[1], []).append(key)
    names = sorted(by_name)
    changed: list[dict[str, object]] = []
    for start in range(0, len(names), 500):
        part = names[start : start + 500]
        rows = conn.execute(select(_N.id, _N.type, _N.name, _N.properties).where(_N.name.in_(part))).all()
        for nid, typ, name, raw in rows:
            new = updates.get((typ, name))
            if new is None:
                continue
            old = json.loads(raw) if raw else {}
            merged = {k: v for k, v in old.items() if not k.startswith(prefix)} | dict(new)
            if merged != old:
                changed.append({"nid": nid, "props": json.dumps(merged, sort_keys=True) if merged else None})
    _write(conn, changed)
    return len(changed)


def _write(conn: Connection, changes: list[dict[str, Any]]) -> None:
    """Store each change's ``props`` (JSON text or None) on node ``nid`` (one ``executemany`` on the
    DBAPI cursor)."""
    if changes:
        mark = "%s" if conn.dialect.name == "postgresql" else "?"
        sql = f"UPDATE {nodes.name} SET properties = {mark} WHERE id = {mark}"
        _executemany(conn, sql, [(c["props"], c["nid"]) for c in changes])
