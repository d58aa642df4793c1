"""analyze_impact: affected nodes, groups and the documented severity rules."""

from __future__ import annotations

import pytest
from tests.store.conftest import copy_event, guide
from tests.store.test_queries import wh  # noqa: F401  (fixture)

from headwater.store import DatasetRef, ExecutionContext, InvalidInput, LineageStore


def groups(a) -> dict[str, tuple[int, str]]:  # type: ignore[no-untyped-def]
    return {g.type: (g.count, g.severity) for g in a.groups}


def test_dropped_identity_source_is_critical(wh: LineageStore) -> None:  # noqa: F811
    a = wh.analyze_impact("lineage_orders.customer_id", "SCHEMA_CHANGE", {"operation": "DROP_COLUMN"})
    assert groups(a) == {"DATASET": (2, "CRITICAL"), "FIELD": (7, "CRITICAL"), "JOB": (2, "CRITICAL")}
    assert (a.total_affected_count, a.overall_severity, a.risk_level) == (11, "CRITICAL", "critical")
    field = next(g for g in a.groups if g.type == "FIELD")
    assert field.sample_node_ids[0] == "internal.lineage_demo.lineage_customer_summary.customer_id"
    assert len(field.sample_node_ids) == 5


def test_transformed_source_is_high_and_filter_only_breaks_the_statement(wh: LineageStore) -> None:  # noqa: F811
    high = wh.analyze_impact("lineage_orders.region", "SCHEMA_CHANGE")
    assert high.overall_severity == "HIGH" and groups(high)["FIELD"] == (7, "HIGH")
    # status is only in the WHERE: deleting it makes the statement fail, which stops its target
    broken = wh.analyze_impact("lineage_orders.status", "DELETE")
    assert broken.overall_severity == "HIGH" and groups(broken)["FIELD"] == (7, "HIGH")
    assert groups(broken)["DATASET"] == (2, "HIGH")
    # a data update of a filter column still grades by dependency
    low = wh.analyze_impact("lineage_orders.status", "DATA_UPDATE")
    assert low.overall_severity == "LOW" and groups(low)["DATASET"] == (2, "LOW")


def test_data_update_and_metadata_change(wh: LineageStore) -> None:  # noqa: F811
    upd = wh.analyze_impact("lineage_orders.customer_id", "DATA_UPDATE")
    assert upd.overall_severity == "MEDIUM" and upd.risk_level == "moderate"
    assert groups(upd)["FIELD"] == (7, "MEDIUM")
    meta = wh.analyze_impact("lineage_orders", "SCHEMA_CHANGE", {"operation": "ADD_COLUMN"})
    assert meta.overall_severity == "LOW" and meta.total_affected_count > 0


def test_dataset_target_and_columns(wh: LineageStore) -> None:  # noqa: F811
    whole = wh.analyze_impact("lineage_customers", "DELETE")
    # customer_id feeds a JOIN, customer_level a FILTER: the statement that reads them breaks
    assert groups(whole) == {"DATASET": (2, "HIGH"), "FIELD": (7, "HIGH"), "JOB": (2, "HIGH")}
    one = wh.analyze_impact("lineage_orders", "SCHEMA_CHANGE", {"columns": ["amount"]})
    assert one.details["changed_fields"] == ["internal.lineage_demo.lineage_orders.amount"]
    assert one.overall_severity == "HIGH"  # AGGREGATION


def test_nothing_downstream_is_low(wh: LineageStore) -> None:  # noqa: F811
    a = wh.analyze_impact("report.rg", "DELETE")
    assert (a.total_affected_count, a.groups, a.overall_severity, a.risk_level) == (0, [], "LOW", "low")


def test_entities_downstream_have_unknown_dependency(wh: LineageStore) -> None:  # noqa: F811
    wh.record_lineage(
        ExecutionContext("bi", "e1", timestamp="2024-06-01T00:00:00Z"),
        [DatasetRef("lineage_demo.report", "internal")],
        [DatasetRef("churn_dashboard", "bi", type="REPORT")],
    )
    a = wh.analyze_impact("lineage_orders.status", "DELETE")
    assert groups(a)["REPORT"] == (1, "HIGH")
    assert a.overall_severity == "HIGH"
    assert groups(a)["DATASET"] == (2, "HIGH")
    assert groups(wh.analyze_impact("lineage_orders.status", "DATA_UPDATE"))["DATASET"] == (2, "LOW")


@pytest.mark.parametrize(("n", "risk"), [(9, "moderate"), (10, "high")])
def test_breadth_raises_risk(store: LineageStore, n: int, risk: str) -> None:
    for k in range(n):
        store.record(copy_event(f"t{k}", {"a": [("s", "a")]}))
    a = store.analyze_impact("s.a", "DATA_UPDATE")
    assert (a.overall_severity, a.risk_level, groups(a)["DATASET"]) == ("MEDIUM", risk, (n, "MEDIUM"))


@pytest.mark.parametrize(
    ("target", "details", "message"),
    [
        ("lineage_orders", {"operation": "EXPLODE"}, "'EXPLODE' is not one of"),
        ("lineage_orders", {"columns": ["nope"]}, "has no column 'nope'"),
        ("lineage_orders", {"columns": "amount"}, "expected a list of column names"),
        ("lineage_orders.amount", {"columns": ["amount"]}, "is a field"),
    ],
)
def test_bad_details_are_refused_not_answered_with_nothing(
    store: LineageStore, target: str, details: dict, message: str
) -> None:
    store.record(guide())
    with pytest.raises(InvalidInput, match=message) as err:
        store.analyze_impact(target, "SCHEMA_CHANGE", details)
    assert err.value.field in ("details.operation", "details.columns")


def test_named_columns_and_known_operations_are_analysed(store: LineageStore) -> None:
    store.record(guide())
    a = store.analyze_impact("lineage_orders", "SCHEMA_CHANGE", {"columns": ["AMOUNT"], "operation": "type_change"})
    assert a.details["changed_fields"] == ["internal.lineage_demo.lineage_orders.amount"]
