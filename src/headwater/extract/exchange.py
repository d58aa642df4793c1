"""DDL that moves whole tables' data between tables: table-level lineage (``--statements all``).

- Snowflake ``ALTER TABLE a SWAP WITH b``: a holds b's rows and b holds a's;
- MySQL / Oracle ``ALTER TABLE a EXCHANGE PARTITION p WITH TABLE b``: a's partition and b trade rows;
- Doris ``ALTER TABLE a REPLACE WITH TABLE b [PROPERTIES ('swap' = 'false')]``: a holds b's rows;
  with ``swap`` (Doris's default) b holds a's, else b is dropped.

Each move is (written table, read table), as the statement names them.

>>> import sqlglot
>>> [(w.sql(), r.sql()) for w, r in table_moves(sqlglot.parse_one("ALTER TABLE a SWAP WITH b", read="snowflake"))]
[('a', 'b'), ('b', 'a')]
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
        return [(a, b), (b, a)]
    m = _REPLACE.match(text)
    if m is not None:
        a, b = exp.to_table(m.group(1), dialect=dialect), exp.to_table(m.group(2), dialect=dialect)
        return [(a, b)] if _NO_SWAP.search(m.group(3)) else [(a, b), (b, a)]
    return []
