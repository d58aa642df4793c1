"""DDL that moves whole tables' data between tables: table-level lineage (``--statements all``).

- Snowflake ``ALTER TABLE a SWAP WITH b``: a holds b's rows and b holds a's;
- MySQL / Oracle / Doris ``ALTER TABLE a EXCHANGE PARTITION p WITH TABLE b``: a's partition and b trade
  rows; Hive's (and Spark's Hive SQL) ``ALTER TABLE a EXCHANGE PARTITION (k = v) WITH TABLE b`` moves
  b's partition into a (b loses it): a holds b's rows, b receives none;
- Doris ``ALTER TABLE a REPLACE WITH TABLE b [PROPERTIES ('swap' = 'false')]``: a holds b's rows;
  with ``swap`` (Doris's default) b holds a's, else b is dropped;
- ``ALTER TABLE a RENAME TO b``, MySQL ``RENAME TABLE a TO b [, c TO d]``: a *is* b from then on
  (``table_renames``; an unqualified new name stays in a's database).

Each move is (written table, read table), as the statement names them.

>>> import sqlglot
>>> [(w.sql(), r.sql()) for w, r in table_moves(sqlglot.parse_one("ALTER TABLE a SWAP WITH b", read="snowflake"))]
[('a', 'b'), ('b', 'a')]
>>> [(o.sql(), n.sql()) for o, n in table_renames(sqlglot.parse_one("ALTER TABLE db.a RENAME TO b"))]
[('db.a', 'db.b')]
>>> tree = sqlglot.parse_one("ALTER TABLE db.a REPLACE WITH TABLE b PROPERTIES ('swap' = 'false')", read="doris")
>>> [(w.sql(), r.sql()) for w, r in table_moves(tree, "doris")]
[('db.a', 'b')]
"""

from __future__ import annotations

import re

from sqlglot import exp

_NAME = r"((?:[`\"\w]+\.){0,2}[`\"\w]+)"
_EXCHANGE = re.compile(rf"^\s*TABLE\s+{_NAME}\s+EXCHANGE\s+PARTITION\s+.+?\s+WITH\s+TABLE\s+{_NAME}", re.I | re.S)
_REPLACE = re.compile(rf"^\s*TABLE\s+{_NAME}\s+REPLACE\s+WITH\s+TABLE\s+{_NAME}(.*)$", re.I | re.S)
_MOVE_PARTITION = frozenset({"hive", "spark", "spark2", "databricks"})
"""Dialects whose EXCHANGE PARTITION moves the partition one way, into the altered table (Hive's)."""
_NO_SWAP = re.compile(r"['\"]swap['\"]\s*=\s*['\"]false['\"]", re.I)


def table_moves(tree: exp.Expression, dialect: str | None = None) -> list[tuple[exp.Table, exp.Table]]:
    """The (written, read) table pairs of a data-moving ALTER TABLE; empty for any other statement."""
    if isinstance(tree, exp.Alter):
        swap = next((a for a in tree.args.get("actions") or [] if isinstance(a, exp.SwapTable)), None)
        if swap is not None and isinstance(tree.this, exp.Table) and isinstance(swap.this, exp.Table):
            return [(tree.this, swap.this), (swap.this, tree.this)]
        return []
    if not (isinstance(tree, exp.Command) and str(tree.this).upper() == "ALTER"):
        return []
    text = str(tree.expression or "")
    m = _EXCHANGE.match(text)
    if m is not None:
        a, b = exp.to_table(m.group(1), dialect=dialect), exp.to_table(m.group(2), dialect=dialect)
        return [(a, b)] if dialect in _MOVE_PARTITION else [(a, b), (b, a)]
    m = _REPLACE.match(text)
    if m is not None:
        a, b = exp.to_table(m.group(1), dialect=dialect), exp.to_table(m.group(2), dialect=dialect)
        return [(a, b)] if _NO_SWAP.search(m.group(3)) else [(a, b), (b, a)]
    return []


_RENAME = re.compile(r"^\s*TABLE\s+(.+)$", re.I | re.S)
_PAIR = re.compile(rf"^\s*{_NAME}\s+TO\s+{_NAME}\s*$", re.I | re.S)


def table_renames(tree: exp.Expression, dialect: str | None = None) -> list[tuple[exp.Table, exp.Table]]:
    """The (old, new) tables of ``ALTER TABLE a RENAME TO b`` or MySQL ``RENAME TABLE a TO b, …``;
    empty for any other statement. A new name without a database takes the old one's."""
    pairs: list[tuple[exp.Table, exp.Table]] = []
    if isinstance(tree, exp.Alter) and isinstance(tree.this, exp.Table):
        actions = tree.args.get("actions") or []
        if len(actions) == 1 and isinstance(actions[0], exp.AlterRename) and isinstance(actions[0].this, exp.Table):
            pairs.append((tree.this, actions[0].this))
    elif isinstance(tree, exp.Command) and str(tree.this).upper() == "RENAME":
        m = _RENAME.match(tree.expression.name if tree.expression is not None else "")
        for part in m.group(1).split(",") if m is not None else []:
            pm = _PAIR.match(part)
            if pm is None:
                return []
            pairs.append((exp.to_table(pm.group(1), dialect=dialect), exp.to_table(pm.group(2), dialect=dialect)))
    out = []
    for old, new in pairs:
        new = new.copy()
        keys = ("catalog",) if new.args.get("db") is not None else ("db", "catalog")
        for key in keys:
            if new.args.get(key) is None and old.args.get(key) is not None:
                new.set(key, old.args[key].copy())
        out.append((old, new))
    return out
