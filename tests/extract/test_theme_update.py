"""Issue 19 theme 1: UPDATE with more than one table, in each dialect's form (``--statements all``)."""

from __future__ import annotations

import pytest

from headwater.extract import extract_script
from headwater.model import SourceCommand
from tests.extract.helpers import dataset, direct, sources


def events(sql: str, dialect: str):
    res = extract_script(sql, dialect=dialect, database="db", statements="all")
    assert not res.failures, [s.error for s in res.statements]
    return res.events


def only(sql: str, dialect: str):
    (event,) = events(sql, dialect)
    assert event.source_command is SourceCommand.UPDATE
    return event


@pytest.mark.parametrize("dialect", ["mysql", "doris", "starrocks"])
def test_mysql_join_reads_the_second_table_not_an_alias_column(dialect):
    e = only("UPDATE t1 a JOIN t2 b ON a.k = b.k SET a.v = b.v", dialect)
    assert e.target.table.qualified == "db.t1"
    assert sources(e) == ["db.t1", "db.t2"]
    assert direct(e) == [("v", "t2.v", "IDENTITY")]
    assert dataset(e) == [("JOIN", "t1.k = t2.k")]


@pytest.mark.parametrize("dialect", ["mysql", "doris"])
def test_mysql_join_three_tables_with_where(dialect):
    e = only(
        "UPDATE fact f LEFT JOIN dim1 d1 ON f.d1 = d1.id JOIN dim2 d2 ON f.d2 = d2.id "
        "SET f.label = CONCAT(d1.name, d2.name) WHERE d2.live = 1",
        dialect,
    )
    assert sources(e) == ["db.fact", "db.dim1", "db.dim2"]
    assert [(d.target_column, [str(c) for c in d.sources]) for d in e.direct] == [
        ("label", ["internal.db.dim1.name", "internal.db.dim2.name"])
    ]
    assert dataset(e) == [("JOIN", "fact.d1 = dim1.id"), ("JOIN", "fact.d2 = dim2.id"), ("FILTER", "dim2.live = 1")]


def test_mysql_comma_join_writing_two_tables_makes_one_event_each():
    first, second = events("UPDATE t1 a, t2 b SET a.v = b.w, b.z = a.q WHERE a.k = b.k", "mysql")
    assert (first.target.table.name, direct(first)) == ("t1", [("v", "t2.w", "IDENTITY")])
    assert (second.target.table.name, direct(second)) == ("t2", [("z", "t1.q", "IDENTITY")])
    assert dataset(first) == dataset(second) == [("FILTER", "t1.k = t2.k")]
    assert first.event_id != second.event_id


def test_tsql_update_alias_from_join():
    e = only("UPDATE t SET t.c = s.c FROM tab1 t JOIN tab2 s ON t.k = s.k", "tsql")
    assert e.target.table.qualified == "db.tab1"
    assert sources(e) == ["db.tab1", "db.tab2"]
    assert direct(e) == [("c", "tab2.c", "IDENTITY")]
    assert dataset(e) == [("JOIN", "tab1.k = tab2.k")]


def test_tsql_update_unqualified_set_and_where():
    e = only(
        "UPDATE t SET c = s.c, d = s.d * 2 FROM dbo_target t INNER JOIN dbo_src s ON t.id = s.id WHERE s.flag = 1",
        "tsql",
    )
    assert e.target.table.name == "dbo_target"
    assert direct(e) == [("c", "dbo_src.c", "IDENTITY"), ("d", "dbo_src.d * 2", "TRANSFORMATION")]
    assert dataset(e) == [("JOIN", "dbo_target.id = dbo_src.id"), ("FILTER", "dbo_src.flag = 1")]


def test_tsql_update_named_target_in_from_is_not_joined_twice():
    e = only("UPDATE tab1 SET tab1.v = s.v FROM tab1 JOIN tab2 s ON tab1.k = s.k", "tsql")
    assert sources(e) == ["db.tab1", "db.tab2"]
    assert direct(e) == [("v", "tab2.v", "IDENTITY")]


@pytest.mark.parametrize("dialect", ["postgres", "snowflake", "redshift"])
def test_update_from_where(dialect):
    e = only("UPDATE t SET c = s.c FROM s WHERE t.k = s.k", dialect)
    assert [x.lower() for x in sources(e)] == ["db.t", "db.s"]
    assert [(c.lower(), x.lower(), k) for c, x, k in direct(e)] == [("c", "s.c", "IDENTITY")]
    assert [(k, x.lower()) for k, x in dataset(e)] == [("FILTER", "t.k = s.k")]


@pytest.mark.parametrize("dialect", ["postgres", "snowflake", "redshift"])
def test_update_from_a_join_and_two_tables(dialect):
    e = only("UPDATE t SET c = s.c, d = u.d FROM s JOIN u ON s.j = u.j WHERE t.k = s.k", dialect)
    assert [x.lower() for x in sources(e)] == ["db.t", "db.s", "db.u"]
    assert [(c.lower(), x.lower()) for c, x, _ in direct(e)] == [("c", "s.c"), ("d", "u.d")]
    assert [(k, x.lower()) for k, x in dataset(e)] == [("JOIN", "s.j = u.j"), ("FILTER", "t.k = s.k")]


@pytest.mark.parametrize("dialect", ["mysql", "postgres", "snowflake", "tsql"])
def test_update_reads_its_target_only_where_it_reads_a_column_of_it(dialect):
    assert sources(only("UPDATE t SET c = 1", dialect)) == []
    assert [x.lower() for x in sources(only("UPDATE t SET c = 0 WHERE d < 0", dialect))] == ["db.t"]


@pytest.mark.parametrize("dialect", ["snowflake", "postgres"])
def test_merge_reads_its_target_through_on(dialect):
    (e,) = events("MERGE INTO t USING s ON t.k = s.k WHEN MATCHED THEN UPDATE SET v = s.v", dialect)
    assert [x.lower() for x in sources(e)] == ["db.t", "db.s"]


@pytest.mark.parametrize(
    ("dialect", "sql", "target"),
    [
        ("tsql", "UPDATE t SET t.c = s.c, d = s.d FROM tab1 t JOIN tab2 s ON t.k = s.k", "tab1"),
        ("mysql", "UPDATE t1 a JOIN t2 b ON a.k = b.k SET a.c = b.c, d = b.d", "t1"),
        ("postgres", "UPDATE t1 SET c = s.c, t1.d = s.d FROM t2 s WHERE t1.k = s.k", "t1"),
    ],
)
def test_qualified_and_unqualified_set_columns_of_one_table_make_one_event(dialect, sql, target):
    (e,) = events(sql, dialect)
    assert e.target.table.name == target
    assert [c for c, _, _ in direct(e)] == ["c", "d"]
