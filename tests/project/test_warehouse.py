"""The three-file warehouse ingested as a project: every origin and impact a reader of the SQL gives
(``examples/warehouse/README.md``), whether the files come in one command or one per command."""

from __future__ import annotations

import re

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from headwater.cli.main import app
from headwater.store import open_store
from tests.project.conftest import FILES, WAREHOUSE

runner = CliRunner()

SALES = ["tpcds.catalog_sales.cs_net_paid", "tpcds.store_sales.ss_net_paid", "tpcds.web_sales.ws_net_paid"]
RETURNS = ["tpcds.store_returns.sr_return_amt", "tpcds.web_returns.wr_return_amt"]
ORIGINS = {
    "rpt.exec_summary.top_customer_revenue": sorted(SALES + RETURNS),
    "rpt.exec_summary.store_channel_revenue": SALES,
    "rpt.exec_summary.sold_year": ["tpcds.date_dim.d_year"],
    "rpt.top_customers.full_name": ["tpcds.customer.c_first_name", "tpcds.customer.c_last_name"],
    "rpt.customer_trend.revenue_change": sorted(SALES + RETURNS),
    "rpt.top_customers.segment": ["mart.dim_customer.segment"],  # a CASE: no DIRECT input (level direct)
}
FIELD_ORIGINS = {
    "rpt.top_customers.segment": ["tpcds.customer.c_preferred_cust_flag"],
    # LAG(…) OVER (PARTITION BY customer_id ORDER BY sold_year): the window's inputs too
    "rpt.customer_trend.revenue_change": sorted(
        SALES + RETURNS + ["tpcds.customer.c_customer_id", "tpcds.date_dim.d_year"]
    ),
}
IMPACTS = {
    "tpcds.store_returns.sr_return_amt": [
        "mart.channel_summary.returns_value",
        "mart.fct_returns.return_amt",
        "mart.v_customer_360.yearly_revenue",
        "rpt.customer_trend.revenue_change",
        "rpt.customer_trend.yearly_revenue",
        "rpt.exec_summary.top_customer_revenue",
        "rpt.top_customers.yearly_revenue",
        "stg.stg_returns.return_amt",
    ],
    "tpcds.customer.c_preferred_cust_flag": ["stg.stg_customer.preferred_flag"],
}
JOBS = [
    "01_staging.sql#2",
    "01_staging.sql#3",
    "01_staging.sql#4",
    "01_staging.sql#5",
    "02_marts.sql#2",
    "02_marts.sql#3",
    "02_marts.sql#5",
    "02_marts.sql#6",
    "03_reports.sql#1",
    "03_reports.sql#2",
    "exec_summary",
    "fct_sales",
    "stg_sales",
]


def ingest(url: str, *args: str) -> str:
    result = runner.invoke(
        app, ["ingest", *args, "--dialect", "spark", "--schema", str(WAREHOUSE / "raw_schema.json"), "--store", url]
    )
    assert result.exit_code == 0, result.output
    return result.output


def _short(name: str) -> str:
    return name.removeprefix("internal.")


def assert_reader_answers(url: str, jobs: list[str] | None = JOBS) -> None:
    """Every answer of the fixture's README; ``jobs``: the job names the store has (None: not asked)."""
    store = open_store(url)
    for column, expected in ORIGINS.items():
        got = sorted(_short(o.field.name) for o in store.get_field_origin(column, level="direct").origins)
        assert got == expected, column
    for column, expected in FIELD_ORIGINS.items():  # the default level: also CONDITIONAL and WINDOW inputs
        got = sorted(_short(o.field.name) for o in store.get_field_origin(column).origins)
        assert got == expected, column
    # at the default level (field) the CASE reaches its condition column through the layers
    segment = store.get_field_origin("rpt.top_customers.segment").origins
    assert [(_short(o.field.name), o.dependency) for o in segment] == [
        ("tpcds.customer.c_preferred_cust_flag", "INDIRECT")
    ]
    for column, expected in IMPACTS.items():
        impact = store.get_field_impact(column, level="direct")
        got = sorted(_short(i.field.name) for i in impact.impacted)
        assert got == expected, column
    # a column read only in a WHERE: no value flows from it, but everything built on its table depends on it
    assert store.get_field_impact("tpcds.item.i_rec_end_date", level="direct").impacted == []
    impact = store.get_field_impact("tpcds.item.i_rec_end_date", level="all").impacted
    assert {i.dependency for i in impact} == {"INDIRECT"} and len(impact) == 35
    assert sorted({_short(i.field.name).rsplit(".", 1)[0] for i in impact}) == [
        "mart.channel_summary",
        "mart.fct_sales",
        "mart.v_customer_360",
        "rpt.customer_trend",
        "rpt.exec_summary",
        "rpt.top_customers",
        "stg.stg_item",
    ]
    # the view is a node, between the tables it reads and those that read it
    view = store.resolve("mart.v_customer_360")
    assert view.properties.get("dataset_type") == "VIEW"
    up = store.get_upstream("rpt.top_customers", max_depth=1, node_types=["DATASET"])
    assert sorted(_short(n.name) for n in up.nodes if n.name != "internal.rpt.top_customers") == ["mart.v_customer_360"]
    up = store.get_upstream("mart.v_customer_360", max_depth=1, node_types=["DATASET"])
    assert sorted(_short(n.name) for n in up.nodes if n.name != "internal.mart.v_customer_360") == [
        "mart.dim_customer",
        "mart.fct_returns",
        "mart.fct_sales",
    ]
    if jobs is not None:
        with store.engine.connect() as conn:
            names = conn.execute(sa.text("SELECT name FROM hw_nodes WHERE type = 'JOB' ORDER BY name")).scalars()
            assert [j.removeprefix("job:") for j in names] == jobs


