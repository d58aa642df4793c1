"""The shortcuts of the per-statement passes answer as the general paths they skip: ``classify`` of a
plain column and ``refs_of`` of a base column or of two compared, on every expression the corpus
events classify and read; the driver's piece without its tree; the split's dialect made once."""

from __future__ import annotations

import dataclasses

import pytest
import sqlglot
from sqlglot import exp

from headwater.extract.classify import _classify_walked, classify
from headwater.extract.scope import UNRESOLVED, _refs_walked, column_node, refs_of
from headwater.extract.split import dialect_of, split_script
from headwater.model import TableRef
from tests.golden.harness import all_cases

T, U = TableRef("internal", "db", "t"), TableRef("internal", "db", "u")


def _bound(node: exp.Expression) -> exp.Expression:
    """A copy of ``node`` with its columns bound as the resolver binds them (``column_node``), but those
    named ``u*``, which are marked unresolved."""

    def bind(n: exp.Expression) -> exp.Expression:
        if not isinstance(n, exp.Column) or isinstance(n.this, exp.Star):
            return n
        if n.name.startswith("u"):
            n.meta[UNRESOLVED] = True
            return n
        return column_node(T if len(n.name) % 2 else U, n.name)

    return node.copy().transform(bind)


def _corpus_expressions() -> tuple[list[tuple[exp.Expression, bool]], list[tuple[exp.Expression, bool]]]:
    """The select items of every statement of the golden cases (to classify) and their comparisons and
    columns (to read), bound, each unshared and shared."""
    classified: list[tuple[exp.Expression, bool]] = []
    read: list[tuple[exp.Expression, bool]] = []
    for case in all_cases():
        for piece in split_script(case.path.read_text(encoding="utf-8"), case.options()["dialect"]):
            if piece.tree is None:
                continue
            for select in piece.tree.find_all(exp.Select):
                for item in select.expressions:
                    e = _bound(item.unalias())
                    classified += [(e, False), (e, True)]
            for node in piece.tree.find_all(exp.EQ, exp.Column):
                e = _bound(node)
                read += [(e, False), (e, True)]
    return classified, read


CLASSIFIED, READ = _corpus_expressions()


def test_the_corpus_has_the_shortcuts_cases() -> None:
    assert sum(type(e) is exp.Column for e, _ in CLASSIFIED) > 50
    assert sum(type(e) is exp.EQ for e, _ in READ) > 20


def test_classify_of_a_plain_column_is_its_walk() -> None:
    for e, shared in CLASSIFIED:
        assert classify(e, shared) == _classify_walked(e, shared), e.sql()


def test_refs_of_a_column_or_a_comparison_is_its_walk() -> None:
    for e, shared in READ + CLASSIFIED:
        assert refs_of(e, shared) == _refs_walked(e, shared), e.sql()


@pytest.mark.parametrize(
    "node",
    [
        column_node(T, "a"),
        exp.EQ(this=column_node(T, "a"), expression=column_node(U, "b")),
        exp.EQ(this=column_node(T, "a"), expression=column_node(T, "a")),  # one column read once
        exp.EQ(this=column_node(T, "a"), expression=exp.column("x")),  # no reference: walked
        exp.EQ(this=column_node(T, "a"), expression=exp.Literal.number(1)),
        exp.column("x"),
    ],
)
def test_refs_of_the_shortcut_shapes(node: exp.Expression) -> None:
    assert refs_of(node) == _refs_walked(node, False)


def test_classify_of_an_unbound_column() -> None:
    col = exp.column("x")
    col.meta[UNRESOLVED] = True
    assert classify(col) == _classify_walked(col, False)
    assert classify(col).unbound and not classify(exp.column("y")).unbound


def test_a_piece_without_its_tree_keeps_every_other_field() -> None:
    for piece in split_script("INSERT INTO t SELECT a FROM s; SELECT FROM; SELECT 1", "doris"):
        assert piece.without_tree() == dataclasses.replace(piece, tree=None)
    assert {f.name for f in dataclasses.fields(piece)} >= {"notes", "deep", "skip", "error"}


def test_the_split_makes_each_dialect_once() -> None:
    assert dialect_of("doris") is dialect_of("doris")
    assert type(dialect_of("doris")) is type(sqlglot.Dialect.get_or_raise("doris"))
