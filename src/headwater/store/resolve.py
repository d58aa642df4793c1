"""From what a user types (``orders``, ``db.orders.amount``, ``FIELD:internal.db.orders.amount``,
``#42``) to one node; and nodes by id, in bulk.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Iterator
from typing import Any

from sqlalchemy import BigInteger, Connection, String, any_, bindparam, or_, select
from sqlalchemy.dialects.postgresql import ARRAY

from headwater.store import aliases
from headwater.store.direct import rows
from headwater.store.errors import AmbiguousNode, NameTooLong, NodeNotFound
from headwater.store.names import parse_name, split_name
from headwater.store.results import NodeInfo
from headwater.store.schema import nodes
from headwater.store.types import NodeType
from headwater.store.write import chunks

_N = nodes.c
REF_MAX = 2 * nodes.c.name.type.length
"""Characters a node reference may hold: twice a name's (room for quotes and a ``TYPE:``); a longer one
names no node and is refused before any query (``NameTooLong``)."""
_COLS = (_N.id, _N.type, _N.name, _N.short, _N.parent_id, _N.properties)
# the statements of every request, built (and their cache keys computed) once
_BY_ID = select(*_COLS).where(_N.id == bindparam("nid"))
_BY_IDS = select(*_COLS).where(_N.id.in_(bindparam("ids", expanding=True)))
_TYPES_BY_IDS = select(_N.id, _N.type).where(_N.id.in_(bindparam("ids", expanding=True)))
# PostgreSQL: one array parameter, so one statement text (prepared once) for any number of ids
_IDS_ARRAY = any_(bindparam("ids", type_=ARRAY(BigInteger)))
_BY_IDS_PG = select(*_COLS).where(_N.id == _IDS_ARRAY)
_TYPES_BY_IDS_PG = select(_N.id, _N.type).where(_N.id == _IDS_ARRAY)


def _by_ids(conn: Connection, generic: Any, array: Any, ids: Iterable[int]) -> Iterator[Any]:
    """Rows of ``generic`` (``IN`` an expanding list, in chunks) or, on PostgreSQL, of ``array``
    (``= ANY`` one array): the same rows either way."""
    wanted = sorted(set(ids))
    if conn.dialect.name == "postgresql":
        if wanted:
            yield from rows(conn, array, {"ids": wanted})
        return
    for part in chunks(wanted):
        yield from conn.execute(generic, {"ids": part})


_BY_NAME = select(*_COLS).where(or_(_N.short.in_(bindparam("shorts", expanding=True)), _N.name == bindparam("norm")))
_BY_NAME_OF_TYPES = _BY_NAME.where(_N.type.in_(bindparam("types", expanding=True)))
# PostgreSQL: the lists as arrays, one statement text whatever their lengths
_TEXTS = ARRAY(String)
_SHORTS_ANY = any_(bindparam("shorts", type_=_TEXTS))
_BY_NAME_PG = select(*_COLS).where(or_(_N.short == _SHORTS_ANY, _N.name == bindparam("norm")))
_BY_NAME_OF_TYPES_PG = _BY_NAME_PG.where(_N.type == any_(bindparam("types", type_=_TEXTS)))


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
    """Lower case; a part in quotes is one identifier, written as the store writes it (``names.parse_name``).

    >>> normalise_ref('Lineage_Demo.`Orders`.Amount'), normalise_ref('db."A.b".col'), normalise_ref("db.`[/x]`")
    ('lineage_demo.orders.amount', 'db."a.b".col', 'db."[/x]"')
    """
    return parse_name(ref)


def resolve(conn: Connection, ref: str | int, types: Collection[str] | None = None) -> NodeInfo:
    """The one node ``ref`` names: an id (int or ``#id``), ``TYPE:name``, a full name or a dotted
    suffix of one (``table``, ``table.column``, ``db.table``…). Raises ``NodeNotFound`` or
    ``AmbiguousNode``."""
    if isinstance(ref, int) or (isinstance(ref, str) and ref.startswith("#") and ref[1:].isdigit()):
        nid = int(ref) if isinstance(ref, int) else int(ref[1:])
        found_id = rows(conn, _BY_ID, {"nid": nid})
        row = found_id[0] if found_id else None
        if row is None or (types and row.type not in types):
            raise NodeNotFound(str(ref))
        return _info(row)
    text = ref.strip()
    if len(text) > REF_MAX:
        raise NameTooLong("node", f"a name of {len(text)} characters: node names are at most {_N.name.type.length}")
    head, sep, rest = text.partition(":")
    if sep and head.upper() in NodeType.__members__:
        typed = conn.execute(select(*_COLS).where(_N.type == head.upper(), _N.name == rest.strip().lower()))
        found = [_info(r) for r in typed]
        if found:
            return found[0]
        if head != "pipeline":
            raise NodeNotFound(ref)
        # 'pipeline:etl' is also the full name of the PIPELINE 'etl': looked up as a name below
    norm = normalise_ref(text)
    parts = split_name(norm)
    shorts = {parts[-1], ".".join(parts[-2:])}
    pg = conn.dialect.name == "postgresql"
    if types:
        query, bound = (_BY_NAME_OF_TYPES_PG if pg else _BY_NAME_OF_TYPES), {"types": sorted(types)}
    else:
        query, bound = (_BY_NAME_PG if pg else _BY_NAME), {}
    bound.update(shorts=sorted(shorts), norm=norm)
    named = [r for r in rows(conn, query, bound) if r.name == norm or r.short == norm or r.name.endswith("." + norm)]
    exact = [r for r in named if r.name == norm]
    exact_alias: list = []
    if not types or NodeType.DATASET in types:  # a dataset's other names (a symlink's) name it too
        by_alias, exact_alias = _by_alias(conn, norm, shorts, types)
        named += [r for r in by_alias if r.id not in {n.id for n in named}]
    pick = exact or exact_alias or named  # a node's own whole name first, then a whole alias
    if not pick and len(parts) > 1 and (not types or NodeType.FIELD in types):
        pick = _alias_field(conn, parts)
    if not pick and len(parts) == 1 and (not types or NodeType.FIELD in types):
        pick = _by_last_part(conn, norm, types)  # a bare column name: every column of that name
    if not pick:
        hint = _other_types(conn, norm, shorts, types) if types else None
        if hint is None and len(parts) > 1 and (not types or NodeType.FIELD in types):
            hint = _missing_column(conn, parts)
        raise NodeNotFound(ref, hint)
    if len(pick) > 1:
        raise AmbiguousNode(ref, sorted(f"{r.type}:{r.name}" for r in pick))
    return _info(pick[0])


_CANDIDATES = 50


def _by_alias(conn: Connection, norm: str, shorts: set[str], types: Collection[str] | None) -> tuple[list, list]:
    """The datasets ``norm`` names by one of their other names (``aliases.py``) or a dotted suffix of
    one: (all of them, those named by a whole alias)."""
    found: dict[int, bool] = {}  # node id -> named by a whole alias
    for a in aliases.matching(conn, norm, shorts):
        found[a.node_id] = found.get(a.node_id, False) or a.name == norm
    if not found:
        return [], []
    infos = [r for r in _by_ids(conn, _BY_IDS, _BY_IDS_PG, found) if not types or r.type in types]
    return infos, [r for r in infos if found[r.id]]


def _alias_field(conn: Connection, parts: list[str]) -> list:
    """The fields ``parts`` names as a dataset's other name (or a dotted suffix of one) and a column."""
    table = parts[:-1]
    found = {
        a.node_id: a.name == ".".join(table)
        for a in aliases.matching(conn, ".".join(table), {table[-1], ".".join(table[-2:])})
    }
    if not found:
        return []
    datasets = {r.name: found[r.id] for r in _by_ids(conn, _BY_IDS, _BY_IDS_PG, found)}
    names = sorted(f"{d}.{parts[-1]}" for d in datasets)
    q = select(*_COLS).where(_N.name.in_(names), _N.type == NodeType.FIELD.value)
    hits = list(conn.execute(q))
    exact = [r for r in hits if datasets.get(r.name[: -len(parts[-1]) - 1])]
    return exact or hits


def _by_last_part(conn: Connection, part: str, types: Collection[str] | None) -> list:
    """Nodes whose name ends in ``.part`` (a column named without its table)."""
    escaped = part.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    query = select(*_COLS).where(_N.name.like(f"%.{escaped}", escape="\\"), _N.type == NodeType.FIELD.value)
    if types:
        query = query.where(_N.type.in_(sorted(types)))
    return [r for r in conn.execute(query.limit(_CANDIDATES + 1)) if r.name.endswith("." + part)]


def _missing_column(conn: Connection, parts: list[str]) -> str | None:
    """For ``table.column`` where the table exists and has no such column: its columns, the closest first."""
    import difflib

    table = ".".join(parts[:-1])
    shorts = {parts[-2], ".".join(parts[-3:-1])} if len(parts) > 2 else {table}
    query = select(*_COLS).where(_N.type == NodeType.DATASET.value, or_(_N.short.in_(sorted(shorts)), _N.name == table))
    found = [r for r in conn.execute(query.limit(_CANDIDATES)) if r.name == table or r.name.endswith("." + table)]
    if len(found) != 1:
        return None
    columns = sorted(split_name(c.name)[-1] for c in children(conn, found[0].id, NodeType.FIELD.value))
    if not columns:
        return None
    close = difflib.get_close_matches(parts[-1], columns, n=1)
    guess = f"did you mean {table}.{close[0]}? " if close else ""
    more = ", …" if len(columns) > 20 else ""
    return f"{guess}the table {found[0].name} has no column {parts[-1]!r}; its columns: {', '.join(columns[:20])}{more}"


def _other_types(conn: Connection, norm: str, shorts: set[str], types: Collection[str]) -> str | None:
    """What ``norm`` names when it is no node of ``types`` (a table given where a column is asked)."""
    query = select(*_COLS).where(or_(_N.short.in_(sorted(shorts)), _N.name == norm)).limit(_CANDIDATES)
    found = [r for r in conn.execute(query) if r.name == norm or r.short == norm or r.name.endswith("." + norm)]
    if not found:
        return None
    wanted = " or ".join(sorted(types))
    what = ", ".join(f"{r.type}:{r.name}" for r in found[:5])
    hint = f"it is {what}, not a {wanted}"
    if NodeType.FIELD in types and all(r.type == NodeType.DATASET for r in found[:1]):
        columns = [split_name(c.name)[-1] for c in children(conn, found[0].id, NodeType.FIELD.value)]
        if columns:
            more = ", …" if len(columns) > 8 else ""
            hint += f"; give one of its columns ({norm}.{columns[0]}; columns: {', '.join(columns[:8])}{more})"
    return hint


def fetch_nodes(conn: Connection, ids: Iterable[int], depths: dict[int, int] | None = None) -> dict[int, NodeInfo]:
    """Nodes by id (missing ids are left out)."""
    out: dict[int, NodeInfo] = {}
    for r in _by_ids(conn, _BY_IDS, _BY_IDS_PG, ids):
        out[r.id] = _info(r, depths.get(r.id) if depths else None)
    return out


def node_types(conn: Connection, ids: Iterable[int]) -> dict[int, str]:
    """The type of each node by id (missing ids are left out): ``fetch_nodes`` without the names and
    properties, for counts."""
    return {i: t for i, t in _by_ids(conn, _TYPES_BY_IDS, _TYPES_BY_IDS_PG, ids)}


def children(conn: Connection, parent: int, type_: str | None = None) -> list[NodeInfo]:
    q = select(*_COLS).where(_N.parent_id == parent)
    if type_:
        q = q.where(_N.type == type_)
    return [_info(r) for r in conn.execute(q.order_by(_N.name))]
