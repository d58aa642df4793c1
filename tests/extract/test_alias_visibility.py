"""Issue 34, defects 3 and 5: select-list aliases are read where, and as, each dialect reads them.

A name that is a select alias in GROUP BY / HAVING / QUALIFY / ORDER BY / WHERE / the later select
items is the alias's expression where the dialect lets the alias be seen there and win, the column
where the dialect prefers the column (or does not see aliases there) — never a column made up for a
table whose columns are unknown. ``aliases.py`` holds the rules; docs/extraction.md their table.
"""

from __future__ import annotations

import pytest

from headwater.extract.aliases import RULES
from headwater.model import Status
from tests.extract.helpers import codes, cols, dataset, direct, one_event

GROUP_BY_ALIAS = "INSERT INTO o SELECT DATE(ts) AS day, COUNT(*) AS n FROM t GROUP BY day"

# every dialect that lets GROUP BY see a select alias
GROUPING_DIALECTS = [d for d, r in sorted(RULES.items()) if r.group and d]


def schema(columns: list[str], dialect: str) -> dict[str, list[str]]:
    """Table ``db.t`` of ``columns``, named as the dialect folds unquoted names (Snowflake: upper case)."""
    if dialect == "snowflake":
        return {"DB.T": [c.upper() for c in columns]}
    return {"db.t": columns}


def reads(e, kind: str) -> list[list[str]]:
    """The columns each dataset-level entry of ``kind`` reads (``table.column``, lower case)."""
    return [[c.lower() for c in cols(i.sources)] for i in e.dataset_indirect if i.type.value == kind]


@pytest.mark.parametrize("dialect", GROUPING_DIALECTS)
def test_group_by_an_alias_over_a_table_of_unknown_columns_is_the_alias(dialect):
    """The table's columns are unknown: ``day`` is the alias, not a column ``t.day`` made up."""
    e = one_event(GROUP_BY_ALIAS, dialect=dialect)
    assert reads(e, "GROUP_BY") == [["t.ts"]], dataset(e)
    assert e.status is Status.COMPLETE


@pytest.mark.parametrize("dialect", ["trino", "hive", "tsql"])
def test_group_by_a_name_where_the_dialect_sees_no_alias_is_the_column(dialect):
    """Trino, Hive and T-SQL do not let GROUP BY see select aliases: ``day`` is a column of ``t``."""
    e = one_event(GROUP_BY_ALIAS, dialect=dialect)
    assert reads(e, "GROUP_BY") == [["t.day"]]


@pytest.mark.parametrize("dialect", ["bigquery", "postgres", "snowflake", "databricks", "duckdb", "mysql"])
def test_group_by_an_alias_that_reads_its_own_name(dialect):
    """``DATE(day) AS day … GROUP BY day``: the alias reads a column ``day``, so that column exists;
    either reading groups by ``t.day`` (BigQuery by the alias ``DATE(t.day)``)."""
    e = one_event("INSERT INTO o SELECT DATE(day) AS day, COUNT(*) AS n FROM t GROUP BY day", dialect=dialect)
    keys = [x.lower().replace("to_date", "date") for k, x in dataset(e) if k == "GROUP_BY"]
    assert keys == (["date(t.day)"] if dialect == "bigquery" else ["t.day"])


@pytest.mark.parametrize(
    ("dialect", "expected"),
    [
        ("bigquery", "t.a"),  # GROUP BY prefers the alias
        ("clickhouse", "t.a"),
        ("postgres", "t.x"),  # GROUP BY prefers the input column
        ("mysql", "t.x"),
        ("doris", "t.x"),
        ("snowflake", "t.x"),
        ("databricks", "t.x"),
        ("duckdb", "t.x"),
        ("sqlite", "t.x"),
        ("redshift", "t.x"),
    ],
)
def test_group_by_a_name_that_is_both_an_alias_and_a_known_column(dialect, expected):
    e = one_event("INSERT INTO o SELECT a AS x, COUNT(*) AS n FROM t GROUP BY x", schema(["a", "x"], dialect), dialect)
    assert [x.lower() for k, x in dataset(e) if k == "GROUP_BY"] == [expected]


