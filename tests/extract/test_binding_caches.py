"""What the resolver keeps per statement and per scope to bind faster, and when it must not."""

from __future__ import annotations

import sqlglot
from sqlglot import exp

from headwater.catalog import ColumnSchema, LayeredCatalog, MemoryCatalog, Names, TableSchema
from headwater.extract import ExtractOptions, Extractor
from headwater.extract.columns import _candidates
from headwater.extract.resolve import Resolver, _table_node
from headwater.extract.scope import Relation, Scope, Source
from headwater.extract.trees import size_within, tree_size
from headwater.model import TableRef


def _resolver() -> Resolver:
    return Resolver(LayeredCatalog(), Names.for_dialect("generic"), "internal", None, statement_index=0)


def _table(alias: str, *columns: str) -> Source:
    return Source(alias=alias, table=TableRef("internal", None, alias), columns=list(columns))


def test_a_scopes_candidates_for_a_name_are_kept_until_a_source_is_added() -> None:
    scope = Scope(None, {})
    scope.add(_table("a", "x", "y"))
    r = _resolver()
    col = exp.column("x")
    assert [alt.sql() for alt in r._unqualified(scope, "x", col) or []] == ["a.x"]
    assert "x" in scope.bound
    scope.add(_table("b", "x"))  # x is now ambiguous: what was kept is dropped
    assert scope.bound == {}
    r._unqualified(scope, "x", col)
    assert [d.code for d in r.diagnostics] == ["ambiguous_column"]


def test_a_derived_tables_answer_is_kept_once_its_relation_is_loaded() -> None:
    scope = Scope(None, {})
    loads: list[int] = []

    def load() -> Relation:
        loads.append(1)
        return Relation(["x"], ["x"], [[exp.column("x")]])

    derived = Source(alias="d", load=load)
    scope.add(derived)
    assert _candidates(scope, "x") == ([derived], [])
    assert scope.bound["x"] == ([derived], []) and loads == [1]
    assert _candidates(scope, "z") == ([], [])
    assert loads == [1]


def test_size_within_is_tree_size_up_to_the_limit() -> None:
    for sql in ("a", "a + 1", "CASE WHEN a > 1 THEN b ELSE c END", "f(a, b, c, d, e, g, h)"):
        node = sqlglot.parse_one(sql)
        size = tree_size(node, {})
        assert size_within(node, 64) == size
        assert size_within(node, size - 1) == size  # past the limit: limit + 1
        assert size_within(node, 1) == min(size, 2)


def test_a_subquerys_table_node_is_a_fresh_copy_of_the_parsed_name() -> None:
    first, second = _table_node("store_sales"), _table_node("store_sales")
    assert first is not second
    assert first.sql() == second.sql() == exp.to_table("store_sales").sql()
    assert first == exp.to_table("store_sales")


def test_a_lateral_alias_is_still_reported_when_another_column_was_unresolved() -> None:
    """The select list is searched for unresolved aliases only when the statement has an unresolved
    column: here it has, and the search still reports the alias."""
    catalog = MemoryCatalog({TableRef("internal", None, "s"): TableSchema((ColumnSchema("a"),))})
    ex = Extractor(catalog, ExtractOptions(dialect="postgres"))
    event = ex.run("INSERT INTO t SELECT a AS x, x + 1 AS y FROM s").events[0]
    codes = [d.code for d in event.diagnostics]
    assert "lateral_alias_unsupported" in codes


def test_no_unresolved_column_means_no_lateral_alias_search() -> None:
    r = _resolver()
    catalog_free = sqlglot.parse_one("SELECT 1 AS x, 2 AS y")
    r.relation(catalog_free)
    assert not r.unbound
    r2 = _resolver()
    r2.relation(sqlglot.parse_one("SELECT nope FROM (SELECT 1 AS x) d"))
    assert r2.unbound


class _CountingCatalog(MemoryCatalog):
    def __init__(self, tables: dict) -> None:
        super().__init__(tables)
        self.asked: list[TableRef] = []

    def table(self, ref: TableRef) -> TableSchema | None:
        self.asked.append(ref)
        return super().table(ref)


def test_the_catalog_is_asked_once_per_table_of_a_statement() -> None:
    s = TableRef("internal", None, "s")
    t = TableRef("internal", None, "t")
    catalog = _CountingCatalog(
        {s: TableSchema((ColumnSchema("a"), ColumnSchema("b"))), t: TableSchema((ColumnSchema("x"),))}
    )
    ex = Extractor(catalog, ExtractOptions(dialect="generic"))
    sql = "INSERT INTO t WITH c AS (SELECT a FROM s) SELECT c.a FROM c JOIN s ON c.a = s.b JOIN s s2 ON s2.a = c.a"
    event = ex.run(sql).events[0]
    assert [str(r) for r in event.sources] == ["internal.s"]
    assert sorted(str(r) for r in catalog.asked) == ["internal.s", "internal.t"]  # s is read three times


def test_names_are_folded_as_the_dialect_folds_them() -> None:
    for dialect in ("generic", "postgres", "snowflake", "doris", "bigquery", "clickhouse", "tsql", "spark"):
        names = Names.for_dialect(dialect)
        r = Resolver(LayeredCatalog(), names, "internal", None, statement_index=0)
        for ident in (exp.to_identifier("MiXed"), exp.to_identifier("MiXed", quoted=True), "MiXed", exp.column("Col")):
            assert r.table_ident(ident) == names.table_ident(ident)
            assert r.column_ident(ident) == names.column_ident(ident)
        assert r.table_ident(None) is None and r.column_ident(None) is None
