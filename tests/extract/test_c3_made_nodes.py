"""Nodes the resolver makes without keyword arguments or with kept answers are the nodes it made before:
``trees.leaf_copy`` (an identifier or literal made empty, then given its arguments) equals
``cls(**args)``; ``substitute``, ``clone`` and ``clone_within`` give every node of a copy the parent,
key and index sqlglot's ``__init__`` gives it and keep each node's arguments in order;
``scope.find_all``'s kept ``isinstance`` answers hold for subclasses; ``resolve._table_node`` copies
render as sqlglot's ``to_table``; ``Binder.table_ident`` / ``column_ident`` fold as ``Names`` does."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import sqlglot
from sqlglot import exp

from headwater.catalog import LayeredCatalog, Names
from headwater.extract import scope
from headwater.extract.resolve import Resolver, _table_node
from headwater.extract.trees import clone, clone_within, leaf_copy, substitute

CORPUS = Path(os.environ.get("HEADWATER_SHARED", "/work/shared")) / "corpus"
SQL = [
    "SELECT CASE WHEN a.x = 'k' THEN 1.5 ELSE \"Q\".y END AS z, f(2, 'two'), -3, TRUE, NULL FROM t AS a WHERE b IN (1, 2)",
    "SELECT SUM(x) OVER (PARTITION BY y ORDER BY z ROWS 2 PRECEDING), DATE_TRUNC('month', d) FROM w",
]


def trees() -> list[exp.Expression]:
    out = [sqlglot.parse_one(sql) for sql in SQL]
    path = CORPUS / "insert_tpcds.sql"
    if path.exists():
        out += [t for t in sqlglot.parse(path.read_text()) if t is not None][:30]
    return out


def links(tree: exp.Expression) -> list[tuple[str, str | None, int | None, str]]:
    """Every node's class, parent key, index and argument keys in order, and that its parent holds it."""
    out = []
    for node in tree.walk():
        for key, value in node.args.items():
            children = value if type(value) is list else [value]
            for i, child in enumerate(children):
                if isinstance(child, exp.Expression):
                    assert child.parent is node
                    assert child.arg_key == key
                    assert child.index == (i if type(value) is list else None)
        out.append((type(node).__name__, node.arg_key, node.index, ",".join(node.args)))
    return out


def test_leaf_copy_is_the_keyword_construction() -> None:
    checked = 0
    for tree in trees():
        for node in tree.walk():
            if type(node) not in (exp.Identifier, exp.Literal):
                continue
            made, expected = leaf_copy(node), type(node)(**node.args)
            assert type(made) is type(expected)
            assert list(made.args.items()) == list(expected.args.items())
            assert made.args is not node.args
            assert made == expected and hash(made) == hash(expected) and made.sql() == expected.sql()
            assert made.parent is None and made.arg_key is None and made.index is None
            assert made.comments is None and made._meta is None and made._type is None
            checked += 1
    assert checked > 100


def test_copies_link_every_node_as_sqlglot_does() -> None:
    for tree in trees():
        for node in [tree, *tree.find_all(exp.Select)]:
            expected = links(node.copy())
            for copy in (substitute(node, {}), clone(node)):
                assert links(copy) == expected
                assert copy.sql(comments=False) == node.sql(comments=False)  # the copies keep no comments
            counted, _ = clone_within(node, 1_000_000, {})
            if counted is not None:
                assert links(counted) == expected


def test_substitute_wraps_operators_told_by_class() -> None:
    tree = sqlglot.parse_one("SELECT 2 * x, -x, NOT x, f(x) FROM t")
    columns = list(tree.find_all(exp.Column))
    plus = sqlglot.parse_one("a + b")
    out = substitute(tree, {id(c): plus for c in columns})
    assert out.sql() == "SELECT 2 * (a + b), -(a + b), NOT (a + b), F(a + b) FROM t"


@pytest.mark.parametrize("compiled", [True, False])
def test_find_all_kept_answers_hold_for_subclasses(monkeypatch: pytest.MonkeyPatch, compiled: bool) -> None:
    monkeypatch.setattr(scope, "_COMPILED", compiled)
    tree = sqlglot.parse_one("SELECT a, f(b) FROM t WHERE c < 3")
    for name in ("b", "c"):  # a subclass of Column (Oracle's ROWNUM), met after a Column
        next(c for c in tree.find_all(exp.Column) if c.name == name).replace(
            exp.Pseudocolumn(this=exp.to_identifier(name))
        )
    assert sum(type(n) is exp.Pseudocolumn for n in tree.walk()) == 2
    for types in (exp.Column, (exp.Column, exp.Select), exp.Identifier, exp.Column):
        wanted = list(tree.find_all(*types)) if isinstance(types, tuple) else list(tree.find_all(types))
        assert [id(n) for n in scope.find_all(tree, types)] == [id(n) for n in wanted]


@pytest.mark.parametrize("name", ["t", "db.t", "cat.db.t", '"Mixed Case".t', "db.`x-y`"])
def test_table_node_copies_render_as_to_table(name: str) -> None:
    first, second = _table_node(name), _table_node(name)
    assert first is not second and not {id(n) for n in first.walk()} & {id(n) for n in second.walk()}
    assert first.sql() == second.sql() == exp.to_table(name).sql()
    assert links(first) == links(exp.to_table(name))


@pytest.mark.parametrize("dialect", ["doris", "postgres", "snowflake", "bigquery", "clickhouse", "tsql"])
def test_ident_folds_as_names(dialect: str) -> None:
    names = Names.for_dialect(dialect)
    resolver = Resolver(LayeredCatalog(), names, "internal", "db", statement_index=0)
    for text in ("abc", "AbC", "ABC", "a b"):
        for quoted in (False, True):
            ident = exp.Identifier(this=text, quoted=quoted)
            assert resolver.table_ident(ident) == names.table_ident(ident)
            assert resolver.column_ident(ident) == names.column_ident(ident)
