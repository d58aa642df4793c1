"""Target binding, binding without a schema, identifier case rules, and name errors."""

from __future__ import annotations

from headwater.model import Severity, Status
from tests.extract.helpers import codes, cols, direct, one_event, sources

SCHEMA = {"db.orders": ["id", "cust", "amount"], "db.customers": ["id", "name"]}


# ---------------------------------------------------------------- target binding


def test_explicit_column_list_binds_by_position():
    e = one_event("INSERT INTO t (a, b) SELECT id, amount FROM orders", SCHEMA)
    assert direct(e) == [("a", "orders.id", "IDENTITY"), ("b", "orders.amount", "IDENTITY")]
    assert e.diagnostics == ()


def test_known_target_binds_by_position_not_by_name():
    e = one_event("CREATE TABLE t2 (x INT, y INT); INSERT INTO t2 SELECT id AS y, amount AS x FROM orders", SCHEMA)
    assert direct(e) == [("x", "orders.id", "IDENTITY"), ("y", "orders.amount", "IDENTITY")]
    assert [(f.name, f.type) for f in e.target.columns] == [("x", "INT"), ("y", "INT")]


def test_unknown_target_binds_by_output_names_with_an_info_note():
    e = one_event("INSERT INTO t SELECT id, amount AS amt FROM orders", SCHEMA)
    assert [f.name for f in e.target.columns] == ["id", "amt"]
    assert e.status is Status.COMPLETE
    assert [(d.code, d.severity) for d in e.diagnostics] == [("target_bound_by_name", Severity.INFO)]


def test_column_count_mismatch_is_an_error():
    e = one_event("CREATE TABLE t2 (x INT, y INT, z INT); INSERT INTO t2 SELECT id, amount FROM orders", SCHEMA)
    assert codes(e) == ["column_count_mismatch"]
    assert e.diagnostics[0].severity is Severity.ERROR
    assert e.status is Status.PARTIAL


def test_ctas_takes_the_select_names_and_registers_the_table():
    from headwater.extract import extract_script
    from tests.extract.helpers import catalog_of

    res = extract_script(
        "CREATE TABLE ct AS SELECT id, amount * 2 AS dbl FROM orders; INSERT INTO t SELECT * FROM ct",
        catalog=catalog_of(SCHEMA),
        database="db",
    )
    ctas, insert = res.events
    assert ctas.source_command.value == "CreateTableCommand"
    assert [f.name for f in ctas.target.columns] == ["id", "dbl"]
    assert direct(insert) == [("id", "ct.id", "IDENTITY"), ("dbl", "ct.dbl", "IDENTITY")]


def test_insert_overwrite_with_partition():
    e = one_event("INSERT OVERWRITE TABLE t PARTITION (dt='2024') SELECT id FROM orders", SCHEMA, dialect="hive")
    assert e.source_command.value == "InsertOverwriteTableCommand"
    assert direct(e) == [("id", "orders.id", "IDENTITY"), ("dt", "'2024'", "TRANSFORMATION")]
    assert e.direct_for("dt")[0].origin.value == "CONSTANT"


def test_static_and_dynamic_partitions_bind_after_the_other_columns():
    e = one_event(
        "CREATE TABLE t (a INT, b INT) PARTITIONED BY (dt STRING, hr STRING);"
        "INSERT OVERWRITE TABLE t PARTITION (dt = '2024', hr) SELECT id, amount, cust FROM orders",
        SCHEMA,
        dialect="hive",
    )
    assert [f.name for f in e.target.columns] == ["a", "b", "hr", "dt"]
    assert direct(e) == [
        ("a", "orders.id", "IDENTITY"),
        ("b", "orders.amount", "IDENTITY"),
        ("hr", "orders.cust", "IDENTITY"),
        ("dt", "'2024'", "TRANSFORMATION"),
    ]
    assert e.status is Status.COMPLETE


def test_doris_partition_clause_names_partitions_not_columns():
    e = one_event(
        "CREATE TABLE t2 (x INT, y INT); INSERT INTO t2 PARTITION (p1, p2) SELECT id, amount FROM orders", SCHEMA
    )
    assert direct(e) == [("x", "orders.id", "IDENTITY"), ("y", "orders.amount", "IDENTITY")]
    assert e.diagnostics == ()


# ---------------------------------------------------------------- without a schema


def test_no_schema_single_table_is_complete():
    e = one_event("INSERT INTO t SELECT id, amount FROM orders WHERE status = 'x'")
    assert e.status is Status.COMPLETE
    assert direct(e) == [("id", "orders.id", "IDENTITY"), ("amount", "orders.amount", "IDENTITY")]


def test_no_schema_qualified_columns_are_certain():
    e = one_event("INSERT INTO t SELECT o.id, c.name FROM orders o JOIN customers c ON o.cust = c.id")
    assert e.status is Status.COMPLETE
    assert sources(e) == ["db.orders", "db.customers"]


