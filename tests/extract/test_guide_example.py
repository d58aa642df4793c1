"""The Doris 4.x Data Lineage guide's example, section by section (000_…, "Lineage content")."""

from __future__ import annotations

import pytest

from headwater.cli.extract_cmd import guide_script, run_demo
from headwater.model import Origin, SourceCommand, Status
from tests.extract.helpers import cols, dataset, direct, output


@pytest.fixture(scope="module")
def result():
    return run_demo()


@pytest.fixture(scope="module")
def event(result):
    assert len(result.events) == 1
    return result.events[0]


def test_only_the_cte_insert_makes_an_event(result):
    kinds = [(s.kind, s.skip_reason is None) for s in result.statements]
    assert kinds == [
        ("ddl", False),
        ("use", False),
        ("ddl", False),
        ("ddl", False),
        ("ddl", False),
        ("insert", False),
        ("insert", False),
        ("insert", True),
        ("select", False),
    ]
    values = [s for s in result.statements if s.kind == "insert" and s.skip_reason]
    assert len(values) == 2
    assert all(s.skip_reason.startswith("values-insert") for s in values)
    assert result.statements[7].events[0].target.table.name == "lineage_customer_summary"


def test_table_lineage(event):
    assert event.target.table.qualified == "lineage_demo.lineage_customer_summary"
    assert [t.name for t in event.sources] == ["lineage_orders", "lineage_customers"]
    assert event.status is Status.COMPLETE
    assert event.diagnostics == ()


def test_target_columns_come_from_the_ddl(event):
    assert [(f.name, f.type) for f in event.target.columns] == [
        ("customer_id", "BIGINT"),
        ("region_label", "VARCHAR(16)"),
        ("total_amount", "DECIMAL(18, 2)"),
        ("customer_seq", "BIGINT"),
        ("region_group", "VARCHAR(16)"),
    ]


def test_direct_column_lineage(event):
    assert direct(event) == [
        ("customer_id", "lineage_orders.customer_id", "IDENTITY"),
        ("region_label", "UPPER(lineage_orders.region)", "TRANSFORMATION"),
        ("total_amount", "SUM(lineage_orders.amount)", "AGGREGATION"),
        ("customer_seq", "ROW_NUMBER() OVER (ORDER BY lineage_orders.customer_id)", "TRANSFORMATION"),
        (
            "region_group",
            "CASE WHEN UPPER(lineage_orders.region) = 'EAST' THEN 'CORE' ELSE 'OTHER' END",
            "TRANSFORMATION",
        ),
    ]
    assert [cols(d.sources) for d in event.direct] == [
        ["lineage_orders.customer_id"],
        ["lineage_orders.region"],
        ["lineage_orders.amount"],
        ["lineage_orders.customer_id"],
        ["lineage_orders.region"],
    ]
    assert {d.origin for d in event.direct} == {Origin.COLUMN}


def test_dataset_indirect_lineage(event):
    assert dataset(event) == [
        ("JOIN", "lineage_orders.customer_id = lineage_customers.customer_id"),
        ("FILTER", "lineage_orders.`status` = 'PAID'"),
        ("FILTER", "lineage_customers.customer_level = 'VIP'"),
        ("FILTER", "SUM(lineage_orders.amount) >= 50"),
        ("GROUP_BY", "lineage_orders.customer_id"),
        ("GROUP_BY", "UPPER(lineage_orders.region)"),
        ("SORT", "SUM(lineage_orders.amount)"),
    ]
    assert cols(event.dataset_indirect[0].sources) == ["lineage_orders.customer_id", "lineage_customers.customer_id"]


def test_output_indirect_lineage(event):
    assert output(event) == [
        ("customer_seq", "WINDOW", "lineage_orders.customer_id"),
        ("region_group", "CONDITIONAL", "UPPER(lineage_orders.region) = 'EAST'"),
    ]
    for name in ("customer_id", "region_label", "total_amount"):
        assert event.output_indirect_for(name) == ()


def test_direct_inputs_follow_openlineage_definitions(event):
    """Window keys and CASE conditions are INDIRECT only: no DIRECT input."""
    inputs = {
        d.target_column: [(f"{i.column.table.name}.{i.column.column}", i.labels) for i in d.inputs]
        for d in event.direct
    }
    assert inputs == {
        "customer_id": [("lineage_orders.customer_id", ())],
        "region_label": [("lineage_orders.region", ("UPPER",))],
        "total_amount": [("lineage_orders.amount", ("SUM",))],
        "customer_seq": [],
        "region_group": [],
    }


def test_query_context(event):
    guide_sql = guide_script()
    c = event.context
    assert c.source_command is SourceCommand.INSERT_INTO
    assert event.source_command is SourceCommand.INSERT_INTO
    assert c.sql.startswith("INSERT INTO lineage_customer_summary\nWITH customer_totals AS (")
    assert c.sql.endswith("ORDER BY total_amount DESC")
    assert c.sql in guide_sql
    assert (c.user, c.client_ip, c.database, c.catalog, c.state) == (
        "lineage_user",
        "192.0.2.10",
        "lineage_demo",
        "internal",
        "OK",
    )
    assert c.duration_ms == -1
    assert dict(c.external_catalog_properties) == {}
    assert c.timestamp and c.timestamp.endswith("Z")


def test_ids_are_stable_across_runs(event):
    again = run_demo().events[0]
    assert again.context.query_id == event.context.query_id
    assert again.event_id == event.event_id


def test_the_event_validates_against_the_json_schema(event):
    import jsonschema

    from headwater.model import event_to_dict
    from headwater.model.schema import event_json_schema

    jsonschema.validate(event_to_dict(event), event_json_schema())
