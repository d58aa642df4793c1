"""CTEs (nested, reused), derived tables and subqueries of every kind resolve to base columns."""

from __future__ import annotations

from tests.extract.helpers import cols, dataset, direct, one_event, output, sources

SCHEMA = {
    "db.orders": ["id", "cust", "amount", "status", "ts", "region"],
    "db.customers": ["id", "name", "level", "region"],
    "db.items": ["order_id", "sku", "qty", "price"],
}


def test_cte_using_cte():
    e = one_event(
        "INSERT INTO t WITH a AS (SELECT id, amount * 2 AS dbl FROM orders WHERE status = 'x'), "
        "b AS (SELECT id, SUM(dbl) AS s FROM a GROUP BY id) SELECT b.id, b.s + 1 AS total FROM b",
        SCHEMA,
    )
    assert sources(e) == ["db.orders"]
    assert direct(e) == [
        ("id", "orders.id", "IDENTITY"),
        ("total", "SUM(orders.amount * 2) + 1", "AGGREGATION"),
    ]
    assert dataset(e) == [("FILTER", "orders.`status` = 'x'"), ("GROUP_BY", "orders.id")]
    total = e.direct_for("total")[0]
    assert [(i.column.column, i.labels) for i in total.inputs] == [("amount", ("ARITHMETIC", "SUM"))]


def test_cte_referenced_twice_is_resolved_once_and_recorded_once():
    e = one_event(
        "INSERT INTO t WITH a AS (SELECT id, amount FROM orders WHERE status = 'x') "
        "SELECT a1.id, a2.amount FROM a a1 JOIN a a2 ON a1.id = a2.id",
        SCHEMA,
    )
    assert direct(e) == [("id", "orders.id", "IDENTITY"), ("amount", "orders.amount", "IDENTITY")]
    assert dataset(e) == [("JOIN", "orders.id = orders.id"), ("FILTER", "orders.`status` = 'x'")]


def test_unused_cte_is_not_scanned():
    e = one_event("INSERT INTO t WITH unused AS (SELECT * FROM items) SELECT id FROM orders", SCHEMA)
    assert sources(e) == ["db.orders"]


def test_derived_table_with_aggregate_and_outer_filter():
    e = one_event(
        "INSERT INTO t SELECT x.c, x.m FROM (SELECT cust AS c, MAX(amount) AS m FROM orders GROUP BY cust) x "
        "WHERE x.m > 10",
        SCHEMA,
    )
    assert direct(e) == [("c", "orders.cust", "IDENTITY"), ("m", "MAX(orders.amount)", "AGGREGATION")]
    assert dataset(e) == [("FILTER", "MAX(orders.amount) > 10"), ("GROUP_BY", "orders.cust")]


def test_derived_table_column_alias_list():
    e = one_event("INSERT INTO t SELECT d.a, d.b FROM (SELECT id, amount FROM orders) AS d(a, b)", SCHEMA)
    assert direct(e) == [("a", "orders.id", "IDENTITY"), ("b", "orders.amount", "IDENTITY")]


def test_scanned_derived_table_counts_even_when_no_column_is_read():
    e = one_event(
        "INSERT INTO t SELECT COUNT(*) AS n FROM (SELECT id FROM orders INTERSECT SELECT id FROM customers) x", SCHEMA
    )
    assert sources(e) == ["db.orders", "db.customers"]
    assert direct(e) == [("n", "COUNT(*)", "AGGREGATION")]


def test_correlated_scalar_subquery_in_select_list():
    e = one_event(
        "INSERT INTO t SELECT o.id, (SELECT MAX(c.level) FROM customers c WHERE c.id = o.cust) AS lvl FROM orders o",
        SCHEMA,
    )
    assert sources(e) == ["db.orders", "db.customers"]
    assert direct(e) == [("id", "orders.id", "IDENTITY"), ("lvl", "MAX(customers.`level`)", "AGGREGATION")]
    assert dataset(e) == [("FILTER", "customers.id = orders.cust")]


def test_in_and_exists_subqueries_are_filters_over_what_they_compare():
    e = one_event(
        "INSERT INTO t SELECT id FROM orders o WHERE cust IN (SELECT id FROM customers WHERE level = 'VIP') "
        "AND EXISTS (SELECT 1 FROM items i WHERE i.order_id = o.id)",
        SCHEMA,
    )
    assert sources(e) == ["db.orders", "db.customers", "db.items"]
    assert dataset(e) == [
        ("FILTER", "customers.`level` = 'VIP'"),
        ("FILTER", "orders.cust IN (SELECT customers.id FROM customers)"),
        ("FILTER", "items.order_id = orders.id"),
        ("FILTER", "EXISTS(SELECT * FROM items WHERE items.order_id = orders.id)"),
    ]
    assert cols(e.dataset_indirect[1].sources) == ["orders.cust", "customers.id"]
    assert cols(e.dataset_indirect[3].sources) == ["items.order_id", "orders.id"]


def test_scalar_subquery_in_where_compares_with_its_value():
    e = one_event("INSERT INTO t SELECT id FROM orders WHERE amount > (SELECT AVG(price) FROM items)", SCHEMA)
    assert dataset(e) == [("FILTER", "orders.amount > AVG(items.price)")]
    assert sources(e) == ["db.orders", "db.items"]


def test_nested_subqueries_three_levels():
    e = one_event(
        "INSERT INTO t SELECT z.v FROM (SELECT y.v FROM (SELECT UPPER(region) AS v FROM customers) y) z",
        SCHEMA,
    )
    assert direct(e) == [("v", "UPPER(customers.region)", "TRANSFORMATION")]


def test_values_as_a_derived_table_reads_no_column():
    e = one_event("INSERT INTO t SELECT o.id, v.k FROM orders o JOIN (VALUES (1), (2)) AS v(k) ON o.id = v.k", SCHEMA)
    assert direct(e)[0] == ("id", "orders.id", "IDENTITY")
    assert [d.expression for d in e.direct_for("k")] == ["1", "2"]
    assert output(e) == []


def test_substituted_operators_keep_their_precedence():
    e = one_event(
        "INSERT INTO t WITH c AS (SELECT amount + 1 AS x, -amount AS n FROM orders) SELECT 2 * x AS y, x * 2 AS z, "
        "n - 1 AS m, UPPER(x) AS u FROM c",
        SCHEMA,
    )
    assert [d.expression for d in e.direct] == [
        "2 * (orders.amount + 1)",
        "(orders.amount + 1) * 2",
        "(-orders.amount) - 1",
        "UPPER(orders.amount + 1)",
    ]
