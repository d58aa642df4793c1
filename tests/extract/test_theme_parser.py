"""Issue 19 themes 15 and 17: statements the databases accept and sqlglot does not parse, read
after a narrow token edit (Doris load labels, Teradata column attributes) or cut where T-SQL
statements start without semicolons."""

from __future__ import annotations

import pytest

from headwater.extract import extract_script
from tests.extract.helpers import direct, one_event, sources


@pytest.mark.parametrize("dialect", ["doris", "starrocks"])
def test_insert_with_label(dialect):
    e = one_event("INSERT INTO t WITH LABEL load_20240101 SELECT a, b FROM s", dialect=dialect)
    assert (e.target.table.qualified, sources(e)) == ("db.t", ["db.s"])
    assert direct(e) == [("a", "s.a", "IDENTITY"), ("b", "s.b", "IDENTITY")]
    assert e.context.sql.startswith("INSERT INTO t WITH LABEL")  # the original text is kept


def test_insert_partition_label_and_column_list():
    e = one_event("INSERT INTO t PARTITION (p1, p2) WITH LABEL l2 (c1) SELECT x FROM s", dialect="doris")
    assert direct(e) == [("c1", "s.x", "IDENTITY")]


def test_label_error_positions_stay_those_of_the_script():
    res = extract_script("SELECT 1;\nINSERT INTO t WITH LABEL l SELECT FROM WHERE", dialect="doris", database="db")
    assert res.statements[1].error is not None and res.statements[1].error.line == 2


@pytest.mark.parametrize(
    "sql",
    [
        "CREATE TABLE t2 AS (SELECT a (TITLE 'Alpha'), b FROM t1) WITH DATA",
        "CREATE TABLE t2 AS (SELECT a (NAMED alpha), b (FORMAT 'X(10)') FROM t1) WITH DATA",
    ],
)
def test_teradata_column_attributes(sql):
    e = one_event(sql, dialect="teradata")
    assert direct(e) == [("a", "t1.a", "IDENTITY"), ("b", "t1.b", "IDENTITY")]


def test_tsql_statements_without_semicolons():
    res = extract_script(
        "INSERT INTO t2 SELECT a FROM t1\nINSERT INTO t3 SELECT b FROM t1 WHERE b > 0\nUPDATE t4 SET c = 1",
        dialect="tsql",
        database="db",
        statements="all",
    )
    assert not res.failures
    assert [(s.line, s.kind) for s in res.statements] == [(1, "insert"), (2, "insert"), (3, "update")]
    assert [(e.target.table.name, sources(e)) for e in res.events] == [
        ("t2", ["db.t1"]),
        ("t3", ["db.t1"]),
        ("t4", []),
    ]


def test_tsql_if_else_batch():
    res = extract_script(
        "IF @x = 1\n  INSERT INTO t2 SELECT a FROM t1\nELSE\n  INSERT INTO t3 SELECT a FROM t1",
        dialect="tsql",
        database="db",
    )
    assert [(s.line, e.target.table.name) for s in res.statements for e in s.events] == [(2, "t2"), (4, "t3")]


@pytest.mark.parametrize("dialect", ["spark", "hive", "databricks"])
def test_spark_ctas_without_as_before_a_with(dialect):
    """``CREATE TABLE t WITH c AS (…) SELECT …`` (Spark's ``AS`` is optional): sqlglot reads the
    ``WITH`` as table properties; the header and the query are parsed apart and joined."""
    sql = "DROP TABLE IF EXISTS t2;\nCREATE TABLE t2\n\nWITH\n  m AS (SELECT a, b FROM s)\nSELECT a, b AS c FROM m"
    res = extract_script(sql, dialect=dialect, database="db")
    (e,) = res.events
    assert (e.target.table.qualified, sources(e)) == ("db.t2", ["db.s"])
    assert direct(e) == [("a", "s.a", "IDENTITY"), ("c", "s.b", "IDENTITY")]
    assert (res.statements[1].line, e.context.sql.splitlines()[0]) == (2, "CREATE TABLE t2")


@pytest.mark.parametrize("dialect", ["spark", "hive"])
def test_a_comment_written_as_adjacent_literals(dialect):
    """``COMMENT 'the target''s id'`` is one comment in Hive (adjacent literals are joined); sqlglot
    reads only the first literal after COMMENT. The table's columns are known to the next statement."""
    sql = (
        "CREATE EXTERNAL TABLE r (`rd_from` bigint COMMENT 'the source''s id',"
        " `rd_title` string COMMENT 'x' 'y' 'z') COMMENT 'see' ' the docs' STORED AS AVRO LOCATION '/wmf/r';\n"
        "INSERT INTO t2 SELECT * FROM r"
    )
    res = extract_script(sql, dialect=dialect, database="db")
    assert [s.error for s in res.statements] == [None, None]
    (e,) = res.events
    assert direct(e) == [("rd_from", "r.rd_from", "IDENTITY"), ("rd_title", "r.rd_title", "IDENTITY")]
