"""Issue 15, errors: each is one line naming the problem and the fix, exit 2, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.cli.conftest import invoke
from tests.pg_schema import POSTGRES_URL


def one_error_line(r, *needles: str) -> str:
    assert r.exit_code == 2, (r.exit_code, r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("error: "), lines[0]
    assert "Traceback" not in r.stderr + r.stdout
    for n in needles:
        assert n in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize("cmd", [("query", "stats"), ("query", "upstream", "t"), ("db", "current"), ("db", "upgrade")])
def test_postgres_scheme_names_the_accepted_url_forms(cmd):
    r = invoke(*cmd, "--store", "postgres://u@localhost/db")
    one_error_line(r, "postgres:// is not a store", "postgresql+psycopg://user@host:5432/database", "SQLite path")


def test_a_postgres_database_that_does_not_exist():
    url = POSTGRES_URL.rsplit("/", 1)[0] + "/headwater_no_such_database"
    for cmd in (("query", "stats"), ("db", "upgrade")):
        line = one_error_line(invoke(*cmd, "--store", url), 'database "headwater_no_such_database" does not exist')
        assert "createdb" in line


def test_a_server_that_refuses_the_connection():
    line = one_error_line(
        invoke("query", "stats", "--store", "postgresql+psycopg://postgres@127.0.0.1:9/test"), "Connection refused"
    )
    assert "is the server running" in line


@pytest.mark.parametrize(
    "cmd", [("query", "stats"), ("query", "origin", "t.a"), ("serve",), ("db", "delete", "--job", "j")]
)
def test_a_mistyped_sqlite_path_is_an_error_and_creates_nothing(tmp_path: Path, cmd):
    typo = tmp_path / "lineaeg.db"
    one_error_line(invoke(*cmd, "--store", str(typo)), f"no store at {typo}", "headwater db upgrade creates one")
    assert list(tmp_path.iterdir()) == []


def test_an_empty_sqlite_file_is_not_a_store_for_query(tmp_path: Path):
    empty = tmp_path / "empty.db"
    empty.touch()
    one_error_line(invoke("query", "stats", "--store", str(empty)), "has no headwater tables")
    assert empty.stat().st_size == 0


def test_ingest_and_db_upgrade_and_demo_still_create_the_store(tmp_path: Path):
    assert invoke("db", "upgrade", "--store", str(tmp_path / "a.db")).exit_code == 0
    assert (tmp_path / "a.db").is_file()
    assert invoke("demo", "--store", str(tmp_path / "b.db")).exit_code == 0
    assert (tmp_path / "b.db").is_file()
    log = tmp_path / "log.jsonl"
    log.write_text('{"sql": "INSERT INTO t SELECT a FROM s", "query_id": "q1", "timestamp": "2026-01-01 00:00:00"}\n')
    assert invoke("ingest-log", str(log), "--store", str(tmp_path / "c.db")).exit_code == 0
    assert (tmp_path / "c.db").is_file()


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        (
            "INSERT INTO t SELECT a FROM s WHERE",
            "error at line 1, column 31: cannot parse statement 1 (INSERT INTO t SELECT a FROM s WHERE): "
            "WHERE has no condition after it",
        ),
        (
            "INSERT INTO t SELECT a FROM s JOIN ON x",
            "error at line 1, column 36: cannot parse statement 1 (INSERT INTO t SELECT a FROM s JOIN ON x): "
            "expected a table name, found 'ON'",
        ),
        (
            "INSERT INTO t SELECT (a FROM s",
            "error at line 1, column 25: cannot parse statement 1 (INSERT INTO t SELECT (a FROM s): "
            "expected ')' before 'FROM'",
        ),
    ],
)
def test_parse_errors_in_sql_terms_with_line_column_and_first_words(sql, expected):
    r = invoke("extract", "-", "--format", "jsonl", stdin=sql)
    assert r.exit_code == 1
    assert r.stderr.strip() == expected
    assert "<class" not in r.stderr and "Required keyword" not in r.stderr


def test_unknown_dialect_lists_the_valid_names():
    for cmd in (("extract", "-"), ("catalog", "dump", "--catalog-url", "sqlite://")):
        line = one_error_line(
            invoke(*cmd, "--dialect", "sparkk", stdin="SELECT 1"),
            "unknown dialect 'sparkk'; did you mean spark? one of:",  # issue 36: the close match first
        )
        for name in ("doris", "spark", "postgres", "generic", "flink", "bigquery"):
            assert f" {name}," in line or line.endswith(f" {name}"), name


def test_map_with_an_unknown_field_lists_every_field(tmp_path: Path):
    from headwater.history import FIELDS

    log = tmp_path / "log.jsonl"
    log.write_text("{}\n")
    line = one_error_line(
        invoke("ingest-log", str(log), "--map", "time=ts", "--store", str(tmp_path / "s.db")),
        "--map: unknown field 'time'",
    )
    assert all(f in line for f in FIELDS), line


SPARK = "INSERT OVERWRITE TABLE rpt.t SELECT first || ' ' || last AS name FROM `crm`.`people`;\n" * 3


def test_a_spark_script_under_doris_warns_once_and_suggests_the_dialect():
    r = invoke("extract", "-", "--format", "jsonl", stdin=SPARK)
    warnings = [ln for ln in r.stderr.splitlines() if ln.startswith("warning:")]
    assert len(warnings) == 1, r.stderr
    assert "INSERT OVERWRITE TABLE" in warnings[0] and "--dialect spark" in warnings[0]
    assert "OR" in warnings[0] and "||" in warnings[0]
    spark = invoke("extract", "-", "--format", "jsonl", "--dialect", "spark", stdin=SPARK)
    assert "warning" not in spark.stderr


def test_postgres_casts_under_doris_warn_only_when_they_read_differently():
    same = invoke("extract", "-", "--format", "jsonl", stdin="INSERT INTO t SELECT a::int AS a FROM s")
    assert "warning" not in same.stderr  # '::' reads the same under doris
    dollar = invoke("extract", "-", "--format", "jsonl", stdin="INSERT INTO t SELECT $$x$$ AS a, b::text AS b FROM s")
    assert "--dialect postgres" in dollar.stderr


def test_origin_of_a_table_says_it_is_a_table_and_lists_its_columns(warehouse):
    line = one_error_line(invoke("query", "origin", "rpt.exec_summary", "--store", warehouse))
    assert "it is DATASET:internal.rpt.exec_summary, not a FIELD" in line
    assert "columns: orders, region, revenue" in line


def test_an_ambiguous_column_name_lists_the_candidates(warehouse):
    line = one_error_line(invoke("query", "origin", "revenue", "--store", warehouse))
    for c in ("rpt.exec_summary.revenue", "sales.orders.revenue", "fin.revenue_forecast.revenue"):
        assert f"FIELD:internal.{c}" in line
    assert "give a longer name" in line


def test_a_unique_bare_column_name_is_found(warehouse):
    r = invoke("query", "origin", "cs_net_paid_inc_ship_tax_total_for_the_quarter", "--store", warehouse)
    assert r.exit_code == 0, r.stderr
    assert "tpcds.catalog_sales.cs_net_paid_inc_ship_tax" in r.stdout.replace("│", "").replace("\n", "")


def test_ingest_gives_the_same_one_line_store_errors(tmp_path: Path):
    sql = tmp_path / "a.sql"
    sql.write_text("INSERT INTO t SELECT a FROM s")
    one_error_line(invoke("ingest", str(sql), "--store", "postgres://u@h/db"), "postgres:// is not a store")
    one_error_line(
        invoke("ingest", str(sql), "--store", "postgresql+psycopg://postgres@127.0.0.1:9/test"), "Connection refused"
    )