@pytest.mark.parametrize("dialect", ["bigquery", "clickhouse"])
def test_an_alias_named_like_a_column_of_two_joined_tables_is_not_ambiguous_where_the_alias_wins(dialect):
    e = one_event(
        "INSERT INTO o SELECT COALESCE(a.d, b.d) AS d, COUNT(*) AS n FROM a JOIN b ON a.k = b.k GROUP BY d",
        {"db.a": ["k", "d"], "db.b": ["k", "d"]},
        dialect,
    )
    assert "ambiguous_column" not in codes(e)
    assert [x.lower() for k, x in dataset(e) if k == "GROUP_BY"] == ["coalesce(a.d, b.d)"]
    assert e.status is Status.COMPLETE


def test_an_alias_named_like_a_column_of_two_joined_tables_is_ambiguous_where_the_column_wins():
    """PostgreSQL's GROUP BY prefers the input column, which two tables have: the database refuses it too."""
    e = one_event(
        "INSERT INTO o SELECT COALESCE(a.d, b.d) AS d, COUNT(*) AS n FROM a JOIN b ON a.k = b.k GROUP BY d",
        {"db.a": ["k", "d"], "db.b": ["k", "d"]},
        "postgres",
    )
    assert "ambiguous_column" in codes(e)


HAVING = "INSERT INTO o SELECT a, COUNT(*) AS x FROM t GROUP BY a HAVING x > 1"


@pytest.mark.parametrize(
    ("dialect", "expected"),
    [
        ("bigquery", "count(*) > 1"),  # HAVING sees the alias first
        ("doris", "count(*) > 1"),
        ("mysql", "count(*) > 1"),  # x is not grouped: the alias (MariaDB checked)
        ("duckdb", "count(*) > 1"),
        ("databricks", "count(*) > 1"),
        ("snowflake", "t.x > 1"),  # the column wins
        ("sqlite", "t.x > 1"),  # (checked on SQLite)
        ("postgres", "t.x > 1"),  # HAVING sees no alias at all
        ("trino", "t.x > 1"),
    ],
)
def test_having_reads_an_alias_or_the_column_as_the_dialect_does(dialect, expected):
    e = one_event(HAVING, schema(["a", "x"], dialect), dialect)
    assert [x.lower() for k, x in dataset(e) if k == "FILTER"] == [expected]


@pytest.mark.parametrize("dialect", ["mysql", "duckdb", "databricks"])
def test_having_a_grouped_name_is_the_column(dialect):
    """MySQL, DuckDB and Spark: a name HAVING groups by is the grouped column, not the alias."""
    e = one_event(
        "INSERT INTO o SELECT COUNT(*) AS x FROM t GROUP BY x HAVING x > 1", {"db.t": ["a", "x"]}, dialect=dialect
    )
    assert [x.lower() for k, x in dataset(e) if k == "FILTER"] == ["t.x > 1"]


@pytest.mark.parametrize(("dialect", "expected"), [("postgres", "t.x + 1"), ("mysql", "(-t.a) + 1")])
def test_order_by_an_alias_inside_an_expression(dialect, expected):
    """PostgreSQL sees an output alias in ORDER BY only as the bare key; MySQL in expressions too."""
    e = one_event("INSERT INTO o SELECT -a AS x FROM t ORDER BY x + 1", {"db.t": ["a", "x"]}, dialect=dialect)
    assert [x.lower() for k, x in dataset(e) if k == "SORT"] == [expected]


@pytest.mark.parametrize("dialect", ["postgres", "mysql", "bigquery", "snowflake", "trino", "tsql", "oracle"])
def test_order_by_a_bare_alias_wins_over_the_column(dialect):
    e = one_event("INSERT INTO o SELECT -a AS x FROM t ORDER BY x", {"db.t": ["a", "x"]}, dialect=dialect)
    assert [x.lower() for k, x in dataset(e) if k == "SORT"] == ["-t.a"]


