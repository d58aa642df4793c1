"""Statements beyond the Doris rules (``--statements all``), expressed as queries to resolve.

Each function turns a statement into the query whose outputs are the written values, so the same
passes give its lineage:

- ``SELECT …`` writes an unnamed result, identified by the query id;
- ``CREATE VIEW v AS …`` writes the view;
- ``UPDATE t SET a = x … FROM … WHERE …`` is ``SELECT x AS a FROM t, … WHERE …``;
- ``MERGE INTO t USING s ON c WHEN …`` is, per WHEN branch, ``SELECT <assigned values> FROM t JOIN s ON c
  [WHERE <branch condition>]``; every branch is one alternative (``branch``) of its columns;
- ``INSERT … VALUES`` writes constants.

>>> import sqlglot
>>> q, cols = update_query(sqlglot.parse_one("UPDATE t SET a = s.x + 1 FROM s WHERE t.id = s.id", read="postgres"))
>>> q.sql(), cols
('SELECT s.x + 1 AS a FROM t, s WHERE t.id = s.id', ['a'])
"""

from __future__ import annotations

from sqlglot import exp

RESULT_DATABASE = "__query_result"


def _assignments(pairs: list[exp.Expression]) -> tuple[list[exp.Expression], list[str]]:
    values: list[exp.Expression] = []
    names: list[str] = []
    for pair in pairs:
        if isinstance(pair, exp.EQ) and isinstance(pair.this, exp.Column):
            names.append(pair.this.name)
            values.append(exp.alias_(pair.expression.copy(), pair.this.name))
    return values, names


def update_query(tree: exp.Update) -> tuple[exp.Select, list[str]]:
    """The query of an UPDATE's assigned values, and the assigned column names."""
    values, names = _assignments(tree.expressions)
    select = exp.Select(expressions=values, from_=exp.From(this=tree.this.copy()))
    from_ = tree.args.get("from_")
    if from_ is not None:
        select.append("joins", exp.Join(this=from_.this.copy()))
    for join in tree.args.get("joins") or []:
        select.append("joins", join.copy())
    where = tree.args.get("where")
    if where is not None:
        select.set("where", where.copy())
    return select, names


def merge_branches(tree: exp.Merge) -> list[tuple[exp.Select, list[str]]]:
    """One query per WHEN branch that writes values (DELETE branches write none)."""
    target = tree.this.copy()
    using = tree.args["using"].copy()
    on = tree.args.get("on")
    whens = tree.args.get("whens")
    out: list[tuple[exp.Select, list[str]]] = []
    for when in whens.expressions if whens is not None else []:
        then = when.args.get("then")
        if isinstance(then, exp.Update):
            values, names = _assignments(then.expressions)
        elif isinstance(then, exp.Insert):
            cols = then.this.expressions if isinstance(then.this, exp.Tuple | exp.Schema) else []
            vals = then.expression.expressions if isinstance(then.expression, exp.Tuple) else []
            names = [c.name for c in cols]
            values = [exp.alias_(v.copy(), n) for v, n in zip(vals, names, strict=False)]
        else:
            continue
        select = exp.Select(expressions=values, from_=exp.From(this=target.copy()))
        select.append("joins", exp.Join(this=using.copy(), on=on.copy() if on is not None else None))
        condition = when.args.get("condition")
        if condition is not None:
            select.set("where", exp.Where(this=condition.copy()))
        out.append((select, names))
    return out
