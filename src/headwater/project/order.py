"""The order in which a project's files run: a table is written before it is read.

Each file's statements are read for the tables they create or write and the tables they read
(CTE names and each statement's own target excluded); a file runs after every other file that
writes a table it reads, as dbt orders models. Name order breaks ties. A cycle is reported, and
the files then run in name order.

>>> from headwater.extract.split import split_script
>>> files = {"b.sql": "CREATE TABLE m.x AS SELECT * FROM s.y", "a.sql": "INSERT INTO r.z SELECT * FROM m.x"}
>>> o = order_files({k: split_script(v, "spark") for k, v in files.items()}, "spark")
>>> o.order, o.cycle
(['b.sql', 'a.sql'], None)
>>> o = order_files({"a.sql": split_script("INSERT INTO t1 SELECT * FROM t2", "spark"),
...                  "b.sql": split_script("INSERT INTO t2 SELECT * FROM t1", "spark")}, "spark")
>>> o.order, o.cycle
(['a.sql', 'b.sql'], ['a.sql', 'b.sql'])
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sqlglot import exp

from headwater.catalog import LayeredCatalog, Names
from headwater.extract.ddl import Session, apply_statement, table_ref
from headwater.extract.split import Piece, sqlglot_dialect
from headwater.model import TableRef


@dataclass(frozen=True, slots=True)
class FileOrder:
    """The files in running order; ``cycle``: the files a cycle held back (those in it and those after
    it); then the order is name order."""

    order: list[str]
    cycle: list[str] | None = None


def _targets(tree: exp.Expression) -> list[exp.Table]:
    out = []
    for node in [tree, *tree.find_all(exp.Insert)]:
        if isinstance(node, exp.Create | exp.Insert):
            target = node.this.this if isinstance(node.this, exp.Schema) else node.this
            if isinstance(target, exp.Table):
                out.append(target)
    return out


def tables_of(pieces: Sequence[Piece], names: Names, session: Session) -> tuple[set[TableRef], set[TableRef]]:
    """(written or created, read) by the statements of one file."""
    written: set[TableRef] = set()
    read: set[TableRef] = set()
    for piece in pieces:
        tree = piece.tree
        if tree is None:
            continue
        if isinstance(tree, exp.Use):
            apply_statement(tree, LayeredCatalog(), names, session)
            continue
        targets = _targets(tree)
        own = {id(t) for t in targets}
        written.update(table_ref(t, names, session) for t in targets)
        ctes = {names.table_ident(c.alias_or_name) for c in tree.find_all(exp.CTE)}
        for t in tree.find_all(exp.Table):
            if id(t) in own or not isinstance(t.this, exp.Identifier):
                continue
            if not t.args.get("db") and names.table_ident(t.this) in ctes:
                continue
            read.add(table_ref(t, names, session))
    return written, read


def order_files(
    files: Mapping[str, Sequence[Piece]], dialect: str, database: str | None = None, catalog: str = "internal"
) -> FileOrder:
    """Order ``files`` (relative path → its statements, as ``split_script`` makes them)."""
    names = Names.for_dialect(sqlglot_dialect(dialect))
    by_name = sorted(files)
    writes: dict[str, set[TableRef]] = {}
    reads: dict[str, set[TableRef]] = {}
    for f in by_name:
        session = Session(catalog, names.table_ident(database) if database else None)
        writes[f], reads[f] = tables_of(files[f], names, session)
    after: dict[str, set[str]] = {f: set() for f in by_name}  # f runs after these
    for f in by_name:
        for g in by_name:
            if g != f and writes[g] & reads[f]:
                after[f].add(g)
    waiting = {f: len(after[f]) for f in by_name}
    ready = [f for f in by_name if not waiting[f]]
    heapq.heapify(ready)
    order: list[str] = []
    while ready:
        f = heapq.heappop(ready)
        order.append(f)
        for g in by_name:
            if f in after[g]:
                waiting[g] -= 1
                if not waiting[g]:
                    heapq.heappush(ready, g)
    if len(order) < len(by_name):
        return FileOrder(by_name, [f for f in by_name if f not in order])
    return FileOrder(order)
