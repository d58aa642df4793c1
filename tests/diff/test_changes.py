"""Each kind of change issue 16 names, over the three-layer shop: the columns, edges, jobs and the
verdict a reviewer reading the two versions of the SQL would give."""

from __future__ import annotations

from headwater.diff.changes import ColumnKind, Verdict
from headwater.diff.project_graph import ProjectOptions
from tests.diff.conftest import MARTS, REPORTS, SHOP, P, by_column, edited, run_diff

MART = "marts/customer_revenue.sql"
RPT = "reports/reports.sql"


def test_the_same_project_has_no_changes(options: ProjectOptions) -> None:
    report = run_diff(options, SHOP, SHOP)
    assert (report.columns, report.tables, report.jobs, report.problems) == ([], [], [], [])
    assert report.verdict is Verdict.SAFE


def test_an_added_column_is_safe(options: ProjectOptions) -> None:
    new = edited(
        SHOP,
        MART,
        "COUNT(o.order_id) AS orders",
        "COUNT(o.order_id) AS orders,\n       MAX(o.order_date) AS last_order",
    )
    report = run_diff(options, SHOP, new)
    (change,) = report.columns
    assert (change.column, change.kind, change.verdict) == (
        P + "mart.customer_revenue.last_order",
        ColumnKind.ADDED,
        Verdict.SAFE,
    )
    assert [(e.source, e.subtype, e.expression) for e in change.added if e.dependency == "DIRECT"] == [
        (P + "stg.orders.order_date", "AGGREGATION", "MAX(orders.order_date)")
    ]
    assert (change.file, change.line, change.job) == (MART, 1, MART + "#1")
    assert [(j.job, j.kind) for j in report.jobs] == [(MART + "#1", "changed")]
    assert report.verdict is Verdict.SAFE


def test_a_dropped_column_that_a_report_still_reads_breaks_it(options: ProjectOptions) -> None:
    new = edited(SHOP, MART, "       c.name AS customer_name,\n", "")
    report = run_diff(options, SHOP, new)
    changes = by_column(report)
    dropped = changes["mart.customer_revenue.customer_name"]
    assert (dropped.kind, dropped.verdict) == (ColumnKind.REMOVED, Verdict.BREAKING)
    assert [(r.column, r.broken) for r in dropped.impact.readers] == [(P + "rpt.top_customers.customer_name", True)]
    assert dropped.impact.change_type == "SCHEMA_CHANGE DROP_COLUMN"
    assert dropped.reason == f"dropped; breaks 1 reader(s): {P}rpt.top_customers.customer_name"
    # the view no longer extracts: the statement is located for the reviewer
    assert [(p.file, p.line, p.code, p.job) for p in report.problems] == [(RPT, 7, "unknown_column", RPT + "#2")]
    assert changes["rpt.top_customers.customer_name"].verdict is Verdict.BREAKING
    assert report.verdict is Verdict.BREAKING


def test_a_column_dropped_along_with_its_reader_is_safe(options: ProjectOptions) -> None:
    new = edited(SHOP, MART, "       c.name AS customer_name,\n", "")
    new = edited(new, RPT, "SELECT customer_name, revenue FROM", "SELECT revenue FROM")
    report = run_diff(options, SHOP, new)
    changes = by_column(report)
    assert changes["mart.customer_revenue.customer_name"].verdict is Verdict.SAFE
    assert changes["mart.customer_revenue.customer_name"].reason == "dropped; its readers change with it"
    assert changes["rpt.top_customers.customer_name"].kind is ColumnKind.REMOVED
    assert report.problems == []
    assert report.verdict is Verdict.SAFE


