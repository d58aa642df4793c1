"""The event's values made by their slots' setters (``events.direct_lineage`` and the others) are
the values their dataclasses make; ``trees.clone_within`` copies and counts as ``clone`` and
``size_within`` do, on every select item of the golden cases."""

from __future__ import annotations

import pickle
from dataclasses import dataclass

import pytest
from sqlglot import exp

from headwater.extract.classify import Classified, _classify_walked, direct_input
from headwater.extract.events import direct_lineage, indirect_lineage, target_field
from headwater.extract.scope import REF, column_node
from headwater.extract.split import split_script
from headwater.extract.trees import clone, clone_within, size_within
from headwater.model import (
    ColumnRef,
    DirectInput,
    DirectLineage,
    DirectType,
    Field,
    IndirectLineage,
    IndirectType,
    Origin,
    TableRef,
)
from headwater.model.slots import frozen_maker, slot_setters
from tests.golden.harness import all_cases

T = TableRef("internal", "db", "t")
A, B = ColumnRef(T, "a"), ColumnRef(T, "b")


def _same(made: object, expected: object) -> None:
    assert type(made) is type(expected)
    assert made == expected and hash(made) == hash(expected) and repr(made) == repr(expected)
    assert pickle.loads(pickle.dumps(made)) == expected


def test_made_values_are_the_dataclasses_values() -> None:
    inputs = (direct_input(A, ("CAST",), True), direct_input(B, (), False))
    _same(inputs[0], DirectInput(A, ("CAST",), True))
    _same(inputs[1], DirectInput(B))
    _same(
        direct_lineage("x", "CAST(t.a AS INT)", DirectType.TRANSFORMATION, Origin.COLUMN, (A, B), inputs, 2),
        DirectLineage("x", "CAST(t.a AS INT)", DirectType.TRANSFORMATION, Origin.COLUMN, (A, B), inputs, 2),
    )
    _same(
        indirect_lineage(IndirectType.JOIN, "t.a = t.b", (A, B), None),
        IndirectLineage(IndirectType.JOIN, "t.a = t.b", (A, B)),
    )
    _same(
        indirect_lineage(IndirectType.WINDOW, "t.a", (A,), "x"), IndirectLineage(IndirectType.WINDOW, "t.a", (A,), "x")
    )
    _same(target_field("x", "INT"), Field("x", "INT"))
    _same(target_field("y", None), Field("y"))


def test_slot_setters_refuse_a_class_whose_slots_are_not_its_fields() -> None:
    class Plain:
        __slots__ = ("a",)

    with pytest.raises(TypeError):
        slot_setters(Plain)

    @dataclass(frozen=True)
    class NoSlots:
        a: int

    with pytest.raises(TypeError):  # a dataclass whose fields are no slots
        slot_setters(NoSlots)
    assert frozen_maker(NoSlots) is NoSlots  # made by its own ``__init__``


def test_classified_compares_by_its_fields() -> None:
    e = column_node(T, "a")
    assert _classify_walked(e, False) == _classify_walked(e, True)
    other = Classified(DirectType.IDENTITY, Origin.COLUMN, (B,), (), (), (), False)
    assert _classify_walked(e, False) != other
    assert "sources=" in repr(other)


def _resolved_items() -> list[exp.Expression]:
    """Every select item of the golden cases, its columns bound as the resolver binds them (one
    leaf per column name, shared where a name is read twice)."""
    leaves: dict[str, exp.Column] = {}

    def bind(n: exp.Expression) -> exp.Expression:
        if not isinstance(n, exp.Column) or isinstance(n.this, exp.Star):
            return n
        leaf = leaves.get(n.name)
        if leaf is None:
            leaf = leaves[n.name] = column_node(T, n.name or "c")
        return leaf

    items = []
    for case in all_cases():
        for piece in split_script(case.path.read_text(encoding="utf-8"), case.options()["dialect"]):
            if piece.tree is None:
                continue
            for select in piece.tree.find_all(exp.Select):
                items += [item.unalias().copy().transform(bind) for item in select.expressions]
    return items


