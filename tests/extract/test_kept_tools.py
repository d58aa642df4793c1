"""What extraction keeps between statements to spend less: a tokenizer and a parser per dialect and
thread (``split._tokenize`` / ``split._parse``), a base-table leaf's text rendered on its first sight
(``events.LeafColumns.text``), and the resolver's own ``__init__`` of its scope values."""

from __future__ import annotations

import threading

import sqlglot
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect

from headwater.extract import split
from headwater.extract.columns import base_leaf
from headwater.extract.events import leaf_texts
from headwater.extract.scope import Relation, Scope, Source
from headwater.model import TableRef

SCRIPT = ";\n".join(
    [
        "INSERT INTO t SELECT a, b FROM s WHERE c = 'x;y'",
        "INSERT INTO u SELECT SUM(a) FROM s GROUP BY b",
        "CREATE TABLE v AS SELECT * FROM (SELECT a FROM s) q",
    ]
)


def _shapes(pieces: list[split.Piece]) -> list[tuple[int, int, str, str | None]]:
    return [(p.line, p.column, p.sql, p.tree.sql() if p.tree is not None else None) for p in pieces]


def test_kept_tokenizer_and_parser_give_what_fresh_ones_give() -> None:
    d = Dialect.get_or_raise("mysql")
    for text in (SCRIPT, "SELECT 1", "SELECT 'unterminated"):
        try:
            fresh = d.tokenize(text)
        except sqlglot.errors.TokenError:
            continue
        kept = split._tokenize(d, text)
        assert [(t.token_type, t.text, t.start, t.end) for t in kept] == [
            (t.token_type, t.text, t.start, t.end) for t in fresh
        ]
        assert [x.sql() for x in split._parse(d, kept, text) if x] == [
            x.sql() for x in d.parser().parse(fresh, text) if x
        ]
    pieces = split.split_script(SCRIPT, "mysql")
    assert _shapes(pieces) == _shapes(split.split_script(SCRIPT, "mysql"))  # again, with the kept ones
    assert len(pieces) == 3 and all(p.tree is not None for p in pieces)


def test_kept_tokenizer_and_parser_let_go_of_the_text() -> None:
    d = Dialect.get_or_raise("doris")
    split._parse(d, split._tokenize(d, SCRIPT), SCRIPT)
    tools = split._kept(d)
    tokenizer, parser = tools[1], tools[2]
    assert tokenizer is not None and parser is not None
    assert tokenizer.sql == "" and tokenizer.tokens == []  # type: ignore[attr-defined]
    assert parser.sql == "" and parser._tokens == []  # type: ignore[attr-defined]


def test_each_thread_splits_with_its_own() -> None:
    expected = _shapes(split.split_script(SCRIPT, "doris"))
    results: list[list[tuple[int, int, str, str | None]]] = []
    tools: list[object] = []

    def work() -> None:
        for _ in range(20):
            results.append(_shapes(split.split_script(SCRIPT, "doris")))
        tools.append(split._kept(split.dialect_of("doris"))[1])

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [expected] * 80
    assert len({id(t) for t in tools}) == 4  # a tokenizer per thread


def test_a_leaf_is_rendered_on_its_first_sight_as_the_generator_does() -> None:
    for name in (None, "bigquery", "tsql"):
        d = Dialect.get_or_raise(name)
        plain, ours = d.generator(), d.generator()
        leaves = leaf_texts(ours)
        assert leaves is not None
        t = TableRef("internal", "db", f"first_{name}")
        for col in ("a", "Mixed", "select", "x`y"):
            leaf = base_leaf(t, col, (t.catalog, t.database, t.name, col))
            assert leaves.kept(leaf) is None  # not met yet
            assert leaves.text(ours, leaf) == plain.sql(leaf)
            assert leaves.kept(leaf) == plain.sql(leaf)  # kept now
        assert leaves.text(ours, exp.column("a", table="t")) is None  # no leaf of base_leaf's


def test_scope_values_take_their_fields_in_order_each_with_lists_of_its_own() -> None:
    a, b = Relation(["x"], ["x"], [[]]), Relation(["x"], ["x"], [[]])
    assert a == b and a.tables is not b.tables and a.correlated is not b.correlated and a.complete
    assert Relation(["x"], ["X"], [[]], False, [TableRef("c", "d", "t")]).tables == [TableRef("c", "d", "t")]
    s = Source("s", TableRef("c", "d", "t"), ["a"])
    assert (s.alias, s.columns, s.load, s.opaque, s.has("a"), s.has("b")) == ("s", ["a"], None, None, True, False)
    assert s == Source("s", TableRef("c", "d", "t"), ["a"])
    one, two = Scope(None, {}), Scope(None, {})
    one.add(s)
    assert list(one.sources) == ["s"] and two.sources == {} and one.bound is not two.bound
    assert one.joins is not two.joins and one.lateral is not two.lateral and not one.outer_hit


def test_a_comparison_with_a_leaf_renders_as_the_generator_does() -> None:
    t = TableRef("internal", "db", "cmp")
    a, b = (base_leaf(t, n, (t.catalog, t.database, t.name, n)) for n in ("a", "Select"))
    other = sqlglot.parse_one("SELECT x FROM y").selects[0]
    noted = exp.Literal.string("n")
    noted.add_comments(["note"])
    operands = [
        exp.Literal.number(1),
        exp.Literal.string("it's"),
        exp.Null(),
        exp.Paren(this=exp.Add(this=b, expression=exp.Literal.number(2))),
        exp.Sum(this=b),
        exp.EQ(this=b, expression=exp.Literal.number(3)),
        exp.Column(this=exp.to_identifier("plain")),
        noted,
        other,
        b,
    ]
    for dialect in (None, "bigquery", "clickhouse", "tsql", "mysql", "snowflake", "spark"):
        d = Dialect.get_or_raise(dialect)
        plain, ours = d.generator(), d.generator()
        leaf_texts(ours)
        for operand in operands:
            for node in (
                exp.EQ(this=a, expression=operand.copy() if operand is not b else b),
                exp.EQ(this=operand.copy() if operand is not b else b, expression=a),
            ):
                assert ours.sql(node) == plain.sql(node)
