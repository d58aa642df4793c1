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
