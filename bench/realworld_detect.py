"""Mechanical detectors of silently wrong lineage, for ``bench/realworld.py``.

Each reads the statement's SQL again (sqlglot) beside the event headwater made of it, and reports
an answer that the SQL shows to be wrong, whatever the event's status says:

- ``a`` a source column named like a select-list alias of a SELECT that uses the alias in GROUP BY,
  HAVING, QUALIFY or ORDER BY, where no column of that name is read from that table anywhere in the
  statement (the alias leaked as a column);
- ``b`` a field of an UNNEST element (``m.f`` for ``UNNEST(t.arr) AS m``, or a field of the array's
  STRUCT in the catalog) attributed to a table as a column of its own;
- ``c`` a named window (``WINDOW w AS (PARTITION BY … ORDER BY …)``) used by ``OVER w`` whose keys
  are not in the event's WINDOW lineage;
- ``d`` a source column absent from a table whose columns are known (the catalog, and the tables the
  project itself created).

A hit counts as on a COMPLETE event when the event's status is COMPLETE: the promise it breaks.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

import sqlglot
from sqlglot import exp

from headwater.catalog import Catalog
from headwater.extract.split import sqlglot_dialect
from headwater.model import ColumnRef, IndirectType, LineageInfo, Status

DETECTORS = {
    "a": "select alias read as a source column",
    "b": "UNNEST element field bound to a table",
    "c": "named WINDOW keys missing from WINDOW lineage",
    "d": "column absent from a table with known columns",
}


@dataclass(frozen=True)
class Hit:
    detector: str
    path: str
    what: str
    complete: bool


@lru_cache(maxsize=64)
def parse(sql: str, dialect: str) -> exp.Expression | None:
    try:
        return sqlglot.parse_one(sql, read=sqlglot_dialect(dialect))
    except Exception:  # a statement sqlglot cannot read: nothing to check
        return None


def top(column: str) -> str:
    """The column of a field path (``asset.id`` → ``asset``), lower case."""
    return column.split(".", 1)[0].lower()


def sources(event: LineageInfo) -> Iterator[ColumnRef]:
    seen: set[ColumnRef] = set()
    for d in event.direct:
        for c in d.sources:
            if c not in seen:
                seen.add(c)
                yield c
    for i in (*event.dataset_indirect, *event.output_indirect):
        for c in i.sources:
            if c not in seen:
                seen.add(c)
                yield c


def from_tables(select: exp.Select) -> set[str]:
    """The names (lower case) of the tables a SELECT's own FROM and JOINs name."""
    out = set()
    nodes = [select.args.get("from_") or select.args.get("from"), *(select.args.get("joins") or [])]
    for node in nodes:
        rel = node.this if node is not None else None
        if isinstance(rel, exp.Table) and isinstance(rel.this, exp.Identifier):
            out.add(rel.name.lower())
    return out


def enclosing_select(node: exp.Expression) -> exp.Select | None:
    s = node.find_ancestor(exp.Select)
    return s if isinstance(s, exp.Select) else None


def known_types(catalog: Catalog | None, ref: ColumnRef) -> dict[str, str | None] | None:
    """The table's columns (lower case) and their types, when the catalog knows them."""
    if catalog is None:
        return None
    try:
        schema = catalog.table(ref.table)
    except Exception:  # a catalog that cannot answer: unknown
        return None
    if schema is None or not schema.columns:
        return None
    return {c.name.lower(): c.type for c in schema.columns}


def known_columns(catalog: Catalog | None, ref: ColumnRef) -> set[str] | None:
    types = known_types(catalog, ref)
    return None if types is None else set(types)


def read_from(tree: exp.Expression, name: str, table: str, skip: set[int]) -> bool:
    """Whether a column ``name`` is read, other than by the nodes in ``skip``, in a SELECT whose FROM
    names ``table`` (or qualified by it)."""
    for col in tree.find_all(exp.Column):
        if id(col) in skip or col.name.lower() != name:
            continue
        if col.table and col.table.lower() == table:
            return True
        s = enclosing_select(col)
        if s is not None and table in from_tables(s):
            return True
        if s is None:  # outside any SELECT (an UPDATE's SET, a MERGE): be generous
            return True
    return False


