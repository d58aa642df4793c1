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


def test_columns_of_one_union_pair_up_branch_by_branch():
    """Never ``a`` of one branch with ``b`` of another: that would invent lineage."""
    e = one_event(
        "INSERT INTO t SELECT u.a + u.b AS s, u.a * v.c AS m FROM "
        "(SELECT id AS a, amount AS b FROM orders UNION ALL SELECT order_id, qty FROM items) u "
        "JOIN (SELECT id AS c FROM old UNION ALL SELECT id FROM orders) v ON u.a = v.c",
        SCHEMA,
    )
    assert [d.expression for d in e.direct_for("s")] == ["orders.id + orders.amount", "items.order_id + items.qty"]
    assert [d.expression for d in e.direct_for("m")] == [
        "orders.id * old.id",
        "orders.id * orders.id",
        "items.order_id * old.id",
        "items.order_id * orders.id",
    ]


def test_too_many_branch_combinations_are_capped_with_a_diagnostic():
    branches = " UNION ALL ".join(f"SELECT id AS a FROM orders WHERE id = {k}" for k in range(9))
    e = one_event(
        f"INSERT INTO t SELECT u.a + v.a + w.a AS s FROM ({branches}) u, ({branches}) v, ({branches}) w", SCHEMA
    )
    assert len(e.direct_for("s")) == 64
    assert "alternatives_capped" in [d.code for d in e.diagnostics]
    assert e.status.value == "PARTIAL"
