"""Issue 19 themes 2, 3 and 4: SELECT … INTO, parenthesised FROM, subqueries in INSERT … VALUES."""

from __future__ import annotations

import pytest

from headwater.extract import extract_script
from headwater.model import SourceCommand
from tests.extract.helpers import dataset, direct, one_event, sources


@pytest.mark.parametrize("dialect", ["postgres", "tsql", "redshift"])
def test_select_into_is_a_ctas(dialect):
    e = one_event("SELECT id, amount * 2 AS doubled INTO doubled_orders FROM orders WHERE amount > 0", dialect=dialect)
    assert e.source_command is SourceCommand.CREATE_TABLE
    assert e.target.table.qualified == "db.doubled_orders"
    assert sources(e) == ["db.orders"]
    assert direct(e) == [("id", "orders.id", "IDENTITY"), ("doubled", "orders.amount * 2", "TRANSFORMATION")]
    assert dataset(e) == [("FILTER", "orders.amount > 0")]


@pytest.mark.parametrize("dialect", ["postgres", "tsql", "redshift"])
def test_select_into_registers_the_new_table_for_later_statements(dialect):
    res = extract_script(
        "SELECT o.id, c.name INTO report FROM orders o JOIN customers c ON o.cid = c.id;\n"
        "INSERT INTO final SELECT * FROM report",
        dialect=dialect,
        database="db",
    )
    first, second = res.events
    assert first.target.table.name == "report" and sources(first) == ["db.orders", "db.customers"]
    assert direct(second) == [("id", "report.id", "IDENTITY"), ("name", "report.name", "IDENTITY")]


def test_select_into_a_variable_is_still_a_select():
    res = extract_script("SELECT a INTO @x FROM s", dialect="tsql", database="db")
    assert res.events == [] and res.statements[0].kind == "select"


@pytest.mark.parametrize("dialect", ["mysql", "postgres", "tsql", "snowflake", "duckdb", "sqlite"])
def test_parenthesised_table(dialect):
    e = one_event("INSERT INTO out SELECT a FROM (t1)", dialect=dialect)
    assert [s.lower() for s in sources(e)] == ["db.t1"]
    assert [(c.lower(), x.lower()) for c, x, _ in direct(e)] == [("a", "t1.a")]
    assert "unsupported_construct" not in [d.code for d in e.diagnostics]


@pytest.mark.parametrize("dialect", ["mysql", "postgres", "tsql", "snowflake", "duckdb"])
def test_parenthesised_join(dialect):
    e = one_event("INSERT INTO out SELECT a.x, b.y FROM ((a JOIN b ON a.k = b.k))", dialect=dialect)
    assert [s.lower() for s in sources(e)] == ["db.a", "db.b"]
    assert [(c.lower(), x.lower()) for c, x, _ in direct(e)] == [("x", "a.x"), ("y", "b.y")]
    assert [(k, x.lower()) for k, x in dataset(e)] == [("JOIN", "a.k = b.k")]


@pytest.mark.parametrize("dialect", ["mysql", "postgres", "tsql"])
def test_parenthesised_join_then_a_join(dialect):
    e = one_event("INSERT INTO out SELECT a.x, c.z FROM (a JOIN b ON a.k = b.k) JOIN c ON c.k = b.k", dialect=dialect)
    assert sources(e) == ["db.a", "db.b", "db.c"]
    assert direct(e) == [("x", "a.x", "IDENTITY"), ("z", "c.z", "IDENTITY")]
    assert dataset(e) == [("JOIN", "a.k = b.k"), ("JOIN", "c.k = b.k")]


@pytest.mark.parametrize("dialect", ["mysql", "doris", "starrocks", "postgres", "snowflake", "tsql"])
def test_values_with_a_scalar_subquery_reads_its_table_under_the_doris_rules(dialect):
    e = one_event("INSERT INTO stats (top_amount, n) VALUES ((SELECT MAX(amount) FROM orders), 1)", dialect=dialect)
    assert e.source_command is SourceCommand.INSERT_INTO
    assert [s.lower() for s in sources(e)] == ["db.orders"]
    assert [(c.lower(), x.lower(), k) for c, x, k in direct(e)] == [
        ("top_amount", "max(orders.amount)", "AGGREGATION"),
        ("n", "1", "TRANSFORMATION"),
    ]


@pytest.mark.parametrize("dialect", ["mysql", "doris", "postgres"])
def test_values_with_two_subqueries_and_a_filter(dialect):
    e = one_event(
        "INSERT INTO stats (lo, hi) VALUES ((SELECT MIN(v) FROM a WHERE a.ok = 1), (SELECT MAX(w) FROM b))",
        dialect=dialect,
    )
    assert sources(e) == ["db.a", "db.b"]
    assert direct(e) == [("lo", "MIN(a.v)", "AGGREGATION"), ("hi", "MAX(b.w)", "AGGREGATION")]
    assert dataset(e) == [("FILTER", "a.ok = 1")]


@pytest.mark.parametrize("dialect", ["mysql", "doris"])
def test_plain_values_stay_skipped(dialect):
    res = extract_script("INSERT INTO stats (a, b) VALUES (1, 2)", dialect=dialect, database="db")
    assert res.events == [] and res.statements[0].skip_reason.startswith("values-insert")


def test_bigquery_external_query_reads_the_connections_tables() -> None:
    """``EXTERNAL_QUERY('connection', 'SELECT …')``: a federated query; its SQL is resolved, its tables
    named in the connection's namespace (the catalog is the connection id)."""
    from headwater.extract import extract_script
    from headwater.model import TableRef

    sql = (
        "CREATE OR REPLACE TABLE d.o AS SELECT TO_HEX(uid) AS uid, stripeCustomerId FROM EXTERNAL_QUERY("
        '"moz-fx-fxa-prod.us.fxa-rds", """SELECT uid, stripeCustomerId FROM fxa.accountCustomers WHERE x = 1""")'
    )
    (e,) = extract_script(sql, dialect="bigquery").events
    conn = "moz-fx-fxa-prod.us.fxa-rds"
    # the table keeps its case (read as MySQL, Cloud SQL's first engine, whose table names are
    # case-sensitive, as BigQuery's are); its columns are folded
    assert e.sources == (TableRef(conn, "fxa", "accountCustomers"),)
    assert [(d.target_column, [str(c) for c in d.sources]) for d in e.direct] == [
        ("uid", [f"{conn}.fxa.accountCustomers.uid"]),
        ("stripecustomerid", [f"{conn}.fxa.accountCustomers.stripecustomerid"]),
    ]
    assert [(i.type.value, i.expression) for i in e.dataset_indirect] == [("FILTER", "accountCustomers.x = 1")]
    assert e.status.value == "COMPLETE"


def test_an_external_query_that_is_not_read_is_reported() -> None:
    from headwater.extract import extract_script

    (e,) = extract_script(
        "CREATE TABLE d.o AS SELECT a FROM EXTERNAL_QUERY('c', 'NOT SQL AT ALL (') JOIN d.t USING (k)",
        dialect="bigquery",
    ).events
    assert [d.code for d in e.diagnostics if d.construct == "EXTERNAL_QUERY"] == ["unsupported_construct"]
