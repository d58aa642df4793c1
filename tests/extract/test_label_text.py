"""A select item's label, a declared column's type and a view's text (``trees.sql_text``) are
``node.sql(dialect=…)``'s text, and rendering them leaves the statement's tree as it was;
``trees.render_copy`` is ``Expression.copy`` in all a generator reads."""

from __future__ import annotations

import pytest
import sqlglot
from sqlglot import exp

from headwater.extract.split import split_script
from headwater.extract.trees import render_copy, sql_text
from tests.golden.harness import all_cases
from tests.shared_data import shared_path

# the dialects rendered to: the default, several the golden cases are written in, and others whose generators
# rewrite what they render (T-SQL's booleans, Oracle, ClickHouse, Trino)
DIALECTS = ("", "doris", "tsql", "oracle", "bigquery", "snowflake", "clickhouse", "trino", "spark", "mysql", "duckdb")


def _corpus_items() -> list[tuple[str, str, exp.Expression]]:
    """(dialect, statement, tree) of every golden statement that has a select list or declares columns."""
    out = []
    for case in all_cases():
        dialect = case.options()["dialect"]
        for piece in split_script(case.path.read_text(encoding="utf-8"), dialect):
            if piece.tree is not None and piece.tree.find(exp.Select, exp.DataType) is not None:
                out.append((dialect, piece.sql, piece.tree))
    return out


CORPUS = _corpus_items()


def _nodes(tree: exp.Expression) -> list[exp.Expression]:
    """Every select item and every node under one, every type, and a CREATE's query (a view's text)."""
    out: list[exp.Expression] = []
    for select in tree.find_all(exp.Select):
        for item in select.expressions:
            out.extend(item.walk())
    out.extend(tree.find_all(exp.DataType))
    if isinstance(tree, exp.Create) and isinstance(tree.expression, exp.Expression):
        out.append(tree.expression)
    return out


def test_the_corpus_has_statements_to_compare() -> None:
    assert len(CORPUS) > 200
    trees = [t for _, _, t in CORPUS]
    assert sum(1 for t in trees for _ in t.find_all(exp.ColumnDef)) > 100
    assert sum(1 for t in trees if isinstance(t, exp.Create) and isinstance(t.expression, exp.Query)) > 10
    assert sum(len(_nodes(t)) for _, _, t in CORPUS[:50]) > 500


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_label_is_the_generators_text_and_the_tree_is_untouched(dialect: str) -> None:
    compared = 0
    for read, sql, tree in CORPUS:  # the trees are shared by the dialects' runs: each leaves them as they were
        before = tree.sql(dialect=read)
        for node in _nodes(tree):
            parent, key, index = node.parent, node.arg_key, node.index
            try:
                expected = node.sql(dialect=dialect)
            except Exception as exc:  # the generator refuses it: so must the label
                with pytest.raises(type(exc)):
                    sql_text(node, dialect)
                continue
            assert sql_text(node, dialect) == expected, (dialect, sql, node)
            assert (node.parent, node.arg_key, node.index) == (parent, key, index)
            compared += 1
        assert tree.sql(dialect=read) == before, (dialect, sql)
    assert compared > 1000


@pytest.mark.parametrize(
    "sql, dialect, label",
    [
        ("SELECT SUM(amount) /* total */ FROM t", "doris", "SUM(amount) /* total */"),
        ("SELECT TRUE FROM t", "tsql", "(1 = 1)"),  # rendered as a root, as ``item.sql`` renders its copy
        ("SELECT x::INT + 1 FROM t", "postgres", "CAST(x AS INT) + 1"),
    ],
)
def test_labels_of_note(sql: str, dialect: str, label: str) -> None:
    item = sqlglot.parse_one(sql, read=dialect).expressions[0]
    assert sql_text(item, dialect) == item.sql(dialect=dialect) == label


def test_a_render_copy_is_a_copy_in_all_a_generator_reads() -> None:
    tree = sqlglot.parse_one("SELECT SUM(i.qty * i.price) /* total */, UPPER(o.region) FROM t", read="doris")
    item = tree.expressions[0]
    item.this.meta["flag"] = {"nested": 1}
    made, copied = render_copy(item), item.copy()
    assert made == copied and made is not item and made.parent is None
    pairs = list(zip(made.walk(), copied.walk(), item.walk(), strict=True))
    for m, c, original in pairs:
        assert type(m) is type(c) and m.args.keys() == c.args.keys()
        assert m.comments == c.comments and m.meta == c.meta and m.type == c.type
        assert (m.arg_key, m.index) == (c.arg_key, c.index)
        assert m.parent is None or any(
            m is v or (type(v) is list and any(m is x for x in v)) for v in m.parent.args.values()
        )
        assert m is not original and (m.comments is None or m.comments is not original.comments)
        assert original._meta is None or m._meta is not original._meta
    made.this.meta["flag"]["nested"] = 2  # one level deep: the generator writes no metadata of a node it was given
    assert item.this.meta["flag"] == {"nested": 2}
    assert render_copy(exp.cast(exp.column("a"), "INT")).to.this == exp.DataType.Type.INT


@pytest.mark.parametrize("name", ["insert_tpcds.sql", "tpcds.sql", "insert_tpch.sql"])
def test_labels_of_the_benchmark_corpus(name: str) -> None:
    """Every select item (and the nodes under it) of the TPC corpus, in three dialects."""
    path = shared_path("corpus", name)
    compared = 0
    for piece in split_script(path.read_text(encoding="utf-8"), "generic"):
        if piece.tree is None:
            continue
        before = piece.tree.sql()
        for node in _nodes(piece.tree):
            for dialect in ("", "doris", "tsql"):
                assert sql_text(node, dialect) == node.sql(dialect=dialect), (dialect, node)
                compared += 1
        assert piece.tree.sql() == before
    assert compared > 1000
