"""Problem 7 of issue 11: a mistyped table of a database the catalog covers is not certain."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from headwater.catalog import load_schema_file
from headwater.cli.main import app
from headwater.extract import extract_script
from headwater.model import Severity, Status
from tests.project.conftest import WAREHOUSE

SQL = "INSERT INTO rpt.paid SELECT ss_customer_sk, ss_net_paid FROM tpcds.store_sale"


def test_a_mistyped_table_is_partial_with_a_warning_naming_the_closest_tables() -> None:
    catalog = load_schema_file(WAREHOUSE / "raw_schema.json", dialect="spark")
    event = extract_script(SQL, dialect="spark", catalog=catalog).events[0]
    assert event.status is Status.PARTIAL
    warnings = [d for d in event.diagnostics if d.severity is Severity.WARNING]
    assert [(d.code, d.line, d.column) for d in warnings] == [("unknown_table", 1, 68)]  # at store_sale
    assert warnings[0].message == (
        "table tpcds.store_sale is not in the catalog, which lists 8 tables of database tpcds: "
        "did you mean `tpcds.store_sales`, `tpcds.web_sales`, `tpcds.store_returns`?"
    )


def test_a_table_of_a_database_the_catalog_does_not_cover_stays_info() -> None:
    catalog = load_schema_file(WAREHOUSE / "raw_schema.json", dialect="spark")
    event = extract_script("INSERT INTO rpt.x SELECT a FROM other.t", dialect="spark", catalog=catalog).events[0]
    assert event.status is Status.COMPLETE
    assert [(d.code, d.severity) for d in event.diagnostics if d.code == "unknown_table"] == [
        ("unknown_table", Severity.INFO)
    ]


def test_ingest_reports_it_and_strict_fails(tmp_path: Path, sqlite_url: str) -> None:
    script = tmp_path / "typo.sql"
    script.write_text(SQL + ";\n")
    args = ["ingest", str(script), "--dialect", "spark", "--schema", str(WAREHOUSE / "raw_schema.json")]
    result = CliRunner().invoke(app, [*args, "--store", sqlite_url, "--strict"])
    assert result.exit_code == 1, result.output
    assert "not COMPLETE: 1 PARTIAL; by diagnostic: unknown_table 1" in result.output
    assert "typo.sql:1: rpt.paid PARTIAL unknown_table: table tpcds.store_sale is not in the catalog" in result.output


def test_a_table_the_schema_file_does_not_list_is_unknown_not_a_mistake() -> None:
    """The schema covers ``tpcds`` but not ``tpcds.promo_extra``, and no name is one edit from it: an
    INFO, and the event, whose columns the SQL states, is COMPLETE (issue 34, defect 8)."""
    catalog = load_schema_file(WAREHOUSE / "raw_schema.json", dialect="spark")
    sql = "INSERT INTO rpt.x SELECT p.promo_id, p.cost FROM tpcds.promo_extra AS p"
    event = extract_script(sql, dialect="spark", catalog=catalog).events[0]
    assert event.status is Status.COMPLETE
    assert [(d.code, d.severity) for d in event.diagnostics if d.code == "unknown_table"] == [
        ("unknown_table", Severity.INFO)
    ]
    assert [(d.target_column, [str(c) for c in d.sources]) for d in event.direct] == [
        ("promo_id", ["internal.tpcds.promo_extra.promo_id"]),
        ("cost", ["internal.tpcds.promo_extra.cost"]),
    ]


MART = (
    "CREATE TABLE mart.fct_orders AS SELECT id, amount FROM raw.orders;\n"
    "INSERT INTO rpt.daily SELECT o.id, o.amount FROM mart.fct_order AS o;\n"
)


def test_a_name_one_edit_from_a_table_the_project_defines_is_a_warning_without_a_catalog() -> None:
    res = extract_script(MART, dialect="spark")
    event = res.events[1]
    assert event.status is Status.PARTIAL
    assert [(d.code, d.severity, d.message) for d in event.diagnostics if d.severity is Severity.WARNING] == [
        (
            "unknown_table",
            Severity.WARNING,
            "table mart.fct_order is not in the catalog nor defined by a statement of the project: "
            "did you mean `mart.fct_orders`?",
        )
    ]
    # a version beside another (digits changed) and an unrelated name are no typo
    more = extract_script(
        "CREATE TABLE mart.clients_v5 AS SELECT id FROM raw.c;\nINSERT INTO rpt.r SELECT c.id FROM mart.clients_v6 c;",
        dialect="spark",
    )
    assert more.events[1].status is Status.COMPLETE


def test_the_one_edit_warning_fails_strict_ingest(tmp_path: Path, sqlite_url: str) -> None:
    (tmp_path / "a.sql").write_text(MART.splitlines()[0] + "\n")
    (tmp_path / "b.sql").write_text(MART.splitlines()[1] + "\n")
    result = CliRunner().invoke(app, ["ingest", str(tmp_path), "--dialect", "spark", "--store", sqlite_url, "--strict"])
    assert result.exit_code == 1, result.output
    assert "b.sql:1: rpt.daily PARTIAL unknown_table: table mart.fct_order is not in the catalog nor" in result.output
