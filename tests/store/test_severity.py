"""Severity that matches what breaks (issue 11 item 8): a destructive change to a column a statement
reads in any role breaks the statement; its target and everything downstream are HIGH or CRITICAL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.store.helpers import events_of, record_sql
from typer.testing import CliRunner

from headwater.cli.main import app
from headwater.model import event_to_json
from headwater.store import LineageStore

runner = CliRunner()

# i_rec_end_date is read only in the WHERE of the first CTAS; three tables are built on its target
PIPELINE = """
CREATE TABLE stg.cur_item AS
SELECT i.i_item_sk, i.i_category, i.i_brand FROM raw.item i WHERE i.i_rec_end_date IS NULL;
CREATE TABLE mart.sales_by_cat AS
SELECT ci.i_category, SUM(s.ss_net_paid) AS revenue
FROM raw.store_sales s JOIN stg.cur_item ci ON ci.i_item_sk = s.ss_item_sk GROUP BY ci.i_category;
CREATE TABLE rpt.top_cat AS SELECT c.i_category, c.revenue FROM mart.sales_by_cat c ORDER BY c.revenue DESC LIMIT 5;
CREATE TABLE rpt.brands AS SELECT DISTINCT ci.i_brand FROM stg.cur_item ci;
CREATE TABLE rpt.item_count AS SELECT COUNT(*) AS n FROM stg.cur_item;
CREATE TABLE rpt.unrelated AS SELECT s.ss_item_sk FROM raw.store_sales s;
"""


def test_dropping_a_where_column_breaks_the_statement_and_its_downstream(store: LineageStore) -> None:
    """Problem 6: a column used only in a CTAS's WHERE was MEDIUM on DROP_COLUMN."""
    record_sql(store, PIPELINE)
    a = store.analyze_impact("item.i_rec_end_date", "SCHEMA_CHANGE", {"operation": "DROP_COLUMN"}, sample_size=50)
    by_type = {g.type: g for g in a.groups}
    assert a.overall_severity == "HIGH"
    assert by_type["DATASET"].severity == "HIGH"
    assert set(by_type["DATASET"].sample_node_ids) == {
        "internal.stg.cur_item",
        "internal.mart.sales_by_cat",
        "internal.rpt.top_cat",
        "internal.rpt.brands",
        "internal.rpt.item_count",  # reads cur_item with no column: table-level lineage only
    }
    assert by_type["JOB"].count == 5 and by_type["JOB"].severity == "HIGH"
    fields = set(by_type["FIELD"].sample_node_ids)
    assert {"internal.stg.cur_item.i_brand", "internal.rpt.top_cat.revenue", "internal.rpt.brands.i_brand"} <= fields
    assert not any("unrelated" in f for f in fields)
    # a data update of that column still grades by dependency: a filter input is LOW
    upd = store.analyze_impact("item.i_rec_end_date", "DATA_UPDATE", sample_size=50)
    assert upd.overall_severity == "LOW"
    # the filter reaches every column of cur_item, not item_count (no column of it is computed from one)
    assert {g.type: g.count for g in upd.groups}["DATASET"] == 4


@pytest.mark.parametrize("operation", ["DROP_COLUMN", "RENAME_COLUMN", "CHANGE_TYPE"])
def test_every_role_breaks(store: LineageStore, operation: str) -> None:
    record_sql(store, PIPELINE)
    # ON (a JOIN key), GROUP BY, ORDER BY, and a copied column: all break their statement
    for column in ("store_sales.ss_item_sk", "cur_item.i_category", "sales_by_cat.revenue", "item.i_item_sk"):
        a = store.analyze_impact(column, "SCHEMA_CHANGE", {"operation": operation})
        assert a.overall_severity in ("HIGH", "CRITICAL"), (column, a.groups)
        assert all(g.severity in ("HIGH", "CRITICAL") for g in a.groups), (column, a.groups)
    # copying by identity stays CRITICAL
    copied = store.analyze_impact("item.i_brand", "SCHEMA_CHANGE", {"operation": operation}, sample_size=50)
    field = next(g for g in copied.groups if g.type == "FIELD")
    assert field.severity == "CRITICAL" and field.sample_node_ids[0] in (
        "internal.rpt.brands.i_brand",
        "internal.stg.cur_item.i_brand",
    )


def test_metadata_change_stays_low(store: LineageStore) -> None:
    record_sql(store, PIPELINE)
    a = store.analyze_impact("item.i_rec_end_date", "SCHEMA_CHANGE", {"operation": "COMMENT"})
    assert a.overall_severity == "LOW"


def test_cli_analyze_drop_column(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'l.db'}"
    f = tmp_path / "events.jsonl"
    f.write_text("".join(event_to_json(e) + "\n" for e in events_of(PIPELINE)))
    assert runner.invoke(app, ["ingest", str(f), "--store", store]).exit_code == 0
    r = runner.invoke(
        app,
        ["query", "analyze", "item.i_rec_end_date", "--operation", "DROP_COLUMN", "--store", store, "--format", "json"],
    )
    assert r.exit_code == 0, r.output
    answer = json.loads(r.output)
    assert answer["overall_severity"] == "HIGH"
    assert {g["type"]: (g["count"], g["severity"]) for g in answer["groups"]}["DATASET"] == (5, "HIGH")