def test_no_schema_unqualified_column_over_two_tables_is_partial_and_says_why():
    e = one_event("INSERT INTO t SELECT o.id, amount FROM orders o JOIN customers c ON o.cust = c.id")
    assert e.status is Status.PARTIAL
    assert direct(e)[0] == ("id", "orders.id", "IDENTITY")
    d = e.diagnostics[0]
    assert d.code == "ambiguous_column"
    assert "amount" in d.message and "db.orders, db.customers" in d.message and "schema" in d.message
    assert (d.line, d.column) == (1, 28)
    assert e.direct_for("amount")[0].sources == ()


def test_known_table_wins_over_unknown_one_for_an_unqualified_column():
    """The statement succeeded, so the unknown table cannot also have the column. (The schema covers
    database ``db`` and does not list ``x``: an unknown table, not a mistake: an INFO, and the event,
    whose every column is resolved, is COMPLETE — issue 34, defect 8.)"""
    e = one_event(
        "INSERT INTO t SELECT name, x.k FROM customers JOIN x ON x.k = customers.id", {"db.customers": ["id", "name"]}
    )
    assert e.status is Status.COMPLETE
    assert [(d.code, d.severity.value) for d in e.diagnostics if d.code == "unknown_table"] == [
        ("unknown_table", "INFO")
    ]
    assert direct(e)[0] == ("name", "customers.`name`", "IDENTITY")


def test_no_schema_star_is_unavailable():
    e = one_event("INSERT INTO t SELECT * FROM orders")
    assert e.status is Status.UNAVAILABLE
    assert sources(e) == ["db.orders"]
    assert "star_unknown_columns" in codes(e)


def test_correlated_column_without_schema_binds_to_the_inner_table():
    e = one_event("INSERT INTO t SELECT id FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k AND flag = 1)")
    assert e.status is Status.COMPLETE
    assert ("FILTER", "flag = 1") not in [(i.type.value, i.expression) for i in e.dataset_indirect]
    assert ("FILTER", "b.flag = 1") in [(i.type.value, i.expression) for i in e.dataset_indirect]


# ---------------------------------------------------------------- errors in names


def test_unknown_column_in_a_known_table():
    e = one_event("INSERT INTO t SELECT nope, id FROM orders", SCHEMA)
    assert e.status is Status.PARTIAL
    assert [(d.code, d.line, d.column) for d in e.diagnostics if d.severity is Severity.ERROR] == [
        ("unknown_column", 1, 22)
    ]
    assert direct(e)[1] == ("id", "orders.id", "IDENTITY")


def test_unknown_qualifier():
    e = one_event("INSERT INTO t SELECT z.id FROM orders", SCHEMA)
    assert e.status is Status.UNAVAILABLE
    assert codes(e)[0] == "unknown_qualifier"


def test_ambiguous_column_between_known_tables():
    e = one_event("INSERT INTO t SELECT id FROM orders o JOIN customers c ON o.cust = c.id", SCHEMA)
    assert codes(e)[0] == "ambiguous_column"
    assert "db.orders, db.customers" in e.diagnostics[0].message


# ---------------------------------------------------------------- case rules


def test_doris_columns_are_case_insensitive_tables_are_not():
    e = one_event("INSERT INTO t SELECT O.ID, `Amount` FROM orders O", SCHEMA)
    assert direct(e) == [("id", "orders.id", "IDENTITY"), ("amount", "orders.amount", "IDENTITY")]
    assert e.status is Status.COMPLETE


def test_postgres_folds_unquoted_and_keeps_quoted():
    e = one_event(
        'INSERT INTO t SELECT "Name", ID FROM Customers', {"db.customers": ["id", "Name"]}, dialect="postgres"
    )
    assert e.status is Status.COMPLETE
    assert cols(e.direct[0].sources) == ["customers.Name"]
    assert cols(e.direct[1].sources) == ["customers.id"]


def test_snowflake_folds_to_upper_case():
    e = one_event("INSERT INTO t SELECT id FROM orders", {"DB.ORDERS": ["ID"]}, dialect="snowflake", db="DB")
    assert e.status is Status.COMPLETE
    assert cols(e.direct[0].sources) == ["ORDERS.ID"]


def test_session_database_and_qualified_names():
    from headwater.extract import extract_script

    res = extract_script(
        "USE shop; INSERT INTO other.t SELECT id FROM orders JOIN x.y ON orders.id = y.id", dialect="doris"
    )
    e = res.events[0]
    assert e.target.table.qualified == "other.t"
    assert sources(e) == ["shop.orders", "x.y"]
    assert e.context.database == "shop"


def test_star_over_a_quoted_mixed_case_table_keeps_the_case():
    e = one_event('INSERT INTO t SELECT * FROM "MixedCase" m', {"db.MixedCase": ["Id", "name"]}, dialect="postgres")
    assert e.status is Status.COMPLETE
    assert [cols(d.sources) for d in e.direct] == [["MixedCase.Id"], ["MixedCase.name"]]
