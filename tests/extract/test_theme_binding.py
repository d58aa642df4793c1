"""Issue 19 themes 5, 6, 7 and 9: certain bindings through ``*``, same-named CTE and table,
``db.t.x`` under an alias, cast output names, FULL / RIGHT JOIN USING."""

from __future__ import annotations

import pytest

from tests.extract.helpers import codes, direct, one_event, sources

SCHEMA = {"db.a": ["k", "x"], "db.b": ["k", "y"]}


@pytest.mark.parametrize("dialect", ["mysql", "doris", "postgres", "snowflake", "spark", "bigquery", "trino"])
def test_star_over_one_unknown_table_binds_a_column_it_does_not_list(dialect):
    e = one_event(
        "INSERT INTO out SELECT user_id FROM "
        "(SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY ts DESC) AS rk FROM u) x WHERE rk = 1",
        dialect=dialect,
    )
    assert [(c.lower(), x.lower()) for c, x, _ in direct(e)] == [("user_id", "u.user_id")]


@pytest.mark.parametrize("dialect", ["postgres", "spark", "trino"])
def test_star_through_two_levels_and_a_cte(dialect):
    e = one_event("INSERT INTO out SELECT b FROM (SELECT * FROM (SELECT * FROM t) i) o", dialect=dialect)
    assert direct(e) == [("b", "t.b", "IDENTITY")]
    e = one_event("INSERT INTO out WITH c AS (SELECT * FROM u) SELECT name, age FROM c", dialect=dialect)
    assert direct(e) == [("name", "u.name", "IDENTITY"), ("age", "u.age", "IDENTITY")]


@pytest.mark.parametrize("dialect", ["postgres", "mysql"])
def test_star_over_two_unknown_tables_stays_ambiguous(dialect):
    e = one_event("INSERT INTO out SELECT k FROM (SELECT * FROM a CROSS JOIN b) x", dialect=dialect)
    assert e.direct[0].sources == ()
    assert e.status.value != "COMPLETE"


@pytest.mark.parametrize("dialect", ["mysql", "postgres", "spark", "trino"])
def test_cte_named_like_a_qualified_table_does_not_hide_it(dialect):
    e = one_event(
        "INSERT INTO out WITH w AS (SELECT a FROM s) SELECT w.a, db.w.b FROM w CROSS JOIN db.w", dialect=dialect
    )
    assert sorted(sources(e)) == ["db.s", "db.w"]
    assert direct(e) == [("a", "s.a", "IDENTITY"), ("b", "w.b", "IDENTITY")]


@pytest.mark.parametrize("dialect", ["mysql", "postgres"])
def test_cte_and_same_named_table_under_star(dialect):
    e = one_event(
        "INSERT INTO out WITH w AS (SELECT a FROM s) SELECT * FROM w CROSS JOIN db.w",
        {"db.w": ["b"], "db.s": ["a"]},
        dialect=dialect,
    )
    assert sorted(sources(e)) == ["db.s", "db.w"]
    assert direct(e) == [("a", "s.a", "IDENTITY"), ("b", "w.b", "IDENTITY")]


@pytest.mark.parametrize("dialect", ["mysql", "doris", "starrocks"])
def test_database_qualified_column_under_an_alias(dialect):
    e = one_event("INSERT INTO out SELECT db.t.x FROM db.t AS t1", dialect=dialect)
    assert direct(e) == [("x", "t.x", "IDENTITY")]
    e = one_event(
        "INSERT INTO out SELECT sales.orders.id, o2.amount FROM sales.orders AS o1 JOIN db.orders o2 ON o1.id = o2.id",
        dialect=dialect,
    )
    assert [(c, [str(r) for r in d.sources]) for c, d in zip(["id", "amount"], e.direct, strict=True)] == [
        ("id", ["internal.sales.orders.id"]),
        ("amount", ["internal.db.orders.amount"]),
    ]
    assert "unknown_qualifier" not in codes(e)


@pytest.mark.parametrize("dialect", ["postgres", "redshift"])
def test_postgres_names_an_unaliased_cast_by_its_column(dialect):
    e = one_event(
        "CREATE TABLE out AS SELECT col1::timestamp, CAST(col2 AS INT), col3::int::text FROM s", dialect=dialect
    )
    assert [f.name for f in e.target.columns] == ["col1", "col2", "col3"]


@pytest.mark.parametrize("dialect", ["spark", "databricks"])
def test_spark_names_an_unaliased_cast_of_a_column_by_the_column(dialect):
    e = one_event("CREATE TABLE out AS SELECT CAST(col1 AS TIMESTAMP), CAST(s.col2 AS INT) FROM s", dialect=dialect)
    assert [f.name for f in e.target.columns] == ["col1", "col2"]


@pytest.mark.parametrize("dialect", ["mysql", "duckdb"])
def test_other_dialects_name_a_cast_by_its_text(dialect):
    e = one_event("CREATE TABLE out AS SELECT CAST(col1 AS CHAR) FROM s", dialect=dialect)
    assert e.target.columns[0].name.upper().startswith("CAST(")


@pytest.mark.parametrize("dialect", ["postgres", "mysql", "spark", "trino", "snowflake", "duckdb"])
def test_full_join_using_output_comes_from_both_sides(dialect):
    e = one_event("INSERT INTO out SELECT k, a.x, b.y FROM a FULL JOIN b USING (k)", SCHEMA, dialect=dialect)
    k = e.direct[0]
    assert k.expression.upper() == "COALESCE(A.K, B.K)"
    assert [str(c).lower() for c in k.sources] == ["internal.db.a.k", "internal.db.b.k"]


@pytest.mark.parametrize("dialect", ["postgres", "mysql", "spark", "trino", "duckdb"])
def test_right_join_using_output_comes_from_both_sides(dialect):
    e = one_event("INSERT INTO out SELECT k, y FROM a RIGHT JOIN b USING (k)", SCHEMA, dialect=dialect)
    assert [str(c).lower() for c in e.direct[0].sources] == ["internal.db.a.k", "internal.db.b.k"]


@pytest.mark.parametrize("dialect", ["postgres", "spark", "trino"])
def test_full_join_using_star_and_left_join_unchanged(dialect):
    e = one_event("CREATE TABLE out AS SELECT * FROM a FULL OUTER JOIN b USING (k)", SCHEMA, dialect=dialect)
    assert [d.target_column for d in e.direct] == ["k", "x", "y"]
    assert e.direct[0].expression.upper() == "COALESCE(A.K, B.K)"
    e = one_event("INSERT INTO out SELECT k FROM a LEFT JOIN b USING (k)", SCHEMA, dialect=dialect)
    assert direct(e) == [("k", "a.k", "IDENTITY")]
