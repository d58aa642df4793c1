"""A table the SQL creates with CREATE TABLE IF NOT EXISTS may predate that statement (made earlier,
then altered): when the statements that write or read it disagree with its columns, the SQL (which
runs) is right and the DDL is stale. A WARNING, with the edges the SQL states kept; a plain CREATE
TABLE, or a catalog given, describes the table as it is: an ERROR."""

from __future__ import annotations

import pytest

from headwater.model import Severity, Status
from tests.extract.helpers import codes, direct, one_event

SCHEMA = {"db.orders": ["id", "amount", "region"]}
STALE = "CREATE TABLE IF NOT EXISTS t2 (x INT, y INT, z INT) PARTITIONED BY (year INT); "


def severity(e, code: str) -> Severity:
    return next(d.severity for d in e.diagnostics if d.code == code)


@pytest.mark.parametrize("dialect", ["spark", "hive", "databricks"])
def test_a_stale_ddl_width_is_a_warning_bound_by_the_querys_names(dialect):
    e = one_event(
        STALE + "INSERT OVERWRITE TABLE t2 PARTITION (year = 2024) SELECT id AS a, amount AS b FROM orders",
        SCHEMA,
        dialect=dialect,
    )
    assert codes(e) == ["column_count_mismatch"]
    assert severity(e, "column_count_mismatch") is Severity.WARNING
    assert [f.name for f in e.target.columns] == ["a", "b", "year"]
    assert direct(e) == [
        ("a", "orders.id", "IDENTITY"),
        ("b", "orders.amount", "IDENTITY"),
        ("year", "2024", "TRANSFORMATION"),
    ]
    assert e.status is Status.PARTIAL
    assert {c.target_column for c in e.incomplete_columns} == {"a", "b", "year"}


def test_a_stale_ddl_narrower_than_the_query_too():
    e = one_event("CREATE TABLE IF NOT EXISTS t2 (x INT); INSERT INTO t2 SELECT id, amount, region FROM orders", SCHEMA)
    assert severity(e, "column_count_mismatch") is Severity.WARNING
    assert [f.name for f in e.target.columns] == ["id", "amount", "region"]


def test_a_plain_create_tables_width_is_still_an_error():
    e = one_event("CREATE TABLE t2 (x INT, y INT, z INT); INSERT INTO t2 SELECT id, amount FROM orders", SCHEMA)
    assert severity(e, "column_count_mismatch") is Severity.ERROR


def test_a_column_list_the_sql_gives_is_still_an_error():
    e = one_event(STALE + "INSERT INTO t2 (x, y) SELECT id FROM orders", SCHEMA, dialect="spark")
    assert severity(e, "column_count_mismatch") is Severity.ERROR


@pytest.mark.parametrize("dialect", ["spark", "hive"])
def test_an_unqualified_column_a_stale_ddl_lacks_is_kept_with_a_warning(dialect):
    e = one_event(
        "CREATE TABLE IF NOT EXISTS g (country STRING, n INT); "
        "CREATE TABLE out AS SELECT country, size_growth FROM g WHERE year = 2021",
        dialect=dialect,
    )
    assert direct(e) == [("country", "g.country", "IDENTITY"), ("size_growth", "g.size_growth", "IDENTITY")]
    assert "unknown_column" not in codes(e)
    assert severity(e, "column_not_in_catalog") is Severity.WARNING
    assert e.status is Status.PARTIAL


def test_an_unqualified_column_a_plain_ddl_lacks_stays_an_error():
    e = one_event("CREATE TABLE g (country STRING); CREATE TABLE out AS SELECT size_growth FROM g", dialect="spark")
    assert severity(e, "unknown_column") is Severity.ERROR


def test_two_tables_neither_of_which_lists_the_name_stay_an_error():
    e = one_event(
        "CREATE TABLE IF NOT EXISTS g (k STRING); CREATE TABLE IF NOT EXISTS h (k STRING); "
        "CREATE TABLE out AS SELECT size_growth FROM g JOIN h ON g.k = h.k",
        dialect="spark",
    )
    assert severity(e, "unknown_column") is Severity.ERROR