@pytest.mark.parametrize("dialect", ["bigquery", "snowflake", "databricks", "duckdb", "teradata", "clickhouse"])
def test_qualify_reads_an_alias(dialect):
    e = one_event(
        "INSERT INTO o SELECT a, ROW_NUMBER() OVER (PARTITION BY a ORDER BY b) AS rn FROM t QUALIFY rn = 1",
        dialect=dialect,
    )
    filters = [x.lower() for k, x in dataset(e) if k == "FILTER"]
    assert filters == ["row_number() over (partition by t.a order by t.b) = 1"], filters
    assert e.status is Status.COMPLETE


WHERE_ALIAS = "INSERT INTO o SELECT a + 1 AS y FROM t WHERE y > 2"


@pytest.mark.parametrize("dialect", ["snowflake", "duckdb", "redshift", "sqlite", "clickhouse", "teradata"])
@pytest.mark.parametrize("known", [False, True])
def test_where_reads_an_alias_where_the_dialect_allows_it(dialect, known):
    e = one_event(WHERE_ALIAS, schema(["a"], dialect) if known else None, dialect=dialect)
    assert [x.lower() for k, x in dataset(e) if k == "FILTER"] == ["(t.a + 1) > 2"]
    assert e.status is Status.COMPLETE


@pytest.mark.parametrize(("dialect", "expected"), [("snowflake", "t.y > 2"), ("clickhouse", "(t.a + 1) > 2")])
def test_where_a_known_column_wins_over_the_alias_except_in_clickhouse(dialect, expected):
    e = one_event(WHERE_ALIAS, schema(["a", "y"], dialect), dialect=dialect)
    assert [x.lower() for k, x in dataset(e) if k == "FILTER"] == [expected]


@pytest.mark.parametrize("dialect", ["postgres", "mysql", "bigquery", "databricks", "trino"])
def test_where_reads_no_alias_where_the_dialect_forbids_it(dialect):
    e = one_event(WHERE_ALIAS, {"db.t": ["a"]}, dialect=dialect)
    assert "unknown_column" in codes(e)


def test_snowflake_join_condition_reads_an_alias():
    e = one_event(
        "INSERT INTO o SELECT a.id AS user_id, b.v FROM a JOIN b ON user_id = b.id",
        {"db.a": ["id"], "db.b": ["id", "v"]},
        dialect="snowflake",
    )
    assert [x.lower() for k, x in dataset(e) if k == "JOIN"] == ["a.id = b.id"]


# ---------------------------------------------------------------- lateral column aliases (defect 5)

LATERAL = "INSERT INTO o SELECT firstname AS user_name, CONCAT(user_name, lastname) AS id FROM person.person"


@pytest.mark.parametrize(
    "dialect", ["snowflake", "redshift", "databricks", "spark", "duckdb", "teradata", "clickhouse", "generic"]
)
@pytest.mark.parametrize("tables", [None, {"person.person": ["firstname", "lastname"]}])
def test_a_lateral_alias_is_its_expression_where_the_dialect_allows_it(dialect, tables):
    if tables and dialect == "snowflake":
        tables = {"PERSON.PERSON": ["FIRSTNAME", "LASTNAME"]}
    e = one_event(LATERAL, tables, dialect=dialect)
    assert [sorted(c.lower() for c in cols(d.sources)) for d in e.direct] == [
        ["person.firstname"],
        ["person.firstname", "person.lastname"],
    ]
    assert e.status is Status.COMPLETE


@pytest.mark.parametrize("dialect", ["snowflake", "databricks", "duckdb"])
def test_a_lateral_alias_that_reads_its_own_name_is_the_column(dialect):
    """``UPPER(x) AS x, x || 'a'``: the alias reads a column ``x``, which then exists and wins."""
    e = one_event("INSERT INTO o SELECT UPPER(x) AS x, x || 'a' AS y FROM t", dialect=dialect)
    assert [x.lower() for _, x, _ in direct(e)] == ["upper(t.x)", "t.x || 'a'"]


def test_clickhouse_a_lateral_alias_wins_over_a_known_column():
    e = one_event("INSERT INTO o SELECT a AS x, x AS y FROM t", {"db.t": ["a", "x"]}, dialect="clickhouse")
    assert [x.lower() for _, x, _ in direct(e)] == ["t.a", "t.a"]