def test_a_rename_is_one_change_not_a_drop_and_an_add(options: ProjectOptions) -> None:
    new = edited(SHOP, MART, "c.name AS customer_name", "c.name AS cust_name")
    report = run_diff(options, SHOP, new)
    changes = by_column(report)
    renamed = changes["mart.customer_revenue.customer_name"]
    assert (renamed.kind, renamed.renamed_to) == (ColumnKind.RENAMED, P + "mart.customer_revenue.cust_name")
    assert "mart.customer_revenue.cust_name" not in changes
    assert renamed.verdict is Verdict.BREAKING  # the view still reads customer_name
    assert renamed.impact.change_type == "SCHEMA_CHANGE RENAME_COLUMN"
    # with the view following the rename, nothing breaks
    both = edited(new, RPT, "SELECT customer_name, revenue", "SELECT cust_name AS customer_name, revenue")
    report = run_diff(options, SHOP, both)
    assert by_column(report)["mart.customer_revenue.customer_name"].verdict is Verdict.SAFE
    assert report.verdict is Verdict.SAFE, report.reasons


def test_a_retyped_column_breaks_what_reads_it(options: ProjectOptions) -> None:
    new = edited(SHOP, "staging/stg.sql", "CAST(o.amount AS DECIMAL(12, 2))", "CAST(o.amount AS STRING)")
    report = run_diff(options, SHOP, new)
    (change,) = report.columns
    assert (change.column, change.kind, change.verdict) == (
        P + "stg.orders.amount",
        ColumnKind.RETYPED,
        Verdict.BREAKING,
    )
    assert [(c.old_expression, c.new_expression) for c in change.changed] == [
        ("CAST(orders.amount AS DECIMAL(12, 2))", "CAST(orders.amount AS STRING)")
    ]
    readers = {(r.column.removeprefix(P), r.depth, r.broken) for r in change.impact.readers}
    assert readers == {
        ("mart.customer_revenue.revenue", 1, True),
        ("rpt.region_summary.total_revenue", 2, True),
        ("rpt.top_customers.revenue", 2, True),
        ("rpt.top_customers.customer_name", 2, True),  # the view's WHERE revenue > 1000
    }


def test_a_changed_aggregation_is_a_data_update_of_everything_downstream(options: ProjectOptions) -> None:
    new = edited(SHOP, MART, "SUM(o.amount) AS revenue", "AVG(o.amount) AS revenue")
    report = run_diff(options, SHOP, new)
    (change,) = report.columns
    assert (change.column, change.kind) == (P + "mart.customer_revenue.revenue", ColumnKind.EXPRESSION)
    (edge,) = change.changed
    assert (edge.source, edge.old_subtype, edge.new_subtype) == (P + "stg.orders.amount", "AGGREGATION", "AGGREGATION")
    assert (edge.old_expression, edge.new_expression) == ("SUM(orders.amount)", "AVG(orders.amount)")
    assert change.impact.change_type == "DATA_UPDATE"
    assert [(r.path, r.dependency) for r in change.impact.readers] == [
        ((change.column, P + "rpt.region_summary.total_revenue"), "DIRECT"),
        ((change.column, P + "rpt.top_customers.revenue"), "DIRECT"),
        ((change.column, P + "rpt.top_customers.customer_name"), "INDIRECT"),
    ]
    assert change.verdict is Verdict.POSSIBLY_BREAKING
    assert report.verdict is Verdict.POSSIBLY_BREAKING


def test_a_changed_filter_changes_every_column_indirectly(options: ProjectOptions) -> None:
    new = edited(SHOP, "staging/stg.sql", "WHERE o.status <> 'test'", "WHERE o.status NOT IN ('test', 'void')")
    report = run_diff(options, SHOP, new)
    changes = by_column(report)
    assert sorted(changes) == [f"stg.orders.{c}" for c in ("amount", "customer_id", "order_date", "order_id", "status")]
    assert {c.kind for c in changes.values()} == {ColumnKind.INDIRECT}
    (edge,) = changes["stg.orders.order_id"].changed
    assert (edge.source, edge.dependency, edge.old_subtype) == (P + "raw.orders.status", "INDIRECT", "FILTER")
    assert edge.new_expression == "NOT orders.status IN ('test', 'void')"
    assert changes["stg.orders.status"].verdict is Verdict.SAFE  # nothing reads it
    assert changes["stg.orders.amount"].verdict is Verdict.POSSIBLY_BREAKING


