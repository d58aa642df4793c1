"""WINDOW and CONDITIONAL output lineage, attached to their column only; types of window functions."""

from __future__ import annotations

from tests.extract.helpers import cols, direct, one_event, output

SCHEMA = {"db.orders": ["id", "cust", "amount", "status", "ts", "region"]}


def test_window_keys_and_windowed_aggregate():
    e = one_event(
        "INSERT INTO t SELECT id, SUM(amount) OVER (PARTITION BY cust ORDER BY ts) AS running, "
        "RANK() OVER (PARTITION BY region ORDER BY amount DESC) r FROM orders",
        SCHEMA,
    )
    assert direct(e) == [
        ("id", "orders.id", "IDENTITY"),
        ("running", "SUM(orders.amount) OVER (PARTITION BY orders.cust ORDER BY orders.ts)", "AGGREGATION"),
        ("r", "RANK() OVER (PARTITION BY orders.region ORDER BY orders.amount DESC)", "TRANSFORMATION"),
    ]
    assert output(e) == [
        ("running", "WINDOW", "orders.cust"),
        ("running", "WINDOW", "orders.ts"),
        ("r", "WINDOW", "orders.region"),
        ("r", "WINDOW", "orders.amount"),
    ]
    running = e.direct_for("running")[0]
    assert [i.column.column for i in running.inputs] == ["amount"]  # window keys are not DIRECT
    assert cols(running.sources) == ["orders.cust", "orders.ts", "orders.amount"]
    assert e.direct_for("r")[0].inputs == ()


def test_lag_is_a_transformation_of_its_argument():
    e = one_event("INSERT INTO t SELECT LAG(amount) OVER (ORDER BY ts) AS prev FROM orders", SCHEMA)
    assert direct(e) == [("prev", "LAG(orders.amount, 1, NULL) OVER (ORDER BY orders.ts)", "TRANSFORMATION")]
    assert [(i.column.column, i.labels) for i in e.direct[0].inputs] == [("amount", ("LAG",))]


def test_wrapped_aggregate_stays_aggregation():
    e = one_event("INSERT INTO t SELECT ROUND(SUM(amount) / COUNT(*), 2) AS avg_amount FROM orders", SCHEMA)
    assert direct(e) == [("avg_amount", "ROUND(SUM(orders.amount) / COUNT(*), 2)", "AGGREGATION")]


def test_if_coalesce_ifnull_nvl():
    e = one_event(
        "INSERT INTO t SELECT IF(status = 'PAID', amount, 0) AS paid, COALESCE(region, 'none') AS reg, "
        "IFNULL(region, status) r2, NVL(region, 'x') r3 FROM orders",
        SCHEMA,
    )
    assert output(e) == [
        ("paid", "CONDITIONAL", "orders.`status` = 'PAID'"),
        ("reg", "CONDITIONAL", "orders.region"),
        ("r2", "CONDITIONAL", "orders.region"),
        ("r2", "CONDITIONAL", "orders.`status`"),
        ("r3", "CONDITIONAL", "orders.region"),
    ]
    paid = e.direct_for("paid")[0]
    assert [(i.column.column, i.labels) for i in paid.inputs] == [("amount", ("IF",))]


def test_case_conditions_and_values():
    e = one_event(
        "INSERT INTO t SELECT CASE WHEN amount > 100 THEN 'big' WHEN status = 'x' THEN region ELSE 'small' END AS size, "
        "CASE region WHEN 'e' THEN 1 ELSE 0 END AS is_e FROM orders",
        SCHEMA,
    )
    assert output(e) == [
        ("size", "CONDITIONAL", "orders.amount > 100"),
        ("size", "CONDITIONAL", "orders.`status` = 'x'"),
        ("is_e", "CONDITIONAL", "orders.region"),
    ]
    assert [i.column.column for i in e.direct_for("size")[0].inputs] == ["region"]
    assert e.direct_for("is_e")[0].inputs == ()


def test_window_in_a_cte_reaches_the_outer_column():
    e = one_event(
        "INSERT INTO t WITH r AS (SELECT id, ROW_NUMBER() OVER (PARTITION BY cust ORDER BY ts) AS rn FROM orders) "
        "SELECT id, rn FROM r WHERE rn = 1",
        SCHEMA,
    )
    assert output(e) == [("rn", "WINDOW", "orders.cust"), ("rn", "WINDOW", "orders.ts")]
    assert e.output_indirect_for("id") == ()
