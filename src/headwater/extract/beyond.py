"""Statements beyond the Doris rules (``--statements all``), expressed as queries to resolve.

Each function turns a statement into the query whose outputs are the written values, so the same
passes give its lineage:

- ``SELECT …`` writes an unnamed result, identified by the query id;
- ``CREATE VIEW v AS …`` writes the view;
- ``UPDATE t SET a = x … FROM … WHERE …`` is ``SELECT x AS a FROM t, … WHERE …`` (per table written);
- ``DELETE FROM t [USING s] WHERE …`` is ``SELECT FROM t, s WHERE …``: table-level lineage only;
- ``MERGE INTO t USING s ON c WHEN …`` is, per WHEN branch, ``SELECT <assigned values> FROM t JOIN s ON c
  [WHERE <branch condition>]``; every branch is one alternative (``branch``) of its columns;
- ``INSERT … VALUES`` writes constants.

>>> import sqlglot
>>> [(t.sql(), q.sql(), cols) for t, q, cols in update_queries(
...     sqlglot.parse_one("UPDATE t SET a = s.x + 1 FROM s WHERE t.id = s.id", read="postgres"))]
[('t', 'SELECT s.x + 1 AS a FROM t, s WHERE t.id = s.id', ['a'])]
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


def _from_tables(node: exp.Expression) -> list[exp.Table]:
    """The tables a FROM item names, with those of the joins hanging on it."""
    out = [node] if isinstance(node, exp.Table) else []
    for join in node.args.get("joins") or []:
        out.extend(_from_tables(join.this))
    return out


def update_queries(tree: exp.Update) -> list[tuple[exp.Table, exp.Select, list[str]]]:
    """Per table an UPDATE writes: the table, the query of its assigned values, the assigned columns.

    The forms: MySQL ``UPDATE t1 a JOIN t2 b ON … SET a.v = b.v`` (the tables are the UPDATE's; a
    SET column's qualifier names the table written, so one UPDATE may write several);
    T-SQL ``UPDATE t SET … FROM tab1 t JOIN tab2 s ON …`` (``t`` names a table of the FROM: the FROM
    is the whole row source); PostgreSQL, Snowflake, Redshift ``UPDATE t SET … FROM s WHERE …``
    (``t`` is joined to the FROM's tables).
    """
    main = tree.this
    from_ = tree.args.get("from_")
    select = exp.Select(from_=exp.From(this=main.copy()))
    default = main
    if from_ is not None:
        named = {(t.alias_or_name or "").lower(): t for t in _from_tables(from_.this)}
        same = named.get(main.name.lower()) if not main.args.get("alias") and not main.args.get("db") else None
        if same is not None:  # T-SQL: the target is one of the FROM's tables
            select.set("from_", exp.From(this=from_.this.copy()))
            default = same
        else:
            select.append("joins", exp.Join(this=from_.this.copy()))
    for join in tree.args.get("joins") or []:
        select.append("joins", join.copy())
    where = tree.args.get("where")
    if where is not None:
        select.set("where", where.copy())
    tables = {(t.alias_or_name or "").lower(): t for t in _from_tables(select.args["from_"].this)}
    for join in select.args.get("joins") or []:
        tables.update({(t.alias_or_name or "").lower(): t for t in _from_tables(join.this)})
    groups: dict[tuple[str, ...], tuple[exp.Table, list[exp.Expression], list[str]]] = {}
    for pair in tree.expressions:
        if not (isinstance(pair, exp.EQ) and isinstance(pair.this, exp.Column)):
            continue
        written = tables.get(pair.this.table.lower(), default) if pair.this.table else default
        key = tuple(part.name.lower() for part in written.parts)  # one group per table, however named
        _, values, names = groups.setdefault(key, (written, [], []))
        names.append(pair.this.name)
        values.append(exp.alias_(pair.expression.copy(), pair.this.name))
    out = []
    for written, values, names in groups.values():
        query = select.copy()
        query.set("expressions", values)
        target = written.copy()
        for key in ("alias", "joins"):
            target.set(key, None)
        out.append((target, query, names))
    return out


def delete_query(tree: exp.Delete) -> tuple[exp.Table, exp.Select]:
    """The table a DELETE writes and the query of the rows it reads (no output columns).

    ``DELETE FROM t USING s WHERE …`` joins ``s``; ``DELETE … WHERE k IN (SELECT …)`` reads the
    subquery's tables.
    """
    target = tree.this.copy()
    select = exp.Select(from_=exp.From(this=target.copy()))
    for using in tree.args.get("using") or []:
        select.append("joins", exp.Join(this=using.copy()))
    where = tree.args.get("where")
    if where is not None:
        select.set("where", where.copy())
    for key in ("alias", "joins"):
        target.set(key, None)
    return target, select


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
