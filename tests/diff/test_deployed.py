"""With ``--store``: the deployed catalog binds the project, the deployed downstream (another
project's job, a report) decides the verdict; and two times of one store. SQLite and PostgreSQL."""

from __future__ import annotations

import json
import time
from pathlib import Path

from fastapi.testclient import TestClient

from headwater.diff.changes import ColumnKind, Verdict
from headwater.diff.project_graph import ProjectOptions
from headwater.diff.run import diff, store_side
from headwater.service import create_app
from headwater.store import DatasetRef, ExecutionContext, LineageStore, NodeType
from headwater.store.names import from_us, now_us
from tests.cli.conftest import invoke
from tests.diff.conftest import MARTS, REPORTS, SHOP, P, by_column, edited, run_diff, write_project

MART = "marts/customer_revenue.sql"
FORECAST = "INSERT INTO fin.revenue_forecast SELECT customer_name, revenue * 1.1 AS revenue FROM mart.customer_revenue"
DROPPED = edited(
    edited(SHOP, MART, "       c.name AS customer_name,\n", ""),
    "reports/reports.sql",
    "SELECT customer_name, revenue FROM",
    "SELECT revenue FROM",
)


def ingest(url: str, root: Path, schema: Path) -> None:
    r = invoke("ingest", str(root), "--store", url, "--dialect", "spark", "--schema", str(schema))
    assert r.exit_code == 0, r.output


def deploy(url: str, tmp_path: Path, schema: Path, lineage: LineageStore) -> None:
    """The shop, and another project that reads its mart, with a report on top."""
    ingest(url, write_project(tmp_path / "shop", SHOP), schema)
    ingest(url, write_project(tmp_path / "finance", {"forecast.sql": FORECAST}), schema)
    lineage.record_lineage(
        ExecutionContext("bi", "refresh-1"),
        [DatasetRef("fin.revenue_forecast", "internal")],
        [DatasetRef("forecast_dashboard", "bi", type=NodeType.REPORT)],
    )


def test_the_deployed_downstream_decides(
    store: LineageStore,
    store_url: str,
    tmp_path: Path,
    options: ProjectOptions,
    schema_file: Path,
) -> None:
    deploy(store_url, tmp_path, schema_file, store)
    # within the project the drop is safe (its own view follows it) ...
    assert run_diff(options, SHOP, DROPPED).verdict is Verdict.SAFE
    # ... but the finance project, deployed, still reads the column
    report = run_diff(options, SHOP, DROPPED, deployed=store)
    dropped = by_column(report)["mart.customer_revenue.customer_name"]
    assert dropped.verdict is Verdict.BREAKING
    assert [(r.column, r.broken) for r in dropped.impact.readers] == [
        (P + "fin.revenue_forecast.customer_name", True),
        (P + "rpt.top_customers.customer_name", False),  # changes with it
    ]
    groups = {g.type: (g.count, g.severity) for g in dropped.impact.groups}
    assert groups["REPORT"] == (1, "HIGH")
    assert report.impact_from == "deployed"
    # the changed aggregation reaches the other project and its report
    new = edited(SHOP, MART, "SUM(o.amount) AS revenue", "AVG(o.amount) AS revenue")
    revenue = by_column(run_diff(options, SHOP, new, deployed=store))["mart.customer_revenue.revenue"]
    assert P + "fin.revenue_forecast.revenue" in {r.column for r in revenue.impact.readers}
    assert revenue.verdict is Verdict.POSSIBLY_BREAKING
    assert revenue.reason.endswith("values change for 4 column(s) downstream, 1 REPORT (DATA_UPDATE, MEDIUM)")


def test_the_store_is_the_catalog(
    store: LineageStore,
    store_url: str,
    tmp_path: Path,
    options: ProjectOptions,
    schema_file: Path,
) -> None:
    """The reports alone, diffed against the deployed store: the mart they read comes from it."""
    deploy(store_url, tmp_path, schema_file, store)
    reports = {"reports/reports.sql": REPORTS}
    new = {"reports/reports.sql": REPORTS.replace("SUM(orders) AS total_orders", "MAX(orders) AS total_orders")}
    without = ProjectOptions(dialect="spark")
    r = invoke(
        "diff",
        str(write_project(tmp_path / "a", reports)),
        str(write_project(tmp_path / "b", new)),
        "--dialect",
        "spark",
        "--store",
        store_url,
        "--format",
        "json",
    )
    assert r.exit_code == 0, r.output  # possibly breaking at most
    (change,) = json.loads(r.stdout)["columns"]
    assert (change["column"], change["kind"]) == (P + "rpt.region_summary.total_orders", "expression")
    assert change["changed"][0]["source"] == P + "mart.customer_revenue.orders"
    # without the store the mart is unknown, but its columns are named as the statements read them
    assert run_diff(without, reports, new).columns[0].changed[0].source == P + "mart.customer_revenue.orders"


def test_two_times_of_one_store(
    store: LineageStore,
    store_url: str,
    tmp_path: Path,
    schema_file: Path,
) -> None:
    root = write_project(tmp_path / "shop", SHOP)
    ingest(store_url, root, schema_file)
    before = now_us()
    time.sleep(0.01)
    write_project(root, {MART: MARTS.replace("SUM(o.amount) AS revenue", "AVG(o.amount) AS revenue")})
    ingest(store_url, root, schema_file)
    report = diff(store_side(store, before), store_side(store, None))
    (change,) = report.columns
    assert (change.column, change.kind, change.verdict) == (
        P + "mart.customer_revenue.revenue",
        ColumnKind.EXPRESSION,
        Verdict.POSSIBLY_BREAKING,
    )
    assert [(j.job, j.kind) for j in report.jobs] == [(MART + "#1", "changed")]
    # before the first ingest: every column is new
    first = diff(store_side(store, before - 60_000_000), store_side(store, before))
    assert {c.kind for c in first.columns} == {ColumnKind.ADDED} and len(first.tables) == 5
    # the CLI and the API answer the same
    iso = from_us(before).isoformat()
    r = invoke("diff", "--from", iso, "--store", store_url, "--format", "json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["columns"][0]["changed"][0]["new_expression"] == "AVG(orders.amount)"
    r = invoke("diff", "--from", iso, "--store", store_url, "--fail-on", "possibly-breaking")
    assert r.exit_code == 1
    with TestClient(create_app(store)) as client:
        body = client.get("/api/v1/diff", params={"from": iso}).json()
    assert body["verdict"] == "POSSIBLY_BREAKING"
    assert (
        body["columns"]
        == json.loads(invoke("diff", "--from", iso, "--store", store_url, "--format", "json").stdout)["columns"]
    )
    (edge,) = body["edges"]
    assert (edge["status"], edge["source"], edge["expression"]) == (
        "changed",
        P + "stg.orders.amount",
        "AVG(orders.amount)",
    )
    assert edge["target_id"] == store.resolve(P + "mart.customer_revenue.revenue").id