def _figure(output: str, name: str) -> int:
    header = next(line for line in output.splitlines() if "files" in line and "statements" in line)
    values = next(line for line in output.splitlines()[1:] if re.match(r"^│\s+\d", line))
    names = [c.strip() for c in header.strip("┃").split("┃")]
    return int([c.strip() for c in values.strip("│").split("│")][names.index(name)])


def _incomplete(output: str) -> int:
    """How many events the summary says stayed PARTIAL or UNAVAILABLE."""
    line = re.search(r"^not COMPLETE: ([^;\n]*)", output, re.M)
    return sum(int(n) for n in re.findall(r"(\d+) (?:PARTIAL|UNAVAILABLE)", line.group(1))) if line else 0


def test_problem_1_one_ingest_of_all_files_is_one_project(store_url: str) -> None:
    """Each file used to be its own session: the view of file 2 unknown in file 3, fct_sales PARTIAL."""
    out = ingest(store_url, *(str(WAREHOUSE / f) for f in FILES))
    assert "not COMPLETE" not in out, out
    assert (_figure(out, "events"), _figure(out, "recorded"), _figure(out, "failed")) == (13, 13, 0)
    assert_reader_answers(store_url)
    again = ingest(store_url, str(WAREHOUSE))  # the directory: the same project, nothing new
    assert (_figure(again, "recorded"), _figure(again, "duplicates")) == (0, 13)


def test_one_file_per_command_gives_the_same_answers(store_url: str) -> None:
    """The store is the catalog: file 3 alone binds to what files 1 and 2 recorded."""
    for f in FILES:
        out = ingest(store_url, str(WAREHOUSE / f))
        assert "not COMPLETE" not in out, out
    assert_reader_answers(store_url)


def test_files_run_in_dependency_order_whatever_the_command_line(sqlite_url: str) -> None:
    out = ingest(sqlite_url, *(str(WAREHOUSE / f) for f in reversed(FILES)))
    assert "not COMPLETE" not in out, out
    assert_reader_answers(sqlite_url)


def test_order_given_keeps_the_command_line_and_strict_fails_on_partial(sqlite_url: str) -> None:
    args = [*(str(WAREHOUSE / f) for f in reversed(FILES)), "--order", "given", "--catalog", "none", "--strict"]
    result = runner.invoke(
        app,
        ["ingest", *args, "--dialect", "spark", "--schema", str(WAREHOUSE / "raw_schema.json"), "--store", sqlite_url],
    )
    assert result.exit_code == 1, result.output
    assert _incomplete(result.output) == 4 and "; by diagnostic: star_unknown_columns 4\n" in result.output
    assert re.search(
        r"02_marts.sql:16: mart.fct_sales (PARTIAL|UNAVAILABLE) star_unknown_columns: \* over stg.stg_sales",
        result.output,
    )


def test_session_per_file_keeps_todays_behaviour(sqlite_url: str) -> None:
    args = [str(WAREHOUSE), "--session-per-file", "--catalog", "none"]
    out = ingest(sqlite_url, *args)
    assert _incomplete(out) == 4, out
    assert "; by diagnostic: star_unknown_columns 4\n" in out  # file 2 does not see file 1's CTAS targets


@pytest.mark.parametrize("alias", ["--default-db", "--database"])
def test_default_database_and_catalog(sqlite_url: str, tmp_path, alias: str) -> None:
    script = tmp_path / "load.sql"
    script.write_text("INSERT INTO summary SELECT SUM(ss_net_paid) AS total FROM store_sales;\n")
    out = ingest(sqlite_url, str(script), alias, "tpcds", "--default-catalog", "hive")
    assert "not COMPLETE" not in out
    origin = open_store(sqlite_url).get_field_origin("hive.tpcds.summary.total").origins
    assert [o.field.name for o in origin] == ["hive.tpcds.store_sales.ss_net_paid"]


def test_files_ingested_before_what_they_read_bind_when_ingested_again(store_url: str) -> None:
    """03, 02, 01 one per command: the first two stay PARTIAL (their `SELECT *` over tables not yet
    known); ingesting the project again records them again, COMPLETE, instead of skipping their ids."""
    for f in reversed(FILES):
        ingest(store_url, str(WAREHOUSE / f))
    out = ingest(store_url, str(WAREHOUSE))
    assert "not COMPLETE" not in out, out
    assert (_figure(out, "recorded"), _figure(out, "duplicates")) == (4, 9), out  # the 4 that were PARTIAL
    assert_reader_answers(store_url)
    with open_store(store_url).engine.connect() as conn:
        q = (
            "SELECT e.status FROM hw_events e WHERE e.event_us = "
            "(SELECT max(m.event_us) FROM hw_events m WHERE m.job_id = e.job_id) AND e.job_id IS NOT NULL"
        )
        assert set(conn.execute(sa.text(q)).scalars()) == {"COMPLETE"}
    again = ingest(store_url, str(WAREHOUSE))
    assert (_figure(again, "recorded"), _figure(again, "duplicates")) == (0, 13), again