@pytest.mark.parametrize("limit", [64, 8, 3])
def test_clone_within_is_clone_and_size_within(limit: int) -> None:
    items = _resolved_items()
    assert len(items) > 200
    for e in items:
        copy, size = clone_within(e, limit, {})
        if size == 0:  # left to the two walks: only for forms this walk does not count
            continue
        assert size == size_within(e, limit), e.sql()
        if size > limit:
            assert copy is None
            continue
        assert copy is not None and copy.sql() == clone(e).sql() == e.sql()
        kept = [n for n in copy.find_all(exp.Column) if n.meta.get(REF)]
        assert all(any(n is leaf for leaf in e.find_all(exp.Column)) for n in kept)  # leaves shared
        assert not any(
            n is m
            for n in copy.find_all(exp.Expression)
            for m in e.find_all(exp.Expression)
            if not isinstance(n, exp.Column) and not (n.parent and isinstance(n.parent, exp.Column))
        )


def test_clone_within_leaves_a_shared_subexpression_to_the_two_walks() -> None:
    a = column_node(T, "a")
    add = exp.Add(this=a, expression=exp.Literal.number(1))
    assert clone_within(exp.Mul(this=add, expression=add), 64, {}) == (None, 0)
    copy, size = clone_within(exp.Mul(this=add, expression=a), 64, {})
    assert copy is not None and size == size_within(exp.Mul(this=add, expression=a), 64) == 9


@pytest.mark.parametrize("dialect", ["generic", "doris", "spark", "mysql", "postgres", "snowflake", "tsql", "bigquery"])
def test_function_names_render_as_the_generator_falls_back(dialect: str) -> None:
    """Every function class the generator renders through ``function_fallback_sql`` renders the same
    text through ``FunctionNames``, with and without the dialect's original-name metadata."""
    from sqlglot.dialects.dialect import Dialect

    from headwater.extract.events import FunctionNames, _function_classes, leaf_texts

    d = Dialect.get_or_raise(None if dialect == "generic" else dialect)
    plain, ours = d.generator(), d.generator()
    leaf_texts(ours)
    a, b = column_node(T, "a"), column_node(T, "b")
    checked = 0
    for cls in _function_classes():
        if cls in plain._dispatch or not isinstance(ours._dispatch.get(cls), FunctionNames):
            continue
        try:  # some are traits, some need arguments of their own kinds: not this test's concern
            node = cls(**{k: (a.copy() if i == 0 else b.copy()) for i, k in enumerate(cls.arg_types) if i < 2})
            expected = plain.sql(node)
        except Exception:
            continue
        assert ours.sql(node) == expected
        key = d.ORIGINAL_NAME_META_KEY if hasattr(d, "ORIGINAL_NAME_META_KEY") else None
        if key:
            node.meta[key] = "Orig_Name"
            assert ours.sql(node) == plain.sql(node)
        checked += 1
    assert checked > 100


@pytest.mark.parametrize("dialect", ["generic", "doris", "spark", "mysql", "postgres", "snowflake", "tsql", "bigquery"])
def test_kept_leaves_and_their_comparisons_render_as_the_generator_does(dialect: str) -> None:
    """A kept leaf, and ``=`` of two kept leaves, are given their generator's own text: names that
    need quotes, escapes or a reserved word's quoting, and comparisons of other shapes around them."""
    from sqlglot.dialects.dialect import Dialect

    from headwater.extract.columns import base_leaf, release_leaves
    from headwater.extract.events import LeafColumns, leaf_texts

    d = Dialect.get_or_raise(None if dialect == "generic" else dialect)
    plain, ours = d.generator(), d.generator()
    leaves = leaf_texts(ours)
    assert isinstance(leaves, LeafColumns) and leaf_texts(ours) is leaves
    tables = [TableRef("internal", "db", n) for n in ("t", "select", "we ird", 'q"t')]
    cols = [base_leaf(t, n, (t.catalog, t.database, t.name, n)) for t in tables for n in ("a", "Mixed", "from", "x`y")]
    for c in cols:
        assert ours.sql(c) == plain.sql(c)  # the first: rendered, then kept
        assert leaves.kept(c) == plain.sql(c)
    for left in cols[:6]:
        for right in cols[-6:]:
            for node in (
                exp.EQ(this=left, expression=right),
                exp.EQ(this=left, expression=exp.Literal.number(1)),
                exp.EQ(this=left, expression=right, negate=True),
                exp.NEQ(this=left, expression=right),
            ):
                assert ours.sql(node) == plain.sql(node)
    commented = exp.EQ(this=cols[0], expression=cols[1])
    commented.add_comments(["why"])
    assert ours.sql(commented) == plain.sql(commented)
    release_leaves(cols)  # the kept leaves are shared: no tree of this test left on them
