"""Every join kind: ON conditions (each conjunct) and USING / NATURAL equalities are JOIN lineage."""

from __future__ import annotations

import pytest

from tests.extract.helpers import codes, cols, dataset, direct, one_event, sources

SCHEMA = {
    "db.orders": ["id", "cust", "amount", "status", "region"],
    "db.customers": ["id", "name", "level", "region"],
    "db.items": ["order_id", "qty"],
}


@pytest.mark.parametrize(
    "kind", ["JOIN", "INNER JOIN", "LEFT JOIN", "LEFT OUTER JOIN", "RIGHT JOIN", "FULL OUTER JOIN"]
)
def test_on_condition_for_every_join_kind(kind):
    e = one_event(f"INSERT INTO t SELECT o.id, c.name FROM orders o {kind} customers c ON o.cust = c.id", SCHEMA)
    assert dataset(e) == [("JOIN", "orders.cust = customers.id")]
    assert cols(e.dataset_indirect[0].sources) == ["orders.cust", "customers.id"]
    assert direct(e) == [("id", "orders.id", "IDENTITY"), ("name", "customers.`name`", "IDENTITY")]


def test_each_on_conjunct_is_its_own_entry_and_cross_join_has_none():
    e = one_event(
        "INSERT INTO t SELECT o.id FROM orders o FULL OUTER JOIN items i ON i.order_id = o.id AND i.qty > 1 "
        "CROSS JOIN customers c2",
        SCHEMA,
    )
    assert sources(e) == ["db.orders", "db.items", "db.customers"]
    assert dataset(e) == [("JOIN", "items.order_id = orders.id"), ("JOIN", "items.qty > 1")]


def test_where_comparing_two_tables_is_a_filter_not_a_join():
    e = one_event("INSERT INTO t SELECT o.id FROM orders o, customers c WHERE o.cust = c.id", SCHEMA)
    assert dataset(e) == [("FILTER", "orders.cust = customers.id")]


def test_using_binds_both_sides_and_merges_the_column():
    e = one_event("INSERT INTO t SELECT id, name FROM orders o JOIN customers c USING (id)", SCHEMA)
    assert dataset(e) == [("JOIN", "orders.id = customers.id")]
    assert direct(e) == [("id", "orders.id", "IDENTITY"), ("name", "customers.`name`", "IDENTITY")]


def test_star_over_using_lists_the_shared_column_once():
    e = one_event("INSERT INTO t SELECT * FROM orders o JOIN customers c USING (id, region)", SCHEMA)
    assert [f.name for f in e.target.columns] == ["id", "cust", "amount", "status", "region", "name", "level"]
    assert dataset(e) == [("JOIN", "orders.id = customers.id"), ("JOIN", "orders.region = customers.region")]


def test_natural_join_uses_the_common_columns():
    e = one_event("INSERT INTO t SELECT name FROM orders NATURAL JOIN customers", SCHEMA)
    assert dataset(e) == [("JOIN", "orders.id = customers.id"), ("JOIN", "orders.region = customers.region")]


def test_self_join_keeps_both_sides():
    e = one_event("INSERT INTO t SELECT a.id, b.id AS parent FROM orders a JOIN orders b ON a.cust = b.id", SCHEMA)
    assert sources(e) == ["db.orders"]
    assert direct(e) == [("id", "orders.id", "IDENTITY"), ("parent", "orders.id", "IDENTITY")]
    assert dataset(e) == [("JOIN", "orders.cust = orders.id")]


@pytest.mark.parametrize("dialect", ["bigquery", "postgres", "snowflake", "tsql", "doris", "spark"])
def test_parenthesised_nested_joins_keep_every_table(dialect):
    """``FROM (((t1 LEFT JOIN t2 ON …) LEFT JOIN t3 ON …) LEFT JOIN t4 ON …)``: sqlglot nests the outer
    joins on the parentheses around the inner ones; every table is a source, every ON a JOIN."""
    e = one_event(
        "INSERT INTO db.o SELECT t1.a, t2.b, t3.c, t4.d FROM (((db.t1 LEFT JOIN db.t2 ON t1.id = t2.id) "
        "LEFT JOIN db.t3 ON t1.id = t3.id) LEFT JOIN db.t4 ON t1.id = t4.id)",
        dialect=dialect,
    )
    assert [s.lower() for s in sources(e)] == ["db.t1", "db.t2", "db.t3", "db.t4"]
    assert [(t.lower(), x.lower(), k) for t, x, k in direct(e)] == [
        ("a", "t1.a", "IDENTITY"),
        ("b", "t2.b", "IDENTITY"),
        ("c", "t3.c", "IDENTITY"),
        ("d", "t4.d", "IDENTITY"),
    ]
    assert [(k, x.lower()) for k, x in dataset(e)] == [
        ("JOIN", "t1.id = t2.id"),
        ("JOIN", "t1.id = t3.id"),
        ("JOIN", "t1.id = t4.id"),
    ]
    assert [d.code for d in e.diagnostics] == ["target_bound_by_name"]


def test_star_over_an_unknown_left_side_takes_a_using_column_from_the_left():
    """``SELECT * FROM a LEFT JOIN b USING (k)`` with ``a``'s columns unknown: ``k`` is ``a.k`` (the
    left side's after a LEFT join), even though only ``b``'s columns can be listed."""
    e = one_event("INSERT INTO t SELECT * FROM other o LEFT JOIN customers c USING (id)", SCHEMA)
    ids = [d for d in direct(e) if d[0] == "id"]
    assert ids == [("id", "other.id", "IDENTITY")]


def test_star_over_a_join_using_of_two_unknown_sides_keeps_the_using_columns():
    """``SELECT * FROM a LEFT JOIN (SELECT * EXCEPT (x) FROM b) USING (k1, k2)`` with neither side's
    columns known: the USING columns are outputs all the same (the left side's), the rest stays
    unknown (BigQuery, bigquery-etl's ``clients_last_seen_joined_v1``)."""
    e = one_event(
        "CREATE OR REPLACE TABLE d.j AS SELECT * FROM d.a AS m "
        "LEFT JOIN (SELECT * EXCEPT (x) FROM d.b WHERE k1 = 1) AS e USING (k1, k2)",
        dialect="bigquery",
        db=None,
    )
    assert direct(e) == [("k1", "a.k1", "IDENTITY"), ("k2", "a.k2", "IDENTITY")]
    assert e.status.value == "PARTIAL"
    assert set(codes(e)) == {"star_unknown_columns"}