@pytest.mark.parametrize("dialect", ["bigquery", "postgres", "mysql", "tsql", "trino", "oracle"])
def test_where_lateral_aliases_are_forbidden_a_column_of_that_name_is_the_column(dialect):
    e = one_event(LATERAL, {"person.person": ["firstname", "lastname", "user_name"]}, dialect=dialect)
    assert [sorted(c.lower() for c in cols(d.sources)) for d in e.direct] == [
        ["person.firstname"],
        ["person.lastname", "person.user_name"],
    ]
    assert "lateral_alias_unsupported" not in codes(e)


@pytest.mark.parametrize("dialect", ["bigquery", "postgres", "mysql", "tsql"])
def test_an_earlier_output_name_that_two_unknown_tables_may_have_is_no_lateral_alias_error(dialect):
    """``activity_date`` is an output name and an unqualified column of one of two tables whose
    columns are unknown: an ambiguity (WARNING), not a lateral alias the dialect forbids (ERROR)."""
    e = one_event(
        "INSERT INTO o SELECT activity_date, DATE(activity_date) AS d FROM a JOIN b ON a.k = b.k", dialect=dialect
    )
    assert "lateral_alias_unsupported" not in codes(e)
    assert "ambiguous_column" in codes(e)
    assert all(d.severity.value != "ERROR" for d in e.diagnostics)


@pytest.mark.parametrize("dialect", ["bigquery", "postgres", "mysql"])
def test_a_subquerys_own_unknown_column_is_no_lateral_alias_of_the_outer_select(dialect):
    """``k`` inside the subquery is in no table (an ``unknown_column``); it is not the outer select's
    alias ``k`` used laterally: no subquery sees the select list it sits in."""
    e = one_event(
        "INSERT INTO o SELECT t.k2 AS k, (SELECT k FROM s) AS m FROM t", {"db.t": ["k2"], "db.s": ["z"]}, dialect
    )
    assert "unknown_column" in codes(e)
    assert "lateral_alias_unsupported" not in codes(e)


@pytest.mark.parametrize(("item", "expected"), [("p.k", "p.k"), ("p.x AS k", "p.x")])
@pytest.mark.parametrize("dialect", ["mysql", "doris", "starrocks"])
def test_mysql_group_by_a_name_two_tables_have_is_the_select_item(dialect, item, expected):
    """MySQL's GROUP BY looks in FROM first, and where the name is ambiguous there, in the select list
    (MariaDB checked: no error); PostgreSQL refuses it (``ambiguous_column`` above)."""
    e = one_event(
        f"INSERT INTO o SELECT {item}, COUNT(*) AS n FROM p JOIN q ON p.k = q.k GROUP BY k",
        {"db.p": ["k", "x"], "db.q": ["k", "x"]},
        dialect,
    )
    assert [x for k, x in dataset(e) if k == "GROUP_BY"] == [expected]
    assert "ambiguous_column" not in codes(e)


@pytest.mark.parametrize("known", [False, True])
def test_snowflake_a_lateral_alias_read_through_a_variant_path(known):
    """``parse_ip(…) AS parsed_server_ip, … parsed_server_ip:error``: a field of the earlier alias's value."""
    e = one_event(
        "INSERT INTO o SELECT parse_ip(st.ip, 'INET', 1) AS parsed_server_ip, "
        "CASE WHEN parsed_server_ip:error IS NULL THEN 1 END AS b FROM t st",
        {"DB.T": ["IP"]} if known else None,
        dialect="snowflake",
    )
    assert "unknown_column" not in codes(e)
    assert [[c.lower() for c in cols(i.sources)] for i in e.output_indirect] == [["t.ip"]]
    assert e.status is Status.COMPLETE


@pytest.mark.parametrize("dialect", ["databricks", "duckdb"])
def test_a_lateral_alias_read_through_a_struct_field(dialect):
    e = one_event("INSERT INTO o SELECT named_struct('a', t.x) AS s, s.a AS y FROM t", {"db.t": ["x"]}, dialect)
    assert "unknown_qualifier" not in codes(e)
    assert [[c.lower() for c in cols(d.sources)] for d in e.direct] == [["t.x"], ["t.x"]]
