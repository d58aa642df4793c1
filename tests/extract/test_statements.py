"""Which statements make events (the guide's rules), and the query context."""

from __future__ import annotations

import pytest

from headwater.extract import Extractor, RunInfo, extract_script
from headwater.extract.context import redact
from headwater.model import SourceCommand


def kinds(sql: str, dialect: str = "doris") -> list[tuple[str, str | None, int]]:
    res = extract_script(sql, dialect=dialect, database="db")
    return [(s.kind, (s.skip_reason or "").split(":")[0] or None, len(s.events)) for s in res.statements]


def test_supported_statements_make_one_event_each():
    assert kinds(
        "INSERT INTO t SELECT a FROM s; INSERT OVERWRITE TABLE t SELECT a FROM s; CREATE TABLE c AS SELECT a FROM s"
    ) == [("insert", None, 1), ("insert", None, 1), ("ctas", None, 1)]
    res = extract_script("INSERT OVERWRITE TABLE t SELECT a FROM s; CREATE TABLE c AS SELECT a FROM s", database="db")
    assert [e.source_command for e in res.events] == [SourceCommand.INSERT_OVERWRITE, SourceCommand.CREATE_TABLE]


@pytest.mark.parametrize(
    ("sql", "rule"),
    [
        ("SELECT a FROM s", "select"),
        ("UPDATE s SET a = 1", "UPDATE"),
        ("DELETE FROM s WHERE a = 1", "DELETE"),
        ("MERGE INTO s USING r ON s.a = r.a WHEN MATCHED THEN UPDATE SET b = 1", "MERGE"),
        ("INSERT INTO t VALUES (1, 2)", "values-insert"),
        ("INSERT INTO t SELECT 1", "no-source-table"),
        ("INSERT INTO t SELECT 1 UNION ALL SELECT 2", "no-source-table"),
        ("INSERT INTO __internal_schema.audit_log SELECT a FROM s", "internal-schema"),
        ("LOAD LABEL db.l1 (DATA INFILE('hdfs://x') INTO TABLE t) WITH BROKER b", "LOAD"),
        ("CREATE TABLE x (a INT)", "ddl"),
        ("CREATE VIEW v AS SELECT a FROM s", "ddl"),
        ("DROP TABLE x", "ddl"),
        ("ALTER TABLE s ADD COLUMN z INT", "ddl"),
        ("USE db2", "use"),
    ],
)
def test_statements_that_make_no_event_say_which_rule(sql, rule):
    [(_kind, reason, n)] = kinds(sql)
    assert n == 0
    assert reason == rule


def test_ddl_changes_what_later_statements_see():
    res = extract_script(
        "CREATE TABLE s (a INT, b INT); ALTER TABLE s ADD COLUMN c INT; ALTER TABLE s DROP COLUMN a;"
        "ALTER TABLE s RENAME COLUMN b bb; INSERT INTO t SELECT * FROM s",
        database="db",
    )
    assert [f.name for f in res.events[0].target.columns] == ["bb", "c"]


def test_view_defined_in_the_script_is_expanded_with_via():
    res = extract_script(
        "CREATE TABLE s (a INT, b INT); CREATE VIEW v AS SELECT a, b * 2 AS b2 FROM s WHERE a > 0;"
        "INSERT INTO t SELECT b2 FROM v",
        database="db",
    )
    e = res.events[0]
    assert [t.qualified for t in e.sources] == ["db.s"]
    assert [t.qualified for t in e.via] == ["db.v"]
    assert [d.expression for d in e.direct] == ["s.b * 2"]
    assert [(i.type.value, i.expression) for i in e.dataset_indirect] == [("FILTER", "s.a > 0")]


def test_dropped_table_is_unknown_again():
    res = extract_script("CREATE TABLE s (a INT); DROP TABLE s; INSERT INTO t SELECT * FROM s", database="db")
    assert res.events[0].status.value == "UNAVAILABLE"


