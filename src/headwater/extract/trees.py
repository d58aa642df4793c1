"""Pure helpers over sqlglot trees used by the resolver: conjuncts, scope walks, cheap copies.

>>> import sqlglot
>>> [c.sql() for c in conjuncts(sqlglot.parse_one("a = 1 AND (b > 2 AND c)"))]
['a = 1', 'b > 2', 'c']
"""

from __future__ import annotations

from collections.abc import Iterator

from sqlglot import exp

from headwater.extract.scope import REF, UNRESOLVED

QUERY_TYPES = (exp.Query, exp.Subquery, exp.Values)


def conjuncts(node: exp.Expression | None) -> Iterator[exp.Expression]:
    """The AND-ed parts of a predicate (parentheses unwrapped)."""
    if node is None:
        return
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.And):
        yield from conjuncts(node.this)
        yield from conjuncts(node.expression)
    else:
        yield node


def reads_table(query: exp.Expression, name: str) -> bool:
    """True when ``query`` reads a table called ``name`` (a recursive CTE's self-reference)."""
    return any(t.name.lower() == name.lower() and not t.args.get("db") for t in query.find_all(exp.Table))


def grouping_keys(node: exp.Expression) -> list[exp.Expression]:
    if isinstance(node, exp.Tuple | exp.GroupingSets | exp.Cube | exp.Rollup):
        keys: list[exp.Expression] = []
        for e in node.expressions:
            keys.extend(grouping_keys(e))
        return keys
    return [node]


def scope_nodes(expr: exp.Expression) -> Iterator[exp.Expression]:
    """Nodes of ``expr`` that belong to its own scope: subqueries are yielded, not entered."""
    stack = [expr]
    while stack:
        node = stack.pop()
        yield node
        if node is not expr and isinstance(node, QUERY_TYPES):
            continue
        for value in node.args.values():
            if isinstance(value, exp.Expression):
                stack.append(value)
            elif type(value) is list:
                stack.extend(v for v in value if isinstance(v, exp.Expression))


_OPERATORS = (exp.Binary, exp.Unary)


def substitute(node: exp.Expression, mapping: dict[int, exp.Expression], operand: bool = False) -> exp.Expression:
    """A copy of ``node`` with the nodes whose id is in ``mapping`` replaced.

    A replacement that is itself an operator gets parentheses when it lands as an operand
    (``2 * x`` with ``x = a + b`` is ``2 * (a + b)``). Unlike ``Expression.copy`` the copy keeps no
    comments, token positions or other metadata but the resolved column reference, which makes it
    several times cheaper.
    """
    replacement = mapping.get(id(node))
    if replacement is not None:
        if operand and isinstance(replacement, _OPERATORS):
            return exp.Paren(this=replacement)
        return replacement
    child_operand = isinstance(node, _OPERATORS)
    kwargs: dict[str, object] = {}
    for key, value in node.args.items():
        if isinstance(value, exp.Expression):
            kwargs[key] = substitute(value, mapping, child_operand)
        elif type(value) is list:
            kwargs[key] = [substitute(v, mapping, child_operand) if isinstance(v, exp.Expression) else v for v in value]
        else:
            kwargs[key] = value
    new = node.__class__(**kwargs)
    if node._meta and REF in node._meta:
        new.meta[REF] = node._meta[REF]
    return new


def clone(node: exp.Expression) -> exp.Expression:
    """A cheap copy of a resolved expression (see ``substitute``); base-column leaves are shared."""
    if isinstance(node, exp.Column) and node._meta and REF in node._meta:
        return node
    kwargs: dict[str, object] = {}
    for key, value in node.args.items():
        if isinstance(value, exp.Expression):
            kwargs[key] = clone(value)
        elif type(value) is list:
            kwargs[key] = [clone(v) if isinstance(v, exp.Expression) else v for v in value]
        else:
            kwargs[key] = value
    new = node.__class__(**kwargs)
    meta = node._meta
    if meta and UNRESOLVED in meta:
        new.meta[UNRESOLVED] = True
    return new
