"""From what a user types (``orders``, ``db.orders.amount``, ``FIELD:internal.db.orders.amount``,
``#42``) to one node; and nodes by id, in bulk.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable

from sqlalchemy import Connection, or_, select

from headwater.store.errors import AmbiguousNode, NodeNotFound
from headwater.store.names import ident
from headwater.store.results import NodeInfo
from headwater.store.schema import nodes
from headwater.store.types import NodeType
from headwater.store.write import chunks

_N = nodes.c
_COLS = (_N.id, _N.type, _N.name, _N.short, _N.parent_id, _N.properties)


def _info(row: object, depth: int | None = None) -> NodeInfo:
    props = row.properties  # type: ignore[attr-defined]
    return NodeInfo(
        row.id,
        row.type,
        row.name,
        row.short,
        row.parent_id,
        depth,  # type: ignore[attr-defined]
        json.loads(props) if props else {},
    )


def normalise_ref(ref: str) -> str:
    """Lower case, quotes stripped from each dotted part.

    >>> normalise_ref('Lineage_Demo.`Orders`.Amount')
    'lineage_demo.orders.amount'
    """
    return ".".join(ident(p) for p in ref.strip().split("."))


def resolve(conn: Connection, ref: str | int, types: Collection[str] | None = None) -> NodeInfo:
    """The one node ``ref`` names: an id (int or ``#id``), ``TYPE:name``, a full name or a dotted
    suffix of one (``table``, ``table.column``, ``db.table``…). Raises ``NodeNotFound`` or
    ``AmbiguousNode``."""
    if isinstance(ref, int) or (isinstance(ref, str) and ref.startswith("#") and ref[1:].isdigit()):
        nid = int(ref) if isinstance(ref, int) else int(ref[1:])
        row = conn.execute(select(*_COLS).where(_N.id == nid)).first()
        if row is None or (types and row.type not in types):
            raise NodeNotFound(str(ref))
        return _info(row)
    text = ref.strip()
    head, sep, rest = text.partition(":")
    if sep and head.upper() in NodeType.__members__:
        rows = conn.execute(select(*_COLS).where(_N.type == head.upper(), _N.name == rest.strip().lower()))
        found = [_info(r) for r in rows]
        if found:
            return found[0]
        if head != "pipeline":
            raise NodeNotFound(ref)
        # 'pipeline:etl' is also the full name of the PIPELINE 'etl': looked up as a name below
    norm = normalise_ref(text)
    parts = norm.split(".")
    shorts = {parts[-1], ".".join(parts[-2:])}
    query = select(*_COLS).where(or_(_N.short.in_(sorted(shorts)), _N.name == norm))
    if types:
        query = query.where(_N.type.in_(sorted(types)))
    rows = [r for r in conn.execute(query) if r.name == norm or r.short == norm or r.name.endswith("." + norm)]
    exact = [r for r in rows if r.name == norm]
    pick = exact or rows
    if not pick:
        raise NodeNotFound(ref)
    if len(pick) > 1:
        raise AmbiguousNode(ref, sorted(f"{r.type}:{r.name}" for r in pick))
    return _info(pick[0])


def fetch_nodes(conn: Connection, ids: Iterable[int], depths: dict[int, int] | None = None) -> dict[int, NodeInfo]:
    """Nodes by id (missing ids are left out)."""
    out: dict[int, NodeInfo] = {}
    for part in chunks(sorted(set(ids))):
        for r in conn.execute(select(*_COLS).where(_N.id.in_(part))):
            out[r.id] = _info(r, depths.get(r.id) if depths else None)
    return out


def children(conn: Connection, parent: int, type_: str | None = None) -> list[NodeInfo]:
    q = select(*_COLS).where(_N.parent_id == parent)
    if type_:
        q = q.where(_N.type == type_)
    return [_info(r) for r in conn.execute(q.order_by(_N.name))]
