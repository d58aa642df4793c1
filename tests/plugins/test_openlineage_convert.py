"""LineageInfo → OpenLineage RunEvent, checked field by field on the guide's example event."""

from __future__ import annotations

import json
import uuid
from dataclasses import replace

from headwater.dispatch.sample import guide_event, tiny_event
from headwater.model import ColumnRef, DirectInput, TableRef
from headwater.model.openlineage import dataset_name, run_event_json, run_id_for, to_run_event

TS = "2025-01-01T00:00:00+00:00"
ORDERS = "lineage_demo.lineage_orders"
CUSTOMERS = "lineage_demo.lineage_customers"


def _doc(**kw: object) -> dict:
    return json.loads(run_event_json(guide_event(timestamp=TS), **kw))  # type: ignore[arg-type]


def _inputs(fields: list[dict]) -> list[tuple]:
    return [
        (f["name"], f["field"], [(t["type"], t["subtype"], t["description"]) for t in f["transformations"]])
        for f in fields
    ]


def test_envelope_job_run_and_datasets() -> None:
    doc = _doc(namespace="warehouse", producer="https://example.org/p")
    assert doc["eventType"] == "COMPLETE"
    assert doc["eventTime"] == TS
    assert doc["producer"] == "https://example.org/p"
    # the job is the statement (its fingerprint and target here: no given name, no file), not the table
    assert doc["job"]["namespace"] == "warehouse"
    assert doc["job"]["name"] == "lineage_demo.lineage_customer_summary"  # the spec's SQL job naming
    assert set(doc["job"]["facets"]) == {"sql", "jobType"}
    assert doc["job"]["facets"]["sql"]["query"].startswith("INSERT INTO lineage_customer_summary")
    assert doc["run"]["facets"]["externalQuery"]["externalQueryId"] == "guide-q1"
    assert [(i["namespace"], i["name"]) for i in doc["inputs"]] == [
        ("warehouse", ORDERS),
        ("warehouse", CUSTOMERS),
    ]
    assert [f["name"] for f in doc["inputs"][0]["facets"]["schema"]["fields"]] == [
        "customer_id",
        "region",
        "amount",
        "status",
    ]
    out = doc["outputs"]
    assert len(out) == 1 and out[0]["name"] == "lineage_demo.lineage_customer_summary"
    assert [(f["name"], f["type"]) for f in out[0]["facets"]["schema"]["fields"]] == [
        ("customer_id", "BIGINT"),
        ("region_label", "VARCHAR(16)"),
        ("total_amount", "DECIMAL(18, 2)"),
        ("customer_seq", "BIGINT"),
        ("region_group", "VARCHAR(16)"),
    ]
    assert out[0]["facets"]["columnLineage"]["_producer"] == "https://example.org/p"


def test_column_lineage_fields_direct_and_output_indirect() -> None:
    fields = _doc()["outputs"][0]["facets"]["columnLineage"]["fields"]
    assert {k: _inputs(v["inputFields"]) for k, v in fields.items()} == {
        "customer_id": [(ORDERS, "customer_id", [("DIRECT", "IDENTITY", "lineage_orders.customer_id")])],
        "region_label": [(ORDERS, "region", [("DIRECT", "TRANSFORMATION", "UPPER(lineage_orders.region)")])],
        "total_amount": [(ORDERS, "amount", [("DIRECT", "AGGREGATION", "SUM(lineage_orders.amount)")])],
        # ROW_NUMBER() OVER (ORDER BY x) has no DIRECT input: x is only a WINDOW input.
        "customer_seq": [(ORDERS, "customer_id", [("INDIRECT", "WINDOW", "lineage_orders.customer_id")])],
        # The CASE's value branches are constants; its condition is CONDITIONAL.
        "region_group": [(ORDERS, "region", [("INDIRECT", "CONDITIONAL", "UPPER(lineage_orders.region) = 'EAST'")])],
    }


def test_dataset_level_indirect_inputs() -> None:
    dataset = _doc()["outputs"][0]["facets"]["columnLineage"]["dataset"]
    join = "lineage_orders.customer_id = lineage_customers.customer_id"
    assert _inputs(dataset) == [
        (
            ORDERS,
            "customer_id",
            [("INDIRECT", "JOIN", join), ("INDIRECT", "GROUP_BY", "lineage_orders.customer_id")],
        ),
        (CUSTOMERS, "customer_id", [("INDIRECT", "JOIN", join)]),
        (ORDERS, "status", [("INDIRECT", "FILTER", "lineage_orders.`status` = 'PAID'")]),
        (CUSTOMERS, "customer_level", [("INDIRECT", "FILTER", "lineage_customers.customer_level = 'VIP'")]),
        (
            ORDERS,
            "amount",
            [
                ("INDIRECT", "FILTER", "SUM(lineage_orders.amount) >= 50"),
                ("INDIRECT", "SORT", "SUM(lineage_orders.amount)"),
            ],
        ),
        (ORDERS, "region", [("INDIRECT", "GROUP_BY", "UPPER(lineage_orders.region)")]),
    ]


def test_masking_comes_from_the_direct_input() -> None:
    e = tiny_event("q-mask")
    d = e.direct[0]
    masked = replace(d, expression="MD5(s.a)", inputs=(DirectInput(d.inputs[0].column, ("MD5",), True),))
    e = replace(e, direct=(masked,))
    t = to_run_event(e).outputs[0].facets["columnLineage"].fields["a"].inputFields[0].transformations[0]
    assert (t.type, t.subtype, t.description, t.masking) == ("DIRECT", "IDENTITY", "MD5(s.a)", True)


def test_run_id_is_deterministic_per_query_and_target() -> None:
    a, b, c = guide_event("q1"), guide_event("q1"), guide_event("q2")
    assert to_run_event(a).run.runId == to_run_event(b).run.runId == a.event_id
    assert to_run_event(c).run.runId != to_run_event(a).run.runId
    derived = run_id_for("not-a-uuid")
    assert derived == run_id_for("not-a-uuid") and uuid.UUID(derived).version == 5


def test_dataset_names_outside_internal_catalog_carry_the_catalog() -> None:
    assert dataset_name(TableRef("internal", "db", "t")) == "db.t"
    assert dataset_name(TableRef("hive", "db", "t")) == "hive.db.t"
    assert dataset_name(TableRef("internal", None, "t")) == "t"
    assert str(ColumnRef(TableRef("hive", "db", "t"), "c")) == "hive.db.t.c"


def test_json_is_one_line() -> None:
    text = run_event_json(tiny_event("q"))
    assert "\n" not in text and json.loads(text)["eventType"] == "COMPLETE"
