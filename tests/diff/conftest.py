"""A three-layer shop written for the diff tests (staging → marts → reports, CTAS, a view, a join, a
filter, aggregations), and helpers to diff one version of it against another."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest

from headwater.catalog import load_schema_file
from headwater.diff.changes import ColumnChange, DiffReport
from headwater.diff.project_graph import ProjectOptions
from headwater.diff.run import diff, project_side
from headwater.store import LineageStore
from tests.store.conftest import pg_url, store, store_url  # noqa: F401  (fixtures)

SCHEMA = """\
raw:
  orders: {order_id: bigint, customer_id: bigint, amount: "decimal(10, 2)", status: string, order_date: date}
  customers: {customer_id: bigint, name: string, region: string}
"""

STAGING = """\
CREATE TABLE stg.orders AS
SELECT o.order_id, o.customer_id, CAST(o.amount AS DECIMAL(12, 2)) AS amount, o.status, o.order_date
FROM raw.orders o
WHERE o.status <> 'test';

CREATE TABLE stg.customers AS
SELECT c.customer_id, c.name, c.region FROM raw.customers c;
"""

MARTS = """\
CREATE TABLE mart.customer_revenue AS
SELECT c.customer_id,
       c.name AS customer_name,
       c.region,
       SUM(o.amount) AS revenue,
       COUNT(o.order_id) AS orders
FROM stg.orders o
JOIN stg.customers c ON o.customer_id = c.customer_id
GROUP BY c.customer_id, c.name, c.region;
"""

REPORTS = """\
CREATE TABLE rpt.region_summary AS
SELECT region, SUM(revenue) AS total_revenue, SUM(orders) AS total_orders
FROM mart.customer_revenue
GROUP BY region;

CREATE VIEW rpt.top_customers AS
SELECT customer_name, revenue FROM mart.customer_revenue WHERE revenue > 1000;
"""

SHOP = {"staging/stg.sql": STAGING, "marts/customer_revenue.sql": MARTS, "reports/reports.sql": REPORTS}
P = "internal."


def edited(files: Mapping[str, str], path: str, old: str, new: str) -> dict[str, str]:
    """``files`` with ``old`` replaced by ``new`` in ``path`` (which must contain it)."""
    assert old in files[path], (path, old)
    return {**files, path: files[path].replace(old, new)}


@pytest.fixture(scope="session")
def schema_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("schema") / "schema.yaml"
    path.write_text(SCHEMA)
    return path


@pytest.fixture(scope="session")
def options(schema_file: Path) -> ProjectOptions:
    return ProjectOptions(dialect="spark", catalog=load_schema_file(schema_file, dialect="spark"))


def run_diff(
    options: ProjectOptions,
    old: Mapping[str, str],
    new: Mapping[str, str],
    deployed: LineageStore | None = None,
) -> DiffReport:
    return diff(project_side(old, options, "main"), project_side(new, options, "branch"), deployed, "deployed")


def by_column(report: DiffReport) -> dict[str, ColumnChange]:
    return {c.column.removeprefix(P): c for c in report.columns}


def write_project(root: Path, files: Mapping[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root
