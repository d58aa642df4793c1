"""Stores filled from SQL, and a runner at the 100-column terminal the CLI is read on."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from headwater.cli.main import app
from headwater.extract import Extractor
from headwater.store import close_all, open_store

WAREHOUSE = """
INSERT INTO rpt.exec_summary
SELECT r.region, SUM(o.revenue) AS revenue, COUNT(*) AS orders
FROM sales.orders o JOIN sales.regions r ON o.region_id = r.id
WHERE o.status = 'PAID'
GROUP BY r.region;
INSERT INTO rpt.region_revenue SELECT region, revenue FROM rpt.exec_summary;
INSERT INTO tpcds.catalog_sales_summary
SELECT cs_item_sk, SUM(cs_net_paid_inc_ship_tax) AS cs_net_paid_inc_ship_tax_total_for_the_quarter
FROM tpcds.catalog_sales GROUP BY cs_item_sk;
INSERT INTO crm.revenue_by_customer SELECT customer_id, revenue FROM crm.customer_revenue;
INSERT INTO fin.revenue_forecast SELECT revenue FROM fin.revenue_actuals;
"""


def invoke(*args: str, stdin: str | None = None, columns: int = 100) -> Result:
    """``headwater ARGS`` as at a ``columns``-wide terminal (stdout and stderr apart)."""
    return CliRunner().invoke(app, list(args), input=stdin, env={"COLUMNS": str(columns), "TERM": "dumb"})


def fill(url: str, sql: str, dialect: str = "doris") -> None:
    from headwater.extract import ExtractOptions

    events = Extractor(options=ExtractOptions(dialect=dialect)).run(sql).events
    assert events
    open_store(url).record_batch(events)


@pytest.fixture
def store_of(tmp_path: Path) -> Callable[..., str]:
    """``store_of(sql)``: the URL of a fresh SQLite store holding the lineage of ``sql``."""
    made = 0

    def make(sql: str = WAREHOUSE, dialect: str = "doris") -> str:
        nonlocal made
        made += 1
        url = f"sqlite:///{tmp_path / f'store{made}.db'}"
        fill(url, sql, dialect)
        return url

    yield make
    close_all()


@pytest.fixture
def warehouse(store_of: Callable[..., str]) -> str:
    return store_of()
