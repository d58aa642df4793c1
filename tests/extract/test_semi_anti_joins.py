"""LEFT SEMI / LEFT ANTI JOIN (Spark, Databricks, Hive, Doris, StarRocks; DuckDB's SEMI / ANTI JOIN) keep
only the left side's rows and columns: the right side is read by the ON condition alone. A RIGHT SEMI /
RIGHT ANTI JOIN (Doris, StarRocks) keeps only the right side's."""

from __future__ import annotations

import pytest

from tests.extract.helpers import codes, dataset, direct, one_event, sources

SCHEMA = {"db.a": ["k", "v", "x"], "db.b": ["k", "v", "y"]}
NO_SCHEMA_SQL = "CREATE TABLE t AS SELECT k, v FROM a {join} b ON a.k = b.k"

LEFT_KEEPING = [
    ("spark", "LEFT SEMI JOIN"),
    ("spark", "LEFT ANTI JOIN"),
    ("spark", "SEMI JOIN"),
    ("spark", "ANTI JOIN"),
    ("databricks", "LEFT SEMI JOIN"),
    ("databricks", "LEFT ANTI JOIN"),
    ("hive", "LEFT SEMI JOIN"),
    ("doris", "LEFT SEMI JOIN"),
    ("doris", "LEFT ANTI JOIN"),
    ("starrocks", "LEFT ANTI JOIN"),
    ("duckdb", "SEMI JOIN"),
    ("duckdb", "ANTI JOIN"),
]


@pytest.mark.parametrize(("dialect", "join"), LEFT_KEEPING)
def test_unqualified_names_of_both_sides_are_the_left_sides(dialect, join):
    """Without a schema both sides may hold ``k`` and ``v``: only the left one is visible."""
    e = one_event(NO_SCHEMA_SQL.format(join=join), dialect=dialect)
    assert direct(e) == [("k", "a.k", "IDENTITY"), ("v", "a.v", "IDENTITY")]
    assert dataset(e) == [("JOIN", "a.k = b.k")]
    assert sources(e) == ["db.a", "db.b"]
    assert "ambiguous_column" not in codes(e)
    assert e.status.value == "COMPLETE"


@pytest.mark.parametrize(("dialect", "join"), LEFT_KEEPING)
def test_star_lists_the_left_side_only(dialect, join):
    e = one_event(f"CREATE TABLE t AS SELECT * FROM a {join} b ON a.k = b.k WHERE v > 0", SCHEMA, dialect=dialect)
    assert [f.name for f in e.target.columns] == ["k", "v", "x"]
    assert dataset(e) == [("JOIN", "a.k = b.k"), ("FILTER", "a.v > 0")]
    assert codes(e) == []


@pytest.mark.parametrize(("dialect", "join"), LEFT_KEEPING)
def test_the_right_sides_own_column_is_not_visible(dialect, join):
    e = one_event(f"CREATE TABLE t AS SELECT y FROM a {join} b ON a.k = b.k", SCHEMA, dialect=dialect)
    assert "unknown_column" in codes(e)


@pytest.mark.parametrize("dialect", ["spark", "hive", "duckdb"])
def test_a_later_join_sees_the_left_side_and_its_own(dialect):
    semi = "SEMI JOIN" if dialect == "duckdb" else "LEFT SEMI JOIN"
    e = one_event(
        f"CREATE TABLE t AS SELECT a.k, c.z FROM a {semi} b ON a.k = b.k AND b.y > 1 JOIN c ON c.k = a.k",
        {**SCHEMA, "db.c": ["k", "z"]},
        dialect=dialect,
    )
    assert direct(e) == [("k", "a.k", "IDENTITY"), ("z", "c.z", "IDENTITY")]
    assert dataset(e) == [("JOIN", "a.k = b.k"), ("JOIN", "b.y > 1"), ("JOIN", "c.k = a.k")]
    assert codes(e) == []


@pytest.mark.parametrize(("dialect", "join"), [("doris", "RIGHT SEMI JOIN"), ("doris", "RIGHT ANTI JOIN")])
def test_right_semi_keeps_the_right_side(dialect, join):
    e = one_event(NO_SCHEMA_SQL.format(join=join), dialect=dialect)
    assert direct(e) == [("k", "b.k", "IDENTITY"), ("v", "b.v", "IDENTITY")]
    assert dataset(e) == [("JOIN", "a.k = b.k")]
    assert "ambiguous_column" not in codes(e)


def test_right_semi_hides_every_earlier_source_but_their_joins_keep_them():
    e = one_event(
        "CREATE TABLE t AS SELECT * FROM a JOIN c ON a.k = c.k RIGHT SEMI JOIN b ON a.k = b.k",
        {**SCHEMA, "db.c": ["k", "z"]},
        dialect="doris",
    )
    assert [f.name for f in e.target.columns] == ["k", "v", "y"]
    assert dataset(e) == [("JOIN", "a.k = c.k"), ("JOIN", "a.k = b.k")]
    assert codes(e) == []


def test_using_of_a_left_semi_join_is_the_left_column():
    e = one_event("CREATE TABLE t AS SELECT k FROM a LEFT SEMI JOIN b USING (k)", SCHEMA, dialect="spark")
    assert direct(e) == [("k", "a.k", "IDENTITY")]
    assert dataset(e) == [("JOIN", "a.k = b.k")]


def test_an_ordinary_left_join_still_sees_both_sides():
    e = one_event(NO_SCHEMA_SQL.format(join="LEFT JOIN"), dialect="spark")
    assert "ambiguous_column" in codes(e)
