"""Base-table leaves: one node per column across statements (``columns.base_leaf``), rendered once per
generator (``events.LeafColumns``) and given their lineage without the classifier's walk
(``events.leaf_lineage``). Each shortcut must give what the general path gives, in every dialect."""

from __future__ import annotations

import pytest
import sqlglot
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect

from headwater.extract import ExtractOptions, Extractor
from headwater.extract.classify import classify
from headwater.extract.columns import LEAF_KEYS, base_leaf, leaf_key, leaf_ref
from headwater.extract.events import LeafColumns, leaf_lineage, leaf_texts
from headwater.extract.scope import REF, column_node
from headwater.model import DirectType, Origin, TableRef

from .helpers import catalog_of

DIALECTS = ["", "doris", "spark", "mysql", "postgres", "bigquery", "snowflake", "tsql", "duckdb", "athena", "hive"]
# names that some dialect quotes, escapes or folds: reserved words, case, digits, quote characters
NAMES = ["a", "Ab", "AB", "select", "order", "1x", "a b", 'q"t', "b`t", "x]y", "é", "_x", "user", "key"]
TABLES = ["t", "Orders", "select", "2024_sales", "s3://bucket/key"]


def generator(dialect: str) -> object:
    gen = Dialect.get_or_raise(dialect).generator()
    return getattr(gen, "_trino_generator", gen)


def leaf(table: str, name: str) -> exp.Column:
    if "://" in table:
        return column_node(TableRef("s3", None, table), name)
    return column_node(TableRef("internal", "db", table), name)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_leafs_kept_text_is_the_generators_own(dialect: str) -> None:
    plain = generator(dialect)
    kept = generator(dialect)
    leaf_texts(kept)
    handler = kept._dispatch[exp.Column]  # type: ignore[attr-defined]
    assert isinstance(handler, LeafColumns)
    assert plain._dispatch.get(exp.Column) is not handler  # type: ignore[attr-defined]  # the class's table untouched
    for table in TABLES:
        for name in NAMES:
            for _ in range(2):  # made, then kept
                node = leaf(table, name)
                assert leaf_key(node) is not None
                assert kept.sql(node) == plain.sql(node)  # type: ignore[attr-defined]
                other = leaf("t", "a")
                for tree in (exp.EQ(this=node, expression=other), exp.Sum(this=node), exp.Paren(this=node)):
                    assert kept.sql(tree) == plain.sql(tree)  # type: ignore[attr-defined]
    assert handler.texts  # the texts were kept
    leaf_texts(kept)
    assert kept._dispatch[exp.Column] is handler  # type: ignore[attr-defined]  # installed once


def test_columns_that_are_not_plain_leaves_go_to_the_generator() -> None:
    gen = generator("")
    leaf_texts(gen)
    commented = leaf("t", "a")
    commented.comments = ["note"]
    marked = leaf("t", "b")
    marked.meta["other"] = 1
    joined = leaf("t", "c")
    joined.set("join_mark", True)
    parsed = sqlglot.parse_one("SELECT db.t.x").selects[0]
    for node in (commented, marked, joined, parsed):
        assert leaf_key(node) is None
    assert gen.sql(commented) == "t.a /* note */"  # type: ignore[attr-defined]
    assert gen.sql(parsed) == "db.t.x"  # type: ignore[attr-defined]
    assert leaf_ref(parsed) is None and leaf_ref(marked) is None


def test_a_leafs_lineage_is_what_classify_gives_it() -> None:
    for table, name in (("t", "a"), ("Orders", "select"), ("s3://bucket/key", "x")):
        node = leaf(table, name)
        ref = leaf_ref(node)
        assert ref is node.meta[REF]
        c = classify(node)
        assert (c.type, c.origin) == (DirectType.IDENTITY, Origin.COLUMN)
        assert not c.indirect and not c.unbound
        assert leaf_lineage(ref) == (c.sources, c.inputs)
        assert leaf_lineage(ref)[1] is leaf_lineage(ref)[1]  # made once per reference


def test_one_leaf_per_column_across_statements_and_no_tree_held() -> None:
    table = TableRef("internal", "db", "plain_columns_t")
    key = (table.catalog, table.database, table.name, "a")
    first = base_leaf(table, "a", key)
    assert base_leaf(table, "a", key) is first
    assert LEAF_KEYS[id(first)] == (first, leaf_key(first))

    cat = catalog_of({"db.src": ["a", "b"], "db.dst": ["x", "y"]})
    ex = Extractor(cat, ExtractOptions(dialect="doris"), database="db")
    sql = "INSERT INTO dst SELECT a, a + b FROM src WHERE a = b"
    events = [ex.run(sql).events[0] for _ in range(2)]
    assert events[0].direct == events[1].direct
    assert [d.expression for d in events[0].direct] == ["src.a", "src.a + src.b"]
    src = TableRef("internal", "db", "src")
    for name in ("a", "b"):
        shared = base_leaf(src, name, (src.catalog, src.database, src.name, name))
        assert shared.parent is None  # let go once the event was made: no statement's tree kept alive
