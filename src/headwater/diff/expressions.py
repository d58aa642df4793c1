"""Expressions as a diff compares them: table qualifiers aside, and the type a CAST gives.

A statement that renames a table alias (``a.x`` → ``s.x``) computes the same value: it is no change.

>>> normalise("SUM(a.net_paid)"), normalise("sum(s.net_paid)")
('SUM(net_paid)', 'SUM(net_paid)')
>>> cast_type("CAST(a.x AS DECIMAL(10, 2))"), cast_type("a.x") is None
('DECIMAL(10, 2)', True)
"""

from __future__ import annotations

from functools import lru_cache

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError


@lru_cache(maxsize=65536)
def _tree(expression: str) -> exp.Expression | None:
    try:
        return sqlglot.parse_one(expression)
    except (SqlglotError, ValueError, RecursionError):
        return None


@lru_cache(maxsize=65536)
def normalise(expression: str) -> str:
    """``expression`` without table qualifiers, as sqlglot writes it (unparsable: as given)."""
    tree = _tree(expression)
    if tree is None:
        return expression
    tree = tree.copy()
    for column in tree.find_all(exp.Column):
        column.set("table", None)
        column.set("db", None)
        column.set("catalog", None)
    return tree.sql()


def cast_type(expression: str) -> str | None:
    """The type the outermost CAST of ``expression`` gives, if it is one."""
    tree = _tree(expression)
    if isinstance(tree, exp.Cast):  # TryCast is a Cast too
        return tree.to.sql()
    return None