def alias_leaks(tree: exp.Expression) -> tuple[dict[str, int], set[int]]:
    """Select aliases used unqualified in GROUP BY / HAVING / QUALIFY / ORDER BY of their SELECT
    (whose expression reads no column of the same name), and the ids of those uses."""
    names: dict[str, int] = {}
    uses: set[int] = set()
    for select in tree.find_all(exp.Select):
        aliases = set()
        for proj in select.expressions:
            if isinstance(proj, exp.Alias) and not isinstance(proj.this, exp.Column):
                a = proj.alias.lower()
                if a not in {c.name.lower() for c in proj.this.find_all(exp.Column)}:
                    aliases.add(a)
        if not aliases:
            continue
        for key in ("group", "having", "qualify", "order"):
            clause = select.args.get(key)
            if clause is None:
                continue
            for col in clause.find_all(exp.Column):
                if not col.table and col.name.lower() in aliases and enclosing_select(col) is select:
                    names[col.name.lower()] = names.get(col.name.lower(), 0) + 1
                    uses.add(id(col))
    return names, uses


_FIELD = re.compile(r"[<,]\s*`?(\w+)`?\s")


def struct_fields(type_text: str | None) -> set[str]:
    """The field names of an ``ARRAY<STRUCT<…>>`` type (every level, lower case)."""
    if not type_text or "STRUCT<" not in type_text.upper():
        return set()
    inner = type_text[type_text.upper().index("STRUCT<") + 6 :]
    return {m.group(1).lower() for m in _FIELD.finditer(inner)}


def unnest_fields(tree: exp.Expression) -> tuple[dict[str, str], set[int]]:
    """Fields of UNNEST elements: field name → the array it comes from; and the ids of the columns
    that name them as ``alias.field``."""
    fields: dict[str, str] = {}
    uses: set[int] = set()
    for un in tree.find_all(exp.Unnest):
        alias = un.args.get("alias")
        names = set()
        if isinstance(alias, exp.TableAlias):
            if alias.name:
                names.add(alias.name.lower())
            names.update(c.name.lower() for c in alias.columns)
        arr = un.expressions[0] if un.expressions else None
        arr_text = arr.sql() if arr is not None else "?"
        if names:
            for col in tree.find_all(exp.Column):
                if col.table and col.table.lower() in names and not col.args.get("db"):
                    fields.setdefault(col.name.lower(), arr_text)
                    uses.add(id(col))
    return fields, uses


def named_window_keys(tree: exp.Expression) -> list[tuple[str, set[str]]]:
    """(window name, its key column names) for each named window an ``OVER`` uses (once each)."""
    out = []
    for select in tree.find_all(exp.Select):
        defs = {}
        for w in select.args.get("windows") or []:
            keys = {c.name.lower() for c in w.find_all(exp.Column)}
            defs[w.name.lower()] = keys
        if not defs:
            continue
        for proj in select.expressions:
            for win in proj.find_all(exp.Window):
                ref = win.args.get("alias")
                keys = defs.get(ref.name.lower()) if isinstance(ref, exp.Identifier) else None
                if keys and (ref.name, keys) not in out:
                    out.append((ref.name, keys))
    return out


def detect(sql: str, dialect: str, event: LineageInfo, catalog: Catalog | None, path: str) -> list[Hit]:
    tree = parse(sql, dialect)
    complete = event.status == Status.COMPLETE
    hits: list[Hit] = []
    refs = list(sources(event))
    known = {c: known_columns(catalog, c) for c in refs}
    if tree is not None:
        leaks, alias_uses = alias_leaks(tree)
        for c in refs:
            name = top(c.column)
            if name in leaks and not read_from(tree, name, c.table.name.lower(), alias_uses):
                cols = known[c]
                if cols is None or name not in cols:
                    hits.append(Hit("a", path, f"{c} (alias {name!r} used in a clause)", complete))
        fields, field_uses = unnest_fields(tree)
        for c in refs:
            name = top(c.column)
            if name in fields and "." not in c.column and not read_from(tree, name, c.table.name.lower(), field_uses):
                cols = known[c]
                if cols is None or name not in cols:
                    hits.append(Hit("b", path, f"{c} (a field of the element of UNNEST({fields[name]}))", complete))
        if tree.find(exp.Unnest) is not None:
            for c in refs:
                types = known_types(catalog, c)
                name = top(c.column)
                if not types or name in types or name in fields:
                    continue
                if any(name in struct_fields(t) for t in types.values()):
                    hits.append(Hit("b", path, f"{c} (a field of an array of structs of the table)", complete))
        window_sources = {  # every part of a field path: a key ``s.ts`` is the source ``t.(s.ts)``
            part.lower()
            for i in event.output_indirect
            if i.type == IndirectType.WINDOW
            for s in i.sources
            for part in s.column.split(".")
        }
        for name, keys in named_window_keys(tree):
            missing = keys - window_sources
            if missing:
                hits.append(Hit("c", path, f"window {name}: keys {sorted(missing)} not in WINDOW lineage", complete))
    for c in refs:
        cols = known[c]
        if cols is not None and top(c.column) not in cols:
            hits.append(Hit("d", path, f"{c} (the table's known columns do not include it)", complete))
    return hits
