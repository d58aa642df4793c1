"""GROUP BY / ORDER BY by alias or ordinal, HAVING, QUALIFY, ORDER BY without LIMIT."""

from __future__ import annotations

from tests.extract.helpers import dataset, direct, one_event

SCHEMA = {"db.orders": ["id", "cust", "amount", "status", "ts", "region"]}


def test_group_by_ordinal_having_alias_order_by_ordinal():
    e = one_event(
        "INSERT INTO t SELECT cust, COUNT(*) AS n FROM orders GROUP BY 1 HAVING n > 2 ORDER BY 2 DESC LIMIT 10", SCHEMA
    )
    assert dataset(e) == [("FILTER", "COUNT(*) > 2"), ("GROUP_BY", "orders.cust"), ("SORT", "COUNT(*)")]
    assert e.direct_for("n")[0].origin.value == "SYSTEM"


def test_group_by_alias_and_order_by_alias():
    e = one_event("INSERT INTO t SELECT region AS r, SUM(amount) total FROM orders GROUP BY r ORDER BY total", SCHEMA)
    assert dataset(e) == [("GROUP_BY", "orders.region"), ("SORT", "SUM(orders.amount)")]


def test_group_by_prefers_the_source_column_over_an_alias():
    e = one_event("INSERT INTO t SELECT UPPER(region) AS region, COUNT(*) AS n FROM orders GROUP BY region", SCHEMA)
    assert dataset(e) == [("GROUP_BY", "orders.region")]


def test_order_by_without_limit_is_recorded():
    e = one_event("INSERT INTO t SELECT id FROM orders ORDER BY ts", SCHEMA)
    assert dataset(e) == [("SORT", "orders.ts")]


def test_qualify_is_a_filter():
    e = one_event(
        "INSERT INTO t SELECT id, ROW_NUMBER() OVER (PARTITION BY cust ORDER BY ts) rn FROM orders QUALIFY rn = 1",
        SCHEMA,
    )
    assert dataset(e) == [("FILTER", "ROW_NUMBER() OVER (PARTITION BY orders.cust ORDER BY orders.ts) = 1")]


def test_filters_of_every_scope():
    e = one_event(
        "INSERT INTO t WITH c AS (SELECT cust, amount FROM orders WHERE status = 'PAID') "
        "SELECT cust, SUM(amount) s FROM (SELECT * FROM c WHERE amount > 0) x GROUP BY cust HAVING SUM(amount) > 5",
        SCHEMA,
    )
    assert dataset(e) == [
        ("FILTER", "orders.`status` = 'PAID'"),
        ("FILTER", "orders.amount > 0"),
        ("FILTER", "SUM(orders.amount) > 5"),
        ("GROUP_BY", "orders.cust"),
    ]
    assert direct(e) == [("cust", "orders.cust", "IDENTITY"), ("s", "SUM(orders.amount)", "AGGREGATION")]


def test_rollup_keys_are_group_by_with_a_note():
    e = one_event("INSERT INTO t SELECT region, cust, SUM(amount) s FROM orders GROUP BY ROLLUP (region, cust)", SCHEMA)
    assert dataset(e) == [("GROUP_BY", "orders.region"), ("GROUP_BY", "orders.cust")]
    assert [d.code for d in e.diagnostics if d.severity.value != "INFO"] == []
