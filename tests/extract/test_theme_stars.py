"""Issue 19 theme 8: BigQuery star expressions (``* REPLACE``, ``* EXCEPT``, ``struct.*``, ``IF(…).*``)."""

from __future__ import annotations

from tests.extract.helpers import codes, direct, one_event

SCHEMA = {"db.t": ["a", "b", "c"], "db.u": ["a", "d"]}


def test_star_replace_takes_the_replacing_expression():
    e = one_event("CREATE TABLE out AS SELECT * REPLACE (UPPER(b) AS a) FROM t", SCHEMA, dialect="bigquery")
    assert direct(e) == [("a", "UPPER(t.b)", "TRANSFORMATION"), ("b", "t.b", "IDENTITY"), ("c", "t.c", "IDENTITY")]


def test_qualified_star_except_and_replace():
    e = one_event(
        "CREATE TABLE out AS SELECT t.* EXCEPT (a) REPLACE (b + 1 AS b), u.d FROM t JOIN u ON t.a = u.a",
        SCHEMA,
        dialect="bigquery",
    )
    assert direct(e) == [("b", "t.b + 1", "TRANSFORMATION"), ("c", "t.c", "IDENTITY"), ("d", "u.d", "IDENTITY")]


def test_struct_column_star_is_not_an_unknown_table():
    e = one_event("CREATE TABLE out AS SELECT a, b.* FROM t", SCHEMA, dialect="bigquery")
    assert direct(e) == [("a", "t.a", "IDENTITY")]
    assert "unknown_qualifier" not in codes(e) and "star_unknown_columns" in codes(e)


def test_star_of_an_expression_is_not_a_column_named_by_its_text():
    e = one_event("CREATE TABLE out AS SELECT a, IF(a > 0, b, c).* FROM t", SCHEMA, dialect="bigquery")
    assert [f.name for f in e.target.columns] == ["a"]
    assert "star_unknown_columns" in codes(e)
