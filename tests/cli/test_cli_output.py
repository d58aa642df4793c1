"""Issue 15, output: names as the SQL writes them, wrapped at dots at 100 columns; edges with their
dependency; compact extract tables; analyze samples and CSV; deleting lineage from the CLI."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from tests.cli.conftest import invoke

BORDERS = "│┃┏┓┗┛┡┩└┘├┤┬┴┼━─╇╈┳┻"


def cells(text: str) -> list[list[str]]:
    """The table rows of rich output: each line split at its borders."""
    rows = []
    for ln in text.splitlines():
        if "│" in ln:
            rows.append([c.strip() for c in ln.strip().strip("│").split("│")])
    return rows


def lines_never_cut_an_identifier(text: str, names: list[str]) -> None:
    """Every piece of a wrapped cell ends at a dot (or is a whole name)."""
    for row in cells(text):
        for cell in row:
            for name in names:
                if cell and cell != name and name.startswith(cell) and len(cell) < len(name):
                    assert cell.endswith("."), (cell, name)


def test_query_names_are_relative_to_the_default_catalog_and_full_in_json(warehouse):
    r = invoke("query", "impact", "sales.orders.revenue", "--store", warehouse)
    assert r.exit_code == 0, r.stderr
    assert "internal." not in r.stdout
    assert "impact of sales.orders.revenue" in r.stdout
    assert ["rpt.exec_summary.revenue", "1", "DIRECT", "AGGREGATION"] in cells(r.stdout)
    j = json.loads(invoke("query", "impact", "sales.orders.revenue", "--store", warehouse, "--format", "json").stdout)
    assert j["field"]["name"] == "internal.sales.orders.revenue"
    assert "internal.rpt.exec_summary.revenue" in {i["field"]["name"] for i in j["impacted"]}


def test_long_names_wrap_at_dots_at_100_columns(warehouse):
    long = "tpcds.catalog_sales_summary.cs_net_paid_inc_ship_tax_total_for_the_quarter"
    r = invoke("query", "impact", "tpcds.catalog_sales.cs_net_paid_inc_ship_tax", "--store", warehouse)
    assert r.exit_code == 0, r.stderr
    assert max(len(ln) for ln in r.stdout.splitlines()) <= 100
    rows = cells(r.stdout)
    assert ["tpcds.catalog_sales_summary.", "1", "DIRECT", "AGGREGATION"] in rows
    assert ["cs_net_paid_inc_ship_tax_total_for_the_quarter", "", "", ""] in rows
    narrow = invoke("query", "upstream", long, "--store", warehouse, columns=60)
    lines_never_cut_an_identifier(narrow.stdout, [long, "tpcds.catalog_sales.cs_net_paid_inc_ship_tax"])


def test_extract_names_drop_the_session_database_where_unambiguous():
    sql = "INSERT INTO sales.t SELECT sales.s.a FROM sales.s JOIN crm.s AS c ON sales.s.k = c.k"
    r = invoke("extract", "-", "--default-db", "sales", stdin=sql)
    assert r.exit_code == 0, r.stderr
    head = r.stdout.splitlines()[0]
    assert head.startswith("InsertIntoTableCommand → t  COMPLETE  (statement 1, line 1)")
    assert "from sales.s, crm.s" in r.stdout  # two tables named s: both keep their database


def test_upstream_lists_the_edges_with_their_dependency(warehouse):
    r = invoke("query", "upstream", "rpt.exec_summary.revenue", "--depth", "1", "--store", warehouse)
    assert r.exit_code == 0, r.stderr
    rows = cells(r.stdout)
    assert ["sales.orders.revenue", "DIRECT AGGREGATION", "rpt.exec_summary.revenue"] in rows
    assert ["sales.orders.status", "INDIRECT FILTER", "rpt.exec_summary.revenue"] in rows
    assert ["sales.regions.region", "INDIRECT GROUP_BY", "rpt.exec_summary.revenue"] in rows


def test_type_dataset_bridges_the_hidden_jobs(warehouse):
    r = invoke("query", "upstream", "rpt.exec_summary", "--type", "DATASET", "--store", warehouse)
    assert r.exit_code == 0, r.stderr
    rows = cells(r.stdout)
    bridged = [row for row in rows if len(row) == 3 and row[2] == "rpt.exec_summary" and row[1] != "DATASET"]
    assert {row[0] for row in bridged} == {"sales.orders", "sales.regions"}
    assert all(row[1].startswith("via JOB exec_summary#") for row in bridged)
    assert "\n3 nodes, 2 edges\n" in r.stdout
    assert "JOB" not in [row[1] for row in rows if len(row) == 3 and row[0] in ("-1", "-2", "0")]


def test_one_node_is_singular(warehouse):
    r = invoke("query", "downstream", "rpt.region_revenue", "--store", warehouse)
    assert r.stdout.strip().endswith("1 node, 0 edges")


def test_extract_table_is_compact_by_default_and_full_with_verbose():
    sql = (
        "INSERT INTO t SELECT UPPER(a) AS x, b FROM s WHERE c > 1;\n"
        "CREATE TABLE u (a INT);\n"
        "INSERT INTO v SELECT a FROM s;\n"
    )
    r = invoke("extract", "-", stdin=sql)
    assert r.exit_code == 0
    out = r.stdout
    assert out.count("InsertIntoTableCommand →") == 2  # one block per statement with an event
    assert "Query context" not in out and "Table lineage" not in out
    first, second = out.split("\n\n")[:2]
    assert "x       TRANSFORMATION  UPPER(s.a)" in first and "FILTER    (all rows)  s.c > 1" in first
    assert "indirect" not in second  # an empty section is left out
    assert len(out.splitlines()) < 20
    full = invoke("extract", "-", "--verbose", stdin=sql).stdout
    for title in ("Table lineage", "Direct column lineage", "Dataset indirect lineage", "Query context"):
        assert title in full


def test_analyze_samples_all_and_csv(store_of):
    cols = ", ".join(f"c{k}" for k in range(12))
    url = store_of(f"INSERT INTO wide SELECT {cols} FROM src")
    default = invoke("query", "analyze", "src", "--store", url)
    assert default.exit_code == 0, default.stderr
    assert "… 7 more (--samples N, --all)" in default.stdout
    two = invoke("query", "analyze", "src", "--samples", "2", "--store", url)
    assert "… 10 more" in two.stdout
    every = invoke("query", "analyze", "src", "--all", "--store", url)
    assert "more" not in every.stdout and "wide.c11" in every.stdout
    table = list(
        csv.DictReader(
            io.StringIO(invoke("query", "analyze", "src", "--all", "--format", "csv", "--store", url).stdout)
        )
    )
    fields = [row["node"] for row in table if row["type"] == "FIELD"]
    assert sorted(fields) == sorted(f"internal.wide.c{k}" for k in range(12))  # full names in CSV
    assert {row["count"] for row in table if row["type"] == "FIELD"} == {"12"}


def test_db_delete_closes_a_jobs_lineage_and_keeps_history(warehouse):
    before = invoke("query", "upstream", "rpt.region_revenue", "--type", "DATASET", "--store", warehouse)
    assert "rpt.exec_summary" in before.stdout
    job = json.loads(invoke("query", "upstream", "rpt.region_revenue", "--format", "json", "--store", warehouse).stdout)
    name = next(n["name"] for n in job["nodes"] if n["type"] == "JOB")
    r = invoke("db", "delete", "--job", name, "--store", warehouse)
    assert r.exit_code == 0, r.stderr
    assert r.stdout.startswith("closed: edges closed ")
    after = invoke("query", "upstream", "rpt.region_revenue", "--type", "DATASET", "--store", warehouse)
    assert "rpt.exec_summary" not in after.stdout
    assert invoke("db", "delete", "--store", warehouse).exit_code == 2  # exactly one of --event/--job/--dataset
    missing = invoke("db", "delete", "--dataset", "nope.nothing", "--store", warehouse)
    assert missing.exit_code == 2 and missing.stderr.startswith("error: no node matches 'nope.nothing'")


def test_ingest_log_live_line_stays_on_one_line_at_100_columns_and_is_off_without_a_terminal():
    import io as _io

    from rich.console import Console

    from headwater.cli.history_cmd import _line, progress_bar
    from headwater.history import Counters

    big = Counters(rows_read=12_345_678, events=9_876_543, skipped=123_456, failed=98_765)
    out = _io.StringIO()
    console = Console(file=out, width=100, force_terminal=True, color_system=None)
    with progress_bar(console, True) as bar:
        task = bar.add_task("extracting", total=12_345_678, line=_line(big))
        bar.update(task, completed=6_000_000)
        rendered = console.render_lines(bar.get_renderable(), console.options.update(width=100))
    assert len(rendered) == 1  # one line, cut with … rather than wrapped
    assert sum(len(seg.text) for seg in rendered[0]) <= 100
    piped = progress_bar(Console(file=_io.StringIO(), width=100), True)
    assert piped.disable  # not a terminal: no bar


def test_compact_extract_lists_at_most_three_diagnostics_of_a_kind():
    cols = ", ".join(f"c{k}" for k in range(6))
    r = invoke("extract", "-", stdin=f"INSERT INTO t SELECT {cols} FROM a, b")
    assert r.stdout.count("warning ambiguous_column") == 3
    assert "… and 3 more ambiguous_column (--verbose lists every one)" in r.stdout
    assert (
        invoke("extract", "-", "--verbose", stdin=f"INSERT INTO t SELECT {cols} FROM a, b").stdout.count(
            "ambiguous_column"
        )
        == 6
    )


CHAIN = ";\n".join(f"INSERT INTO w.t{i + 1} SELECT v FROM w.t{i}" for i in range(7))


def test_a_depth_cut_is_one_line_under_the_table_and_in_the_json(store_of):
    url = store_of(CHAIN)
    r = invoke("query", "downstream", "w.t0", "--type", "DATASET", "--store", url)
    assert r.exit_code == 0, r.stderr
    assert "4 more tables beyond depth 3: --depth 7" in r.stdout
    assert [row[0] for row in cells(r.stdout) if len(row) == 3 and row[1] == "DATASET"] == ["0", "1", "2", "3"]
    j = json.loads(
        invoke("query", "downstream", "w.t0", "--type", "DATASET", "--store", url, "--format", "json").stdout
    )
    assert j["truncated"] is True and j["cut_by"] == ["depth"]
    assert (j["more_at_depth"], j["depth_needed"]) == (4, 7)
    assert len(j["bridges"]) == 3 and all(b["via"][0]["type"] == "JOB" for b in j["bridges"])
    whole = invoke("query", "downstream", "w.t0", "--depth", "7", "--store", url)
    assert "beyond depth" not in whole.stdout and "truncated" not in whole.stdout


def test_the_impact_headline_names_what_the_other_levels_add(warehouse):
    r = invoke("query", "impact", "sales.orders.status", "--store", warehouse)
    assert r.exit_code == 0, r.stderr
    assert r.stdout.splitlines()[-1] == "0 fields: 0 DIRECT, 0 INDIRECT (+5 INDIRECT at --level all)"
    every = invoke("query", "impact", "sales.orders.status", "--level", "all", "--store", warehouse)
    assert every.stdout.splitlines()[-1] == "5 fields: 0 DIRECT, 5 INDIRECT"


def test_query_path_tells_a_columns_story_through_every_intermediate_column(warehouse):
    r = invoke("query", "path", "rpt.region_revenue.revenue", "--store", warehouse)
    assert r.exit_code == 0, r.stderr
    assert r.stdout.splitlines() == [
        "rpt.region_revenue.revenue",
        "└── rpt.exec_summary.revenue  IDENTITY",
        "    └── sales.orders.revenue  AGGREGATION  SUM(orders.revenue)",
    ]
    every = invoke("query", "path", "rpt.region_revenue.revenue", "--level", "all", "--store", warehouse)
    assert "    ├── sales.orders.region_id  INDIRECT JOIN  orders.region_id = regions.id" in every.stdout.splitlines()
    j = json.loads(
        invoke("query", "path", "rpt.region_revenue.revenue", "--format", "json", "--store", warehouse).stdout
    )
    hop = j["inputs"][0]["inputs"][0]
    assert (hop["field"], hop["subtype"], hop["expression"]) == (
        "internal.sales.orders.revenue",
        "AGGREGATION",
        "SUM(orders.revenue)",
    )
    table = invoke("query", "path", "rpt.exec_summary", "--store", warehouse)
    assert table.exit_code == 2 and "is a DATASET, not a column" in table.stderr


GUIDE_LIKE = """
INSERT INTO lineage_demo.lineage_customer_summary
SELECT o.customer_id, SUM(o.amount) AS total_amount
FROM lineage_demo.lineage_orders o JOIN lineage_demo.lineage_customers c ON o.customer_id = c.customer_id
GROUP BY o.customer_id
"""


@pytest.mark.parametrize("columns", [60, 100, 160])
def test_labels_never_wrap_inside_an_identifier(store_of, columns):
    url = store_of(GUIDE_LIKE)
    job = json.loads(invoke("query", "upstream", "lineage_customer_summary", "--format", "json", "--store", url).stdout)
    label = next(n["short"] for n in job["nodes"] if n["type"] == "JOB")  # the store's one name of the job
    names = ["lineage_demo.lineage_customer_summary", "lineage_demo.lineage_orders", "lineage_demo.lineage_customers"]
    words = [label, "lineage_customer_summary", "lineage_orders", "lineage_customers", "total_amount", "customer_id"]
    for args in (
        ("query", "upstream", "lineage_customer_summary", "--type", "DATASET"),
        ("query", "analyze", "lineage_orders.amount", "--operation", "DROP_COLUMN"),
    ):
        r = invoke(*args, "--store", url, columns=columns)
        assert r.exit_code == 0, r.stderr
        lines_never_cut_an_identifier(r.stdout, names)
        text = r.stdout
        for word in words:  # every identifier whole on one line wherever it is shown
            for ln in text.splitlines():
                for piece in ln.replace("│", " ").replace(".", " ").split():
                    assert not (
                        piece != word and word.startswith(piece) and len(piece) >= 6 and piece.endswith(("_", "#"))
                    ), (
                        columns,
                        ln,
                    )
        assert label in text  # the job by its one name (not sql:… nor job:…)
        assert "sql:" not in text and "job:" not in text


def _no_identifier_cut(text: str, words: list[str], columns: int) -> None:
    """No token of the output is the start of an identifier whose rest went to another line."""
    for ln in text.splitlines():
        assert len(ln) <= columns, ln
        for token in re.split(r"[^\w#]+", ln):
            for word in words:
                cut = token != word and word.startswith(token) and ("_" in token or len(token) >= 8)
                assert not cut, (columns, ln, word)


@pytest.mark.parametrize("columns", [60, 100, 160])
def test_sql_and_names_never_wrap_inside_an_identifier(store_of, columns):
    """``query job``'s SQL and the extract tables (compact and verbose) break between identifiers."""
    url = store_of(GUIDE_LIKE)
    job = json.loads(invoke("query", "upstream", "lineage_customer_summary", "--format", "json", "--store", url).stdout)
    label = next(n["short"] for n in job["nodes"] if n["type"] == "JOB")
    words = ["lineage_customer_summary", "lineage_orders", "lineage_customers", "total_amount", "customer_id"]
    runs = [
        invoke("query", "job", label, "--store", url, columns=columns),
        invoke("extract", "-", stdin=GUIDE_LIKE, columns=columns),
        invoke("extract", "-", "--verbose", stdin=GUIDE_LIKE, columns=columns),
    ]
    for r in runs:
        assert r.exit_code == 0, r.stderr
        _no_identifier_cut(r.stdout, words, columns)
    assert "GROUP BY o.customer_id" in runs[0].stdout  # the SQL is there, whole where it fits
