"""The order in which a project's files run: a table is written before it is read.

Each file's statements are read for the tables they create or write and the tables they read
(CTE names and each statement's own target excluded); a file runs after every other file that
writes a table it reads, as dbt orders models. Name order breaks ties. The files are grouped in
strongly connected components: the files of a cycle (files that read tables one another writes) are
reported and run in name order among themselves; every other file keeps its dependency order, those
after a cycle included.

>>> from headwater.extract.split import split_script
>>> files = {"b.sql": "CREATE TABLE m.x AS SELECT * FROM s.y", "a.sql": "INSERT INTO r.z SELECT * FROM m.x"}
>>> o = order_files({k: split_script(v, "spark") for k, v in files.items()}, "spark")
>>> o.order, o.cycle
(['b.sql', 'a.sql'], None)
>>> o = order_files({"a.sql": split_script("INSERT INTO t1 SELECT * FROM t2", "spark"),
...                  "b.sql": split_script("INSERT INTO t2 SELECT * FROM t1", "spark")}, "spark")
>>> o.order, o.cycle
(['a.sql', 'b.sql'], ['a.sql', 'b.sql'])
>>> files = {"a.sql": "INSERT INTO t3 SELECT * FROM t1", "b.sql": "INSERT INTO t1 SELECT * FROM t2",
...          "c.sql": "INSERT INTO t2 SELECT * FROM t1"}
>>> o = order_files({k: split_script(v, "spark") for k, v in files.items()}, "spark")
>>> o.order, o.cycle
(['b.sql', 'c.sql', 'a.sql'], ['b.sql', 'c.sql'])
"""

from __future__ import annotations

import heapq
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from sqlglot import exp

from headwater.catalog import LayeredCatalog, Names
from headwater.extract.ddl import Session, apply_statement, table_ref
from headwater.extract.split import Piece, sqlglot_dialect
from headwater.model import TableRef
from headwater.project.files import ProjectFile


@dataclass(frozen=True, slots=True)
class FileOrder:
    """The files in running order; ``cycle``: the files inside a cycle (they run in name order among
    themselves), ``None`` when there is none."""

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
        session = Session(catalog, names.dataset_ident(database) if database else None)
        writes[f], reads[f] = tables_of(files[f], names, session)
    after: dict[str, set[str]] = {f: set() for f in by_name}  # f runs after these
    for f in by_name:
        for g in by_name:
            if g != f and writes[g] & reads[f]:
                after[f].add(g)
    return run_order(by_name, after)


def run_order(names: Sequence[str], after: Mapping[str, Collection[str]]) -> FileOrder:
    """``names`` in an order where each runs after those ``after`` lists for it (name order breaks
    ties). The names of a cycle (a strongly connected component of more than one name) run together
    in name order, where the first of them would run, and are reported; a name's own entry in
    ``after`` is no dependency.

    >>> run_order(["b", "a", "c"], {"a": {"c"}})
    FileOrder(order=['b', 'c', 'a'], cycle=None)
    >>> run_order(["a", "b"], {"a": {"b"}, "b": {"a"}})
    FileOrder(order=['a', 'b'], cycle=['a', 'b'])
    >>> run_order(["a", "x", "y", "z"], {"a": {"z"}, "x": {"y"}, "y": {"x"}, "z": {"y"}})
    FileOrder(order=['x', 'y', 'z', 'a'], cycle=['x', 'y'])
    """
    by_name = sorted(set(names))
    deps = {f: sorted(set(after.get(f, ())) & set(by_name) - {f}) for f in by_name}
    parts = strong_components(by_name, deps)
    part_of = {f: k for k, part in enumerate(parts) for f in part}
    waiting = [0] * len(parts)
    readers: list[set[int]] = [set() for _ in parts]
    for f in by_name:
        for g in deps[f]:
            a, b = part_of[f], part_of[g]
            if a != b and a not in readers[b]:
                readers[b].add(a)
                waiting[a] += 1
    ready = [(part[0], k) for k, part in enumerate(parts) if not waiting[k]]
    heapq.heapify(ready)
    order: list[str] = []
    while ready:
        _, k = heapq.heappop(ready)
        order.extend(parts[k])
        for r in readers[k]:
            waiting[r] -= 1
            if not waiting[r]:
                heapq.heappush(ready, (parts[r][0], r))
    cycle = sorted(f for part in parts if len(part) > 1 for f in part)
    return FileOrder(order, cycle or None)


def strong_components(nodes: Sequence[str], deps: Mapping[str, Sequence[str]]) -> list[list[str]]:
    """The strongly connected components of the graph ``node → deps[node]`` (Tarjan's algorithm,
    iterative: no recursion limit on a long chain), each in name order.

    >>> strong_components(["a", "b", "c"], {"a": ["b"], "b": ["a"], "c": ["a"]})
    [['a', 'b'], ['c']]
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    parts: list[list[str]] = []
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(deps.get(root, ())))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(deps.get(child, ()))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                part = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    part.append(member)
                    if member == node:
                        break
                parts.append(sorted(part))
    return parts


def sort_into_order(
    project: list[tuple[ProjectFile, str, Sequence[Piece]]],
    dialect: str,
    database: str | None = None,
    catalog: str = "internal",
) -> str | None:
    """Sort ``project`` (each file, its text and its statements) into running order (``order_files``),
    in place; the warning to give when files read tables one another writes (a cycle), else None."""
    ordered = order_files({pf.relpath: pieces for pf, _, pieces in project}, dialect, database, catalog)
    rank = {name: k for k, name in enumerate(ordered.order)}
    project.sort(key=lambda item: rank[item[0].relpath])
    if not ordered.cycle:
        return None
    return f"the files {', '.join(ordered.cycle)} read tables one another writes (a cycle): they run in name order"
