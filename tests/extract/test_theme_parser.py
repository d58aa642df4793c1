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