def test_context_comes_from_the_run_and_session():
    ex = Extractor(database="db")
    run = RunInfo(
        query_id="q-1",
        user="u",
        client_ip="10.0.0.1",
        timestamp="2026-01-01T00:00:00Z",
        duration_ms=42,
        external_catalog_properties={
            "type": "hms",
            "hive.metastore.uris": "thrift://h:9083",
            "s3.secret_key": "s",
            "Password": "p",
            "oss.access_key": "a",
            "api_token": "t",
            "hidden_conf": "h",
        },
    )
    e = ex.run("INSERT INTO t SELECT a FROM s", run).events[0]
    c = e.context
    assert (c.query_id, c.user, c.client_ip, c.timestamp, c.duration_ms, c.database, c.catalog, c.state) == (
        "q-1",
        "u",
        "10.0.0.1",
        "2026-01-01T00:00:00Z",
        42,
        "db",
        "internal",
        "OK",
    )
    assert dict(c.external_catalog_properties) == {"type": "hms", "hive.metastore.uris": "thrift://h:9083"}
    assert c.sql == "INSERT INTO t SELECT a FROM s"


def test_event_id_is_deterministic_from_query_id_and_target():
    a = Extractor(database="db").run("INSERT INTO t SELECT a FROM s", RunInfo(query_id="q")).events[0]
    b = Extractor(database="db").run("INSERT INTO t SELECT b FROM r", RunInfo(query_id="q")).events[0]
    c = Extractor(database="db").run("INSERT INTO u SELECT a FROM s", RunInfo(query_id="q")).events[0]
    assert a.event_id == b.event_id != c.event_id


def test_a_script_with_one_query_id_gives_each_statement_its_own():
    res = Extractor(database="db").run(
        "INSERT INTO t SELECT a FROM s; INSERT INTO t SELECT a FROM s", RunInfo(query_id="q")
    )
    assert [e.context.query_id for e in res.events] == ["q.1", "q.2"]
    assert res.events[0].event_id != res.events[1].event_id


@pytest.mark.parametrize(
    "key",
    [
        "password",
        "PASSWORD",
        "jdbc.password",
        "s3.secret_key",
        "access_key",
        "AWS_SECRET_ACCESS_KEY",
        "token",
        "oauth2.credential",
        "hidden.x",
        "ssl.keytab",
        "private_key",
        "api.key",
        "passwd",
    ],
)
def test_sensitive_properties_are_removed(key):
    assert redact({key: "x", "uri": "u"}) == {"uri": "u"}


@pytest.mark.parametrize("key", ["uri", "type", "keyspace", "hive.metastore.uris", "region", "monkey_business"])
def test_ordinary_properties_are_kept(key):
    assert redact({key: "x"}) == {key: "x"}


def test_run_info_sets_the_session_database_and_catalog():
    ex = Extractor()
    e = ex.run("INSERT INTO t SELECT a FROM s", RunInfo(database="db1", catalog="hive")).events[0]
    assert (e.target.table.catalog, e.target.table.database) == ("hive", "db1")
    assert (e.context.catalog, e.context.database) == ("hive", "db1")
    later = ex.run("INSERT INTO t SELECT a FROM s").events[0]  # the session keeps them
    assert (later.context.catalog, later.context.database) == ("hive", "db1")


@pytest.mark.parametrize("dialect", ["mysql", "sqlite"])
def test_replace_into_select_is_an_insert_with_its_own_text(dialect):
    sql = "CREATE TABLE s (b INT, c INT);\nREPLACE INTO t (a, d)\nSELECT b, c + 1 FROM s WHERE c > 0;\nREPLACE t SELECT b, c FROM s"
    res = extract_script(sql, dialect=dialect, database="db")
    first, second = res.events
    assert first.source_command == SourceCommand.INSERT_INTO
    assert first.context.sql.startswith("REPLACE INTO t (a, d)")
    assert [(d.target_column, d.expression, d.type.value) for d in first.direct] == [
        ("a", "s.b", "IDENTITY"),
        ("d", "s.c + 1", "TRANSFORMATION"),
    ]
    assert [(i.type.value, i.expression) for i in first.dataset_indirect] == [("FILTER", "s.c > 0")]
    assert [(d.target_column, d.type.value) for d in second.direct] == [("b", "IDENTITY"), ("c", "IDENTITY")]


def test_replace_into_values_makes_no_event_and_other_dialects_reject_replace():
    assert kinds("REPLACE INTO t VALUES (1, 2)", "mysql") == [("insert", "values-insert", 0)]
    [statement] = extract_script("REPLACE INTO t SELECT a FROM s", dialect="duckdb").statements
    assert statement.error is not None and statement.error.code == "parse_error"