def test_a_changed_join_only_is_an_indirect_change(options: ProjectOptions) -> None:
    new = edited(SHOP, MART, "ON o.customer_id = c.customer_id", "ON o.customer_id = c.customer_id AND c.region <> 'x'")
    report = run_diff(options, SHOP, new)
    changes = by_column(report)
    assert {c.kind for c in changes.values()} == {ColumnKind.INDIRECT}
    revenue = changes["mart.customer_revenue.revenue"]
    # the ON's conjuncts are edges of their own: the customer_id one stays, the region one is new
    assert [(e.source, e.subtype, e.expression) for e in revenue.added] == [
        (P + "stg.customers.region", "JOIN", "customers.region <> 'x'")
    ]
    assert (revenue.removed, revenue.changed) == ([], [])
    assert not [e for c in changes.values() for e in c.changed + c.added if e.dependency == "DIRECT"]


def test_a_new_job_adds_its_table_and_a_removed_one_removes_it(options: ProjectOptions) -> None:
    added = {
        **SHOP,
        "reports/churn.sql": "CREATE TABLE rpt.churn AS SELECT customer_id, orders FROM mart.customer_revenue WHERE orders < 2",
    }
    report = run_diff(options, SHOP, added)
    assert [(j.job, j.kind) for j in report.jobs] == [("reports/churn.sql#1", "added")]
    assert [(t.table, t.kind) for t in report.tables] == [(P + "rpt.churn", "added")]
    assert {c.kind for c in report.columns} == {ColumnKind.ADDED} and report.verdict is Verdict.SAFE
    report = run_diff(options, added, SHOP)
    assert [(j.job, j.kind, j.old_file, j.old_line) for j in report.jobs] == [
        ("reports/churn.sql#1", "removed", "reports/churn.sql", 1)
    ]
    assert [(t.table, t.kind, t.columns) for t in report.tables] == [
        (P + "rpt.churn", "removed", (P + "rpt.churn.customer_id", P + "rpt.churn.orders"))
    ]
    assert report.verdict is Verdict.SAFE  # nothing reads rpt.churn


def test_a_statement_moved_to_another_file_is_a_move(options: ProjectOptions) -> None:
    first, view = REPORTS.split("\n\n")
    moved = {**SHOP, "reports/reports.sql": first + "\n", "reports/top.sql": view}
    report = run_diff(options, SHOP, moved)
    assert report.columns == [] and report.tables == []
    (job,) = report.jobs
    assert (job.job, job.kind, job.moved_from) == ("reports/top.sql#1", "moved", "reports/reports.sql#2")
    assert (job.old_file, job.old_line, job.new_file, job.new_line) == (RPT, 6, "reports/top.sql", 1)
    assert report.verdict is Verdict.SAFE


def test_a_named_job_moved_keeps_its_name(options: ProjectOptions) -> None:
    named = MARTS.replace("CREATE TABLE", "-- name: customer_revenue\nCREATE TABLE", 1)
    old = {**SHOP, "marts/customer_revenue.sql": named}
    new = {k: v for k, v in old.items() if k != "marts/customer_revenue.sql"} | {"marts/revenue.sql": named}
    (job,) = run_diff(options, old, new).jobs
    assert (job.job, job.kind, job.old_file, job.new_file) == ("customer_revenue", "moved", MART, "marts/revenue.sql")


def test_a_statement_that_no_longer_parses_is_a_problem_and_the_rest_still_compares(options: ProjectOptions) -> None:
    new = edited(SHOP, RPT, "GROUP BY region;", "GROUP BY region;\n\nINSERT INTO rpt.broken SELEC x FROM y;")
    new = edited(new, MART, "SUM(o.amount) AS revenue", "AVG(o.amount) AS revenue")
    report = run_diff(options, SHOP, new)
    assert [(p.file, p.line, p.code) for p in report.problems] == [(RPT, 6, "parse_error")]
    assert [c.column for c in report.columns] == [P + "mart.customer_revenue.revenue"]
    assert report.verdict is Verdict.BREAKING
