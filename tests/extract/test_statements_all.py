"""``--statements all``: SELECT, CREATE VIEW, UPDATE, MERGE and INSERT … VALUES make events too."""

from __future__ import annotations

from headwater.extract import RunInfo, extract_script
from headwater.extract.engine import Extractor
from headwater.extract.result import ExtractOptions
from headwater.model import Origin, SourceCommand
from tests.extract.helpers import dataset, direct, sources


def only(sql: str, dialect: str = "postgres"):
    res = extract_script(
        "CREATE TABLE t (id INT, a INT, b INT);\n" + sql, dialect=dialect, database="db", statements="all"
    )
    events = res.events
    assert len(events) == 1, [(s.kind, s.skip_reason, s.error) for s in res.statements]
    return events[0]


def test_select_writes_an_unnamed_result_named_by_the_query_id():
    ex = Extractor(options=ExtractOptions(dialect="postgres", statements="all"), database="db")
    e = ex.run(
        "SELECT o.id, SUM(o.amount) AS s FROM orders o WHERE o.status = 'x' GROUP BY o.id", RunInfo(query_id="q42")
    ).events[0]
    assert e.source_command is SourceCommand.SELECT
    assert (e.target.table.database, e.target.table.name) == ("__query_result", "q42")
    assert direct(e) == [("id", "orders.id", "IDENTITY"), ("s", "SUM(orders.amount)", "AGGREGATION")]
    assert dataset(e) == [("FILTER", "orders.status = 'x'"), ("GROUP_BY", "orders.id")]


def test_create_view_targets_the_view_and_still_registers_it():
    res = extract_script(
        "CREATE VIEW v (k, total) AS SELECT id, SUM(amount) FROM orders GROUP BY id; INSERT INTO x SELECT total FROM v",
        database="db",
        statements="all",
    )
    view, insert = res.events
    assert view.source_command is SourceCommand.CREATE_VIEW
    assert view.target.table.name == "v"
    assert direct(view) == [("k", "orders.id", "IDENTITY"), ("total", "SUM(orders.amount)", "AGGREGATION")]
    assert direct(insert) == [("total", "SUM(orders.amount)", "AGGREGATION")]
    assert [t.name for t in insert.via] == ["v"]


def test_update_set_with_from_and_where():
    e = only("UPDATE t SET a = s.x + 1, b = 2 FROM s WHERE t.id = s.id AND s.flag")
    assert e.source_command is SourceCommand.UPDATE
    assert sources(e) == ["db.t", "db.s"]
    assert [f.name for f in e.target.columns] == ["a", "b"]
    assert direct(e) == [("a", "s.x + 1", "TRANSFORMATION"), ("b", "2", "TRANSFORMATION")]
    assert e.direct[1].origin is Origin.CONSTANT
    assert dataset(e) == [("FILTER", "t.id = s.id"), ("FILTER", "s.flag")]


def test_update_reading_its_own_columns():
    e = only("UPDATE t SET a = a * 2 WHERE b > 0", dialect="mysql")
    assert direct(e) == [("a", "t.a * 2", "TRANSFORMATION")]
    assert dataset(e) == [("FILTER", "t.b > 0")]


def test_merge_branches_on_as_join():
    e = only(
        "MERGE INTO t USING s ON t.id = s.id WHEN MATCHED AND s.del THEN DELETE "
        "WHEN MATCHED AND s.x > 0 THEN UPDATE SET a = s.x "
        "WHEN NOT MATCHED THEN INSERT (id, a) VALUES (s.id, s.x * 2)",
        dialect="snowflake",
    )
    assert e.source_command is SourceCommand.MERGE
    assert [(d.target_column, d.expression, d.branch) for d in e.direct] == [
        ("A", "S.X", 0),
        ("A", "S.X * 2", 1),
        ("ID", "S.ID", 0),
    ]
    assert dataset(e) == [("JOIN", "T.ID = S.ID"), ("FILTER", "S.X > 0")]


def test_insert_values_have_constant_origin():
    e = only("INSERT INTO t (id, a) VALUES (1, 2), (3, 4)")
    assert e.source_command is SourceCommand.INSERT_VALUES
    assert e.sources == ()
    assert [(d.target_column, d.expression, d.origin) for d in e.direct] == [
        ("id", "1", Origin.CONSTANT),
        ("id", "3", Origin.CONSTANT),
        ("a", "2", Origin.CONSTANT),
        ("a", "4", Origin.CONSTANT),
    ]


def test_doris_rules_stay_the_default():
    res = extract_script("SELECT a FROM s; UPDATE s SET a = 1; INSERT INTO s VALUES (1)", database="db")
    assert res.events == []
