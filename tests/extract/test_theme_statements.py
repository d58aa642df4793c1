"""Issue 19 themes 10, 11 and 14: Athena/Trino UNNEST crashes, lateral column aliases, DELETE
as table-level lineage under ``--statements all``."""

from __future__ import annotations

import pytest

from headwater.extract import extract_script
from headwater.model import SourceCommand, Status
from tests.extract.helpers import codes, dataset, direct, one_event, sources


@pytest.mark.parametrize("dialect", ["athena", "trino", "presto"])
def test_unnest_with_ordinality_extracts(dialect):
    e = one_event(
        "INSERT INTO out SELECT t.id, u.x, u.n FROM t CROSS JOIN UNNEST(t.arr) WITH ORDINALITY AS u(x, n)",
        dialect=dialect,
    )
    assert [(c, [str(r) for r in d.sources]) for c, d in zip("ixn", e.direct, strict=True)] == [
        ("i", ["internal.db.t.id"]),
        ("x", ["internal.db.t.arr"]),
        ("n", ["internal.db.t.arr"]),
    ]


@pytest.mark.parametrize("dialect", ["athena", "trino"])
def test_values_cross_join_unnest_does_not_fail(dialect):
    sql = "INSERT INTO out SELECT x, n FROM (VALUES (ARRAY[1, 2])) AS v(arr) CROSS JOIN UNNEST(arr) WITH ORDINALITY AS u(x, n)"
    res = extract_script(sql, dialect=dialect, database="db", statements="all")
    assert not res.failures
    assert direct(res.events[0])[0][0] == "x"


def test_athena_renders_expressions_as_trino():
    e = one_event("INSERT INTO out SELECT CAST(a AS VARCHAR) AS s, element_at(m, 'k') AS v FROM t", dialect="athena")
    assert [x for _, x, _ in direct(e)] == ["CAST(t.a AS VARCHAR)", "ELEMENT_AT(t.m, 'k')"]


@pytest.mark.parametrize("dialect", ["snowflake", "databricks", "spark", "redshift", "duckdb"])
def test_lateral_column_alias(dialect):
    e = one_event("INSERT INTO out SELECT a AS x, x || b AS y FROM t", dialect=dialect)
    assert [(d.target_column.lower(), sorted(str(c).lower() for c in d.sources)) for d in e.direct] == [
        ("x", ["internal.db.t.a"]),
        ("y", ["internal.db.t.a", "internal.db.t.b"]),
    ]
    assert e.status is Status.COMPLETE


@pytest.mark.parametrize("dialect", ["databricks", "redshift", "duckdb"])
def test_lateral_alias_chain_and_a_known_column_winning(dialect):
    e = one_event(
        "INSERT INTO out SELECT price * qty AS gross, gross - discount AS net FROM lines",
        {"db.lines": ["price", "qty", "discount"]},
        dialect=dialect,
    )
    assert [x.lower() for _, x, _ in direct(e)] == [
        "lines.price * lines.qty",
        "(lines.price * lines.qty) - lines.discount",
    ]
    e = one_event("INSERT INTO out SELECT a AS x, x AS y FROM t", {"db.t": ["a", "x"]}, dialect=dialect)
    assert [x.lower() for _, x, _ in direct(e)] == ["t.a", "t.x"]


@pytest.mark.parametrize("dialect", ["bigquery", "postgres", "mysql", "tsql"])
def test_lateral_alias_is_reported_where_the_dialect_refuses_it(dialect):
    e = one_event("INSERT INTO out SELECT a AS x, x + 1 AS y FROM t", {"db.t": ["a"]}, dialect=dialect)
    assert "lateral_alias_unsupported" in codes(e)
    assert e.direct[1].sources == ()


@pytest.mark.parametrize("dialect", ["postgres", "redshift", "snowflake", "duckdb"])
def test_delete_using_is_table_lineage_with_filters(dialect):
    res = extract_script(
        "DELETE FROM t USING s WHERE t.k = s.k AND s.gone", dialect=dialect, database="db", statements="all"
    )
    (e,) = res.events
    assert e.source_command is SourceCommand.DELETE
    assert [x.lower() for x in sources(e)] == ["db.t", "db.s"]
    assert e.target.table.name.lower() == "t" and e.target.columns == () and e.direct == ()
    assert [(k, x.lower()) for k, x in dataset(e)] == [("FILTER", "t.k = s.k"), ("FILTER", "s.gone")]
    assert e.status is Status.COMPLETE


@pytest.mark.parametrize("dialect", ["mysql", "postgres", "snowflake", "tsql", "doris"])
def test_delete_in_subquery_and_plain_where(dialect):
    (e,) = extract_script(
        "DELETE FROM t WHERE k IN (SELECT k FROM s)", dialect=dialect, database="db", statements="all"
    ).events
    assert [x.lower() for x in sources(e)] == ["db.t", "db.s"]
    assert [k for k, _ in dataset(e)] == ["FILTER"]
    (e,) = extract_script("DELETE FROM t", dialect=dialect, database="db", statements="all").events
    assert sources(e) == []


