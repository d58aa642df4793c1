"""Other names of a node: the ``hw_aliases`` table (one row per name, indexed by name and short name).

A dataset and the names of its OpenLineage ``symlinks`` facet are one node (``from_openlineage``);
each name other than the node's own is a row here, written as a node of that name would be named
(``hive://metastore:9083.sales.region_summary``), so that resolving (``resolve``), the explorer's search
(``search``) and a Doris event's ``via`` view (``canonical``) find the node by it.

>>> from headwater.store import open_store
>>> store = open_store("sqlite://")
>>> with store.engine.begin() as conn:
...     _ = conn.execute(nodes.insert().values(id=7, type="DATASET", name="s3://b.x", short="x", created_us=0))
...     insert(conn, {7: ["hive://m.db.t"]})
...     canonical(conn, ["hive://m.db.t", "other.t"])
{'hive://m.db.t': ('DATASET', 's3://b.x')}
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, String, any_, bindparam, inspect, or_, select
from sqlalchemy.dialects.postgresql import ARRAY

from headwater.store.direct import rows
from headwater.store.engine import database_key
from headwater.store.facts import Facts, NodeKey, NodeSpec
from headwater.store.names import short_of
from headwater.store.schema import aliases, nodes
from headwater.store.write import chunks

_A = aliases.c
_N = nodes.c
_BY_NAMES = select(_A.name, _A.node_id).where(_A.name.in_(bindparam("names", expanding=True)))
_MATCHING = select(_A.name, _A.short, _A.node_id).where(
    or_(_A.short.in_(bindparam("shorts", expanding=True)), _A.name == bindparam("norm"))
)
# PostgreSQL: the short names as one array (one statement text, read on the cursor: ``direct.rows``)
_MATCHING_PG = select(_A.name, _A.short, _A.node_id).where(
    or_(_A.short == any_(bindparam("shorts", type_=ARRAY(String))), _A.name == bindparam("norm"))
)
_PRESENT: set[str] = set()


def present(conn: Connection) -> bool:
    """The store has ``hw_aliases`` (revision 0007): a store is upgraded when opened, but a
    ``LineageStore`` made on an older schema's engine still reads (remembered once true)."""
    key = database_key(conn)
    if key in _PRESENT:
        return True
    if inspect(conn).has_table(aliases.name):
        _PRESENT.add(key)
        return True
    return False


def insert(conn: Connection, wanted: Mapping[int, Iterable[str]]) -> None:
    """Give each node id its alias names (those not yet stored; a name another node holds stays its)."""
    held = {name: nid for nid, names in wanted.items() for name in names}
    if not held or not present(conn):
        return
    known = set(by_name(conn, held))
    new = [{"name": n, "short": short_of(n, field=False), "node_id": i} for n, i in held.items() if n not in known]
    if new:
        conn.execute(aliases.insert(), new)


def write(conn: Connection, todo: Sequence[Facts], ids: Mapping[NodeKey, int]) -> None:
    """Store the aliases the recordings ``todo`` give their nodes (``Facts.aliases``)."""
    wanted: dict[int, list[str]] = {}
    for f in todo:
        for key, names in (f.aliases or {}).items():
            wanted.setdefault(ids[key], []).extend(n for n in names if n != key[1])
    insert(conn, wanted)


def by_name(conn: Connection, names: Iterable[str]) -> dict[str, int]:
    """The node id of each of ``names`` that is an alias."""
    out: dict[str, int] = {}
    if not present(conn):
        return out
    for part in chunks(sorted(set(names))):
        out.update((n, i) for n, i in conn.execute(_BY_NAMES, {"names": list(part)}))
    return out


def canonical(conn: Connection, names: Collection[str]) -> dict[str, NodeKey]:
    """The node (type, name) each of ``names`` that is an alias names."""
    found = by_name(conn, names)
    if not found:
        return {}
    keys = {
        i: (t, n) for i, t, n in conn.execute(select(_N.id, _N.type, _N.name).where(_N.id.in_(set(found.values()))))
    }
    return {a: keys[i] for a, i in found.items() if i in keys}


def matching(conn: Connection, norm: str, shorts: Collection[str]) -> list[Any]:
    """Alias rows (name, short, node_id) that ``norm`` names: the whole name, its short name or a dotted
    suffix of it, as ``resolve`` reads a node name."""
    if not present(conn):
        return []
    stmt = _MATCHING_PG if conn.dialect.name == "postgresql" else _MATCHING
    found = rows(conn, stmt, {"shorts": sorted(shorts), "norm": norm})
    return [r for r in found if r.name == norm or r.short == norm or r.name.endswith("." + norm)]


def rekey(facts: Facts, to: Mapping[str, NodeKey]) -> None:
    """Make the datasets of ``facts`` whose names are aliases (``to``: alias → node) the nodes that hold
    them: their fields follow, and so do the edges; the alias's source system is left out unless
    something else names it. Specs are replaced, never changed (``Names`` shares them)."""
    moved: dict[NodeKey, NodeKey] = {}
    for key in facts.nodes:
        node = to.get(key[1]) if key[0] != "FIELD" else None
        if node is not None and node != key and node[0] == key[0]:
            moved[key] = node
    if not moved:
        return
    for key, spec in facts.nodes.items():
        if spec.parent in moved and key[0] == "FIELD":
            moved[key] = (key[0], moved[spec.parent][1] + key[1][len(spec.parent[1]) :])
    out: dict[NodeKey, NodeSpec] = {}
    for key, spec in facts.nodes.items():
        new = moved.get(key)
        if new is None:
            out.setdefault(key, spec)
            continue
        field = new[0] == "FIELD"
        before = out.get(new) or facts.nodes.get(new)
        props = {**((before.properties or {}) if before else {}), **(spec.properties or {})} or None
        parent = moved.get(spec.parent) if field and spec.parent else None  # a stored dataset keeps its system
        out[new] = NodeSpec(new[0], new[1], short_of(new[1], field=field), parent, props)
    facts.edges = [
        (e[0], moved.get(e[1], e[1]), moved.get(e[2], e[2]), *e[3:8], moved.get(e[8], e[8]) if e[8] else None)  # type: ignore[misc]
        for e in facts.edges
    ]
    if facts.job in moved:
        facts.job = moved[facts.job]
    used = {s.parent for s in out.values()} | {k for e in facts.edges for k in (e[1], e[2], e[8])}
    gone = {facts.nodes[k].parent for k in moved if k[0] != "FIELD"}
    facts.nodes = {k: s for k, s in out.items() if k not in gone or k in used}
