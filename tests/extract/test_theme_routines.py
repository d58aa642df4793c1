"""Issue 19 themes 12 and 15 (jobs): the statements inside procedures, functions, scripting
blocks and Doris jobs, each at its own line, named by its routine; dynamic SQL reported."""

from __future__ import annotations

import pytest

from headwater.extract import extract_script
from headwater.extract.routines import ROUTINE_PROPERTY
from tests.extract.helpers import direct, sources


def run(sql: str, dialect: str, statements: str = "doris"):
    res = extract_script(sql, dialect=dialect, database="db", statements=statements)
    assert not res.failures, [(s.kind, s.error) for s in res.failures]
    return res


def lineage(res):
    return [
        (
            e.target.table.name.lower(),
            [s.lower() for s in sources(e)],
            e.context.external_catalog_properties.get(ROUTINE_PROPERTY),
        )
        for e in res.events
    ]


def lines(res):
    return [(s.line, s.kind) for s in res.statements]


@pytest.mark.parametrize("dialect", ["mysql", "doris", "starrocks"])
def test_mysql_family_procedure(dialect):
    res = run(
        "CREATE PROCEDURE load_t2()\n"
        "BEGIN\n"
        "  DECLARE n INT DEFAULT 0;\n"
        "  INSERT INTO t2 SELECT a, b FROM t1;\n"
        "  IF n = 0 THEN\n"
        "    INSERT INTO t3 SELECT a FROM t1 WHERE b > 0;\n"
        "  END IF;\n"
        "END;\n"
        "INSERT INTO t4 SELECT a FROM t2",
        dialect,
    )
    assert lineage(res) == [
        ("t2", ["db.t1"], "load_t2"),
        ("t3", ["db.t1"], "load_t2"),
        ("t4", ["db.t2"], None),
    ]
    assert lines(res) == [(1, "routine"), (4, "insert"), (6, "insert"), (9, "insert")]
    assert direct(res.events[0]) == [("a", "t1.a", "IDENTITY"), ("b", "t1.b", "IDENTITY")]


@pytest.mark.parametrize("dialect", ["mysql", "doris"])
def test_mysql_dynamic_sql_is_reported(dialect):
    res = run(
        "CREATE PROCEDURE p()\nBEGIN\n  SET @s = 'INSERT INTO t2 SELECT * FROM t1';\n"
        "  PREPARE stmt FROM @s;\n  EXECUTE stmt;\nEND",
        dialect,
    )
    assert res.events == []
    assert [(s.line, s.kind, s.error.code if s.error else None) for s in res.statements] == [
        (1, "routine", None),
        (4, "dynamic-sql", "dynamic_sql"),
        (5, "dynamic-sql", "dynamic_sql"),
    ]


def test_tsql_procedure_without_semicolons_and_a_call():
    res = run(
        "CREATE PROCEDURE dbo.load_marts AS\n"
        "BEGIN\n"
        "  SET NOCOUNT ON\n"
        "  INSERT INTO t2 (a) SELECT a FROM t1\n"
        "  UPDATE t3 SET c = 1\n"
        "  EXEC dbo.other_proc\n"
        "  EXEC sp_executesql @sql\n"
        "END",
        "tsql",
        statements="all",
    )
    assert lineage(res) == [("t2", ["db.t1"], "dbo.load_marts"), ("t3", [], "dbo.load_marts")]
    assert lines(res) == [(1, "routine"), (4, "insert"), (5, "update"), (6, "call"), (7, "dynamic-sql")]


def test_tsql_procedure_select_into_a_temp_table_is_a_ctas():
    res = run(
        "CREATE PROCEDURE p AS\nBEGIN\n  SELECT a INTO #stage FROM t1;\n  INSERT INTO t2 SELECT a FROM #stage;\nEND",
        "tsql",
    )
    assert [(e.target.table.name, sources(e)) for e in res.events] == [("stage", ["db.t1"]), ("t2", ["db.stage"])]


def test_snowflake_procedure_in_dollar_quotes():
    res = run(
        "CREATE OR REPLACE PROCEDURE load_p()\nRETURNS STRING\nLANGUAGE SQL\nAS\n$$\nBEGIN\n"
        "  INSERT INTO t2 SELECT a FROM t1;\n  LET x := 1;\n  EXECUTE IMMEDIATE 'DELETE FROM t2';\n"
        "  RETURN 'ok';\nEND;\n$$",
        "snowflake",
    )
    assert lineage(res) == [("t2", ["db.t1"], "load_p")]
    assert lines(res) == [(1, "routine"), (7, "insert"), (9, "dynamic-sql")]


def test_postgres_plpgsql_function():
    res = run(
        "CREATE FUNCTION refresh() RETURNS void LANGUAGE plpgsql AS $$\n"
        "DECLARE n int;\nBEGIN\n  SELECT count(*) INTO n FROM t1;\n"
        "  INSERT INTO t2 SELECT a FROM t1;\n  EXECUTE format('TRUNCATE %I', 't3');\nEND;\n$$",
        "postgres",
    )
    assert lineage(res) == [("t2", ["db.t1"], "refresh")]
    assert lines(res) == [(1, "routine"), (4, "procedural"), (5, "insert"), (6, "dynamic-sql")]


@pytest.mark.parametrize("dialect", ["bigquery", "snowflake"])
def test_scripting_block(dialect):
    res = run(
        "BEGIN\n  INSERT INTO t2 SELECT a FROM t1;\n  INSERT INTO t3 SELECT b FROM t1;\nEND;\nSELECT 1",
        dialect,
    )
    assert lineage(res) == [("t2", ["db.t1"], None), ("t3", ["db.t1"], None)]
    assert lines(res) == [(1, "routine"), (2, "insert"), (3, "insert"), (5, "select")]


def test_a_transaction_begin_is_not_a_block():
    res = run("BEGIN;\nINSERT INTO t2 SELECT a FROM t1;\nCOMMIT;", "postgres")
    assert [e.target.table.name for e in res.events] == ["t2"]
    assert [s.line for s in res.statements] == [1, 2, 3]


def test_doris_create_job_extracts_its_insert():
    res = run("CREATE JOB nightly ON SCHEDULE EVERY 1 DAY DO INSERT INTO t SELECT a FROM s", "doris")
    assert lineage(res) == [("t", ["db.s"], "nightly")]
    assert direct(res.events[0]) == [("a", "s.a", "IDENTITY")]


def test_a_function_with_a_foreign_body_stays_ddl():
    res = run("CREATE TEMPORARY FUNCTION norm_url AS 'com.example.NormUrl'", "hive")
    assert res.statements[0].kind == "ddl"


@pytest.mark.parametrize("dialect", ["mysql", "postgres", "snowflake"])
def test_a_column_named_begin_opens_no_block(dialect):
    res = run(
        "CREATE TABLE t (begin INT, x INT);\nINSERT INTO t2 SELECT x FROM t;\nINSERT INTO t3 SELECT x FROM t", dialect
    )
    assert [(s.line, s.kind) for s in res.statements] == [(1, "ddl"), (2, "insert"), (3, "insert")]


def test_an_unterminated_block_keeps_the_statements_inside_it():
    res = run(
        "CREATE PROCEDURE p()\nBEGIN\n  INSERT INTO t2 SELECT a FROM t1;\n  INSERT INTO t3 SELECT a FROM t1;", "mysql"
    )
    assert [(s.line, s.kind) for s in res.statements] == [(1, "routine"), (3, "insert"), (4, "insert")]
