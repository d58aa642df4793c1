"""Properties that a project states about nodes the store has (a dbt model's description, tags,
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
from collections.abc import Mapping

from sqlalchemy import Connection, bindparam, select, update

from headwater.model import TableRef
from headwater.store.facts import NodeKey
from headwater.store.names import dataset_name, field_name
from headwater.store.schema import nodes
from headwater.store.types import NodeType

_N = nodes.c


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
    if changed:
        conn.execute(update(nodes).where(_N.id == bindparam("nid")).values(properties=bindparam("props")), changed)
    return len(changed)
