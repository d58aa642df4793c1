"""``trees.substitute`` and ``trees.clone`` copy identifiers and literals by their arguments (they hold
no node): the copies are new nodes, equal to the source, rendered the same, and share no node with it."""

from __future__ import annotations

import sqlglot
from sqlglot import exp

from headwater.extract.scope import UNRESOLVED
from headwater.extract.trees import clone, substitute

SQL = "SELECT CASE WHEN a.x = 'k' THEN 1.5 ELSE \"Q\".y END AS z, f(2, 'two'), -3 FROM t AS a WHERE b IN (1, 2)"


def nodes(tree: exp.Expression) -> set[int]:
    return {id(n) for n in tree.walk()}


def test_copies_are_new_and_equal() -> None:
    tree = sqlglot.parse_one(SQL)
    for copy in (substitute(tree, {}), clone(tree)):
        assert copy == tree and copy.sql() == tree.sql()
        assert not nodes(copy) & nodes(tree)
        for node in copy.walk():
            for value in node.args.values():
                if isinstance(value, exp.Expression):
                    assert value.parent is node


def test_replacement_and_marks_kept() -> None:
    tree = sqlglot.parse_one("SELECT a + 'x' FROM t")
    column = next(tree.find_all(exp.Column))
    literal = next(tree.find_all(exp.Literal))
    literal.meta[UNRESOLVED] = True
    out = substitute(tree, {id(column): exp.column("b", "s")})
    assert out.sql() == "SELECT s.b + 'x' FROM t"
    assert next(clone(tree).find_all(exp.Literal)).meta.get(UNRESOLVED) is True