def test_delete_makes_no_event_under_the_doris_rules():
    res = extract_script("DELETE FROM t WHERE k IN (SELECT k FROM s)", dialect="doris", database="db")
    assert res.events == [] and res.statements[0].skip_reason.startswith("DELETE")


@pytest.mark.parametrize(
    ("dialect", "clone"), [("snowflake", "CLONE"), ("bigquery", "CLONE"), ("databricks", "SHALLOW CLONE")]
)
def test_create_table_clone_copies_the_rows(dialect, clone):
    res = extract_script(
        f"CREATE TABLE a (x INT, y INT);\nCREATE TABLE b {clone} a;\nINSERT INTO c SELECT * FROM b",
        dialect=dialect,
        database="db",
    )
    created, copied = res.events
    assert created.source_command is SourceCommand.CREATE_TABLE
    assert [(s.lower(), t.lower()) for s, t in [(sources(created)[0], created.target.table.qualified)]] == [
        ("db.a", "db.b")
    ]
    assert [(c.lower(), x.lower(), k) for c, x, k in direct(created)] == [
        ("x", "a.x", "IDENTITY"),
        ("y", "a.y", "IDENTITY"),
    ]
    assert [c.lower() for c, _, _ in direct(copied)] == ["x", "y"]  # b's columns are known


def test_clone_of_an_unknown_table_is_table_lineage():
    (e,) = extract_script(
        "CREATE OR REPLACE TABLE b CLONE db2.a AT (TIMESTAMP => '2024-01-01'::timestamp)",
        dialect="snowflake",
        database="db",
    ).events
    assert [s.lower() for s in sources(e)] == ["db2.a"] and e.direct == ()


@pytest.mark.parametrize("dialect", ["mysql", "doris", "snowflake"])
def test_create_table_like_copies_no_rows_but_the_columns(dialect):
    res = extract_script(
        "CREATE TABLE a (x INT);\nCREATE TABLE b LIKE a;\nINSERT INTO c SELECT * FROM b", dialect=dialect, database="db"
    )
    (e,) = res.events
    assert [s.lower() for s in sources(e)] == ["db.b"]
    assert [c.lower() for c, _, _ in direct(e)] == ["x"]


def moves(sql: str, dialect: str):
    res = extract_script(sql, dialect=dialect, database="db", statements="all")
    assert not res.failures
    return [(e.source_command.value, e.target.table.name.lower(), [s.lower() for s in sources(e)]) for e in res.events]


def test_swap_with_moves_rows_both_ways_and_swaps_the_columns():
    assert moves("CREATE TABLE a (x INT); CREATE TABLE b (y INT); ALTER TABLE a SWAP WITH b", "snowflake") == [
        ("AlterTableCommand", "a", ["db.b"]),
        ("AlterTableCommand", "b", ["db.a"]),
    ]
    res = extract_script(
        "CREATE TABLE a (x INT); CREATE TABLE b (y INT); ALTER TABLE a SWAP WITH b; INSERT INTO c SELECT * FROM a",
        dialect="snowflake",
        database="db",
        statements="all",
    )
    assert [d.target_column for d in res.events[-1].direct] == ["Y"]


@pytest.mark.parametrize("dialect", ["mysql", "oracle", "doris"])
def test_exchange_partition(dialect):
    assert moves("ALTER TABLE a EXCHANGE PARTITION p1 WITH TABLE b", dialect) == [
        ("AlterTableCommand", "a", ["db.b"]),
        ("AlterTableCommand", "b", ["db.a"]),
    ]


@pytest.mark.parametrize("dialect", ["hive", "spark"])
def test_hive_exchange_partition_moves_the_partition_into_the_altered_table(dialect):
    """Hive: ``ALTER TABLE dest EXCHANGE PARTITION (…) WITH TABLE src`` moves src's partition to dest."""
    assert moves("ALTER TABLE a EXCHANGE PARTITION (ds = '2024-01-01') WITH TABLE b", dialect) == [
        ("AlterTableCommand", "a", ["db.b"]),
    ]


def test_doris_replace_with_table_swaps_unless_told_not_to():
    assert moves("ALTER TABLE a REPLACE WITH TABLE b", "doris") == [
        ("AlterTableCommand", "a", ["db.b"]),
        ("AlterTableCommand", "b", ["db.a"]),
    ]
    assert moves("ALTER TABLE a REPLACE WITH TABLE b PROPERTIES ('swap' = 'false')", "doris") == [
        ("AlterTableCommand", "a", ["db.b"])
    ]
    res = extract_script("ALTER TABLE a REPLACE WITH TABLE b", dialect="doris", database="db")
    assert res.events == []  # the Doris rules make no event for DDL
