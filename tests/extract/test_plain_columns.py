"""Base-table leaves: one node per column across statements (``columns.base_leaf``), rendered once per
generator (``events.LeafColumns``) and given their lineage without the classifier's walk
(``events.leaf_lineage``). Each shortcut must give what the general path gives, in every dialect."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import sqlglot
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect

from headwater.extract import ExtractOptions, Extractor
from headwater.extract.classify import classify
from headwater.extract.columns import LEAF_KEYS, base_leaf, leaf_key, leaf_ref
from headwater.extract.events import LeafColumns, columns_read, leaf_lineage, leaf_texts
from headwater.extract.resolve import _COLUMN_OR_QUERY
from headwater.extract.scope import REF, UNRESOLVED, column_node, find_all, refs_of
from headwater.extract.trees import flat_columns
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


CORPUS = Path(os.environ.get("HEADWATER_SHARED", "/work/shared")) / "corpus"
FLAT_SQL = [
    "SELECT a.x = b, SUM(c), f(d, 'k', 2), e IN (1, f, 'g'), -h, i BETWEEN 1 AND j, COUNT(*), t.* , "
    'a + f(b), x = (SELECT 1), CAST(k AS INT), db.t.c > 0, "q"."r" <> s, 1 = 1, NOT m, COALESCE(n, o) FROM t',
    "SELECT * FROM t JOIN u ON t.k = u.k AND t.a < u.b WHERE t.c LIKE 'x%' OR u.d IS NULL",
]


def corpus_trees() -> list[exp.Expression]:
    out = [sqlglot.parse_one(sql, read=d) for sql in FLAT_SQL for d in ("", "postgres", "duckdb")]
    for name in ("insert_tpcds.sql", "insert_tpch.sql"):
        path = CORPUS / name
        if path.exists():
            out += [t for t in sqlglot.parse(path.read_text()) if t is not None]
    return out


def test_flat_columns_are_what_the_walk_finds() -> None:
    """Where ``flat_columns`` answers, the resolver's walk (``find_all`` of columns and queries)
    finds exactly those columns in that order, and nothing it would skip (a ``*``, a query)."""
    answered = declined = 0
    for tree in corpus_trees():
        for node in tree.walk():
            flat = flat_columns(node)
            if flat is None:
                declined += 1
                continue
            answered += 1
            found = find_all(node, _COLUMN_OR_QUERY)
            assert [id(n) for n in flat] == [id(n) for n in found]
            assert all(isinstance(n.this, exp.Identifier) for n in found)
    assert answered > 1000 and declined > 1000


def test_columns_read_is_refs_of() -> None:
    """The event's columns of a condition (``columns_read``) are ``refs_of``'s, flat or not, shared or not."""
    t, u = TableRef("internal", "db", "t"), TableRef("internal", "db", "u")
    a, b, c = column_node(t, "a"), column_node(u, "b"), column_node(t, "c")
    marker = exp.column("z")
    marker.meta[UNRESOLVED] = True
    nodes = [
        exp.EQ(this=a, expression=b),
        exp.EQ(this=a, expression=column_node(t, "a")),
        exp.In(this=c, expressions=[exp.Literal.number(1), b, a]),
        exp.EQ(this=marker, expression=exp.Literal.string("k")),
        exp.Sum(this=exp.Add(this=a, expression=b)),
        exp.Between(this=a, low=exp.Literal.number(1), high=b),
    ]
    for node in nodes:
        for shared in (False, True):
            assert columns_read(node, shared) == refs_of(node, shared)
    assert flat_columns(nodes[4]) is None and flat_columns(nodes[2]) is not None


@pytest.mark.parametrize(
    ("dialect", "name"),
    [
        ("postgres", "col1"),  # PostgreSQL names a cast after its argument (checked on PostgreSQL)
        ("redshift", "col1"),
        ("duckdb", "cast(col1 as timestamp)"),  # DuckDB 2.0.1: ``CAST(col1 AS TIMESTAMP)``
    ],
)
def test_an_unaliased_cast_is_named_as_the_database_names_it(dialect, name):
    from headwater.extract import extract_script

    (e,) = extract_script("CREATE TABLE db.o AS SELECT col1::timestamp FROM db.t", dialect=dialect).events
    assert [f.name for f in e.target.columns] == [name]
    assert [str(c) for d in e.direct for c in d.sources] == ["internal.db.t.col1"]
