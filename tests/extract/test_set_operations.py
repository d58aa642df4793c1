"""UNION [ALL] / INTERSECT / EXCEPT: every branch is scanned and gives its own direct entry."""

from __future__ import annotations

from tests.extract.helpers import dataset, direct, one_event, sources

SCHEMA = {"db.orders": ["id", "amount", "status"], "db.items": ["order_id", "qty", "price"], "db.old": ["id", "amount"]}


def test_union_all_gives_one_entry_per_branch():
    e = one_event(
        "INSERT INTO t SELECT id, amount FROM orders UNION ALL SELECT order_id, price * qty FROM items", SCHEMA
    )
    assert sources(e) == ["db.orders", "db.items"]
    assert [(d.target_column, d.expression, d.type.value, d.branch) for d in e.direct] == [
        ("id", "orders.id", "IDENTITY", 0),
        ("id", "items.order_id", "IDENTITY", 1),
        ("amount", "orders.amount", "IDENTITY", 0),
        ("amount", "items.price * items.qty", "TRANSFORMATION", 1),
    ]


def test_three_branches_with_filters_in_each():
    e = one_event(
        "INSERT INTO t SELECT id FROM orders WHERE status = 'a' UNION SELECT order_id FROM items WHERE qty > 0 "
        "EXCEPT SELECT id FROM old",
        SCHEMA,
    )
    assert sources(e) == ["db.orders", "db.items", "db.old"]
    assert [d.expression for d in e.direct] == ["orders.id", "items.order_id", "old.id"]
    assert dataset(e) == [("FILTER", "orders.`status` = 'a'"), ("FILTER", "items.qty > 0")]


def test_union_inside_a_derived_table_fans_out_to_the_outer_expression():
    e = one_event(
        "INSERT INTO t SELECT u.v * 2 AS w FROM (SELECT amount AS v FROM orders UNION ALL SELECT price FROM items) u",
        SCHEMA,
    )
    assert direct(e) == [("w", "orders.amount * 2", "TRANSFORMATION"), ("w", "items.price * 2", "TRANSFORMATION")]


def test_order_by_on_a_union_sorts_every_branch():
    e = one_event("INSERT INTO t SELECT id FROM orders UNION ALL SELECT order_id FROM items ORDER BY 1", SCHEMA)
    assert dataset(e) == [("SORT", "orders.id"), ("SORT", "items.order_id")]


def test_union_in_a_cte():
    e = one_event("INSERT INTO t WITH u AS (SELECT id FROM orders UNION SELECT id FROM old) SELECT id FROM u", SCHEMA)
    assert direct(e) == [("id", "orders.id", "IDENTITY"), ("id", "old.id", "IDENTITY")]
