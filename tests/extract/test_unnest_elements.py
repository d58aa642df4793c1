"""Issue 34, defects 1, 2, 6, 7 and 9: the element of an UNNEST is a relation of its struct's fields,
``alias.*`` over it and over struct expressions, relations whose columns are partly unknown (open),
and qualified columns a stale catalog does not list."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from headwater.catalog.schema_file import schema_from_data
from headwater.cli.main import app
from headwater.extract import extract_script
from headwater.model import LineageInfo, Severity, Status
from tests.extract.helpers import codes, one_event

TYPED = {
    "d.h": {"client_id": "STRING", "metadata": "ARRAY<STRUCT<name STRING, value INT64>>"},
    "d.t": {"id": "INT64", "counts": "ARRAY<STRUCT<dau INT64, wau INT64>>"},
    "d.s": {"id": "INT64", "environment": "STRUCT<addons STRUCT<active_addons ARRAY<STRUCT<key STRING, value STRUCT<name STRING>>>>>"},
    "d.cc": {"id": "INT64", "country": "STRING"},
}  # fmt: skip


def event(sql: str, typed: dict | None = None, dialect: str = "bigquery") -> LineageInfo:
    catalog = schema_from_data(typed, dialect=dialect) if typed else None
    events = extract_script(sql, dialect=dialect, catalog=catalog, database="d", statements="all").events
    assert len(events) >= 1
    return events[-1]


def reads(e: LineageInfo) -> list[tuple[str, list[str]]]:
    return [(d.target_column, [f"{c.table.name}.{c.column}" for c in d.sources]) for d in e.direct]


def errors(e: LineageInfo) -> list[str]:
    return [d.code for d in e.diagnostics if d.severity is Severity.ERROR]


# ---------------------------------------------------------------- 1: element fields bind to the element

SQL_1 = "SELECT h.client_id, m.name, value FROM d.h AS h, UNNEST(h.metadata) AS m WHERE value IS NOT NULL"


def test_an_element_field_binds_to_the_element_with_the_schema() -> None:
    e = event(SQL_1, TYPED)
    assert reads(e) == [("client_id", ["h.client_id"]), ("name", ["h.metadata.name"]), ("value", ["h.metadata.value"])]
    assert [i.expression for i in e.dataset_indirect] == ["NOT UNNEST(h.metadata.value) IS NULL"]
    assert e.status is Status.COMPLETE and errors(e) == []


def test_an_element_field_is_never_the_outer_tables_without_a_schema() -> None:
    e = event(SQL_1)
    assert reads(e)[:2] == [("client_id", ["h.client_id"]), ("name", ["h.metadata.name"])]
    assert reads(e)[2] == ("value", [])  # h's or m's: honestly unknown, never h.value
    assert errors(e) == [] and "ambiguous_column" in codes(e)


def test_an_unaliased_unnest_exposes_its_elements_fields() -> None:
    e = event("SELECT key, value.name AS n FROM d.s, UNNEST(environment.addons.active_addons)", TYPED)
    assert reads(e) == [
        ("key", ["s.environment.addons.active_addons.key"]),
        ("n", ["s.environment.addons.active_addons.value.name"]),
    ]
    assert e.status is Status.COMPLETE


def test_a_subquery_over_an_unnest_reads_the_element() -> None:
    e = event("SELECT id, (SELECT LOGICAL_OR(eventInfo.eventAction = 'x') FROM UNNEST(hits)) AS a FROM d.s2")
    assert reads(e) == [("id", ["s2.id"]), ("a", ["s2.hits.eventinfo.eventaction"])]
    assert errors(e) == []


def test_a_scalar_array_alias_stays_the_value() -> None:
    e = event("SELECT id, tag FROM d.t0, UNNEST(tags) AS tag")
    assert [d.expression for d in e.direct] == ["t0.id", "UNNEST(t0.tags)"]
    assert e.status is Status.COMPLETE


@pytest.mark.parametrize(
    ("dialect", "sql"),
    [
        ("trino", "SELECT t.id, x.sku FROM d.t CROSS JOIN UNNEST(t.items) AS u(x)"),
        ("trino", "SELECT t.id, sku FROM d.t CROSS JOIN UNNEST(t.items) AS u(sku, qty)"),
        ("spark", "SELECT t.id, item.sku FROM d.t LATERAL VIEW explode(t.items) e AS item"),
        ("databricks", "SELECT t.id, item.sku FROM d.t LATERAL VIEW explode(t.items) e AS item"),
        ("databricks", "SELECT t.id, sku FROM d.t LATERAL VIEW inline(t.items) e AS sku, qty"),
    ],
)
def test_a_field_of_an_element_is_the_arrays_field_in_other_dialects(dialect: str, sql: str) -> None:
    e = event(sql, {"d.t": {"id": "BIGINT", "items": "ARRAY<STRUCT<sku STRING, qty INT>>"}}, dialect=dialect)
    assert reads(e) == [("id", ["t.id"]), ("sku", ["t.items.sku"])]
    assert e.status is Status.COMPLETE


# ---------------------------------------------------------------- 2: arrays of STRUCT literals, alias.*


def test_star_over_an_array_of_struct_literals_is_its_fields() -> None:
    e = event(
        'SELECT * FROM UNNEST([STRUCT("m1" AS metric, 0 AS range_min), STRUCT("m2", 1)]) '
        "UNION ALL SELECT metric, MIN(v) AS range_min FROM d.t GROUP BY metric"
    )
    assert [c.name for c in e.target.columns] == ["metric", "range_min"]
    assert "set_operation_width" not in codes(e) and errors(e) == []
    assert [(d.target_column, d.expression) for d in e.direct] == [
        ("metric", "'m1'"),
        ("metric", "t.metric"),
        ("range_min", "0"),
        ("range_min", "MIN(t.v)"),
    ]


def test_alias_star_over_an_unnest_is_the_structs_fields() -> None:
    e = event("SELECT c.* FROM d.t, UNNEST(t.counts) AS c", TYPED)
    assert reads(e) == [("dau", ["t.counts.dau"]), ("wau", ["t.counts.wau"])]
    assert e.status is Status.COMPLETE


def test_alias_star_over_an_unnest_without_schema_is_honestly_unknown() -> None:
    e = event("SELECT c.* FROM d.t, UNNEST(t.counts) AS c")
    assert [c.name for c in e.target.columns] != ["c"]
    assert e.status is not Status.COMPLETE and "star_unknown_columns" in codes(e)


def test_a_typed_array_of_structs_names_its_fields() -> None:
    e = event(
        "WITH combos AS (SELECT combos.* FROM UNNEST(ARRAY<STRUCT<ping_type STRING, os STRING>>"
        "[(NULL, NULL), ('*', NULL)]) AS combos) "
        "SELECT COALESCE(combo.ping_type, t.ping_type) AS ping_type FROM d.t CROSS JOIN combos AS combo"
    )
    assert reads(e) == [("ping_type", ["t.ping_type"])]
    assert errors(e) == []


def test_an_array_of_select_as_struct_keeps_its_fields() -> None:
    e = event(
        "WITH n AS (SELECT id, ARRAY(SELECT AS STRUCT m.name AS k, m.value * 2 AS v FROM UNNEST(metadata) AS m) "
        "AS agg FROM d.h) SELECT id, a.k, v FROM n, UNNEST(agg) AS a"
    )
    assert reads(e) == [("id", ["h.id"]), ("k", ["h.metadata.name"]), ("v", ["h.metadata.value"])]
    assert e.status is Status.COMPLETE


# ---------------------------------------------------------------- 6: open relations


def test_a_table_made_by_a_star_over_an_unknown_table_stays_open() -> None:
    res = extract_script(
        "CREATE TABLE d.accounts AS SELECT * FROM src.account_history;\n"
        "INSERT INTO d.out SELECT accounts.account_name FROM d.accounts AS accounts",
        dialect="bigquery",
    )
    e = res.events[-1]
    assert reads(e) == [("account_name", ["accounts.account_name"])]
    assert errors(e) == [] and e.status is Status.COMPLETE


def test_a_listed_column_of_an_open_table_wins_over_an_unknown_table() -> None:
    res = extract_script(
        "CREATE TABLE d.a AS SELECT *, 1 AS flag FROM src.h;\nINSERT INTO d.out SELECT flag FROM d.a JOIN d.b ON a.k = b.k",
        dialect="bigquery",
    )
    e = res.events[-1]
    assert reads(e) == [("flag", ["a.flag"])]
    assert errors(e) == []


def test_replace_over_an_unknown_star_names_its_column() -> None:
    e = event("WITH a AS (SELECT * REPLACE (UPPER(x) AS payload) FROM d.t) SELECT payload, other FROM a")
    assert reads(e) == [("payload", ["t.x"]), ("other", ["t.other"])]
    assert errors(e) == []


def test_struct_star_replace_reads_the_structs_fields() -> None:
    e = event("WITH a AS (SELECT s.* REPLACE (UPPER(s.x) AS x) FROM d.t) SELECT x, y FROM a")
    assert reads(e) == [("x", ["t.s.x"]), ("y", ["t.s.y"])]
    assert errors(e) == [] and "unknown_column" not in codes(e)


def test_if_of_two_rows_star_reads_both_rows() -> None:
    e = event(
        "WITH a AS (SELECT IF(cur.id IS NOT NULL, cur, prev).* REPLACE (UPPER(cur.x) AS x) "
        "FROM d.cur FULL JOIN d.prev USING (id)) SELECT x, y FROM a"
    )
    assert reads(e) == [("x", ["cur.x"]), ("y", ["cur.id", "cur.y", "prev.y"])]
    assert errors(e) == [] and "unknown_column" not in codes(e)


def test_select_as_struct_star_except_reads_the_array() -> None:
    e = event("SELECT ARRAY(SELECT AS STRUCT * EXCEPT (a) FROM UNNEST(t.arr)) AS z FROM d.t")
    assert reads(e) == [("z", ["t.arr"])]
    assert errors(e) == [] and "unknown_qualifier" not in codes(e)


# ---------------------------------------------------------------- 7: a certain column wins


def test_a_relation_that_certainly_has_the_name_wins() -> None:
    e = event(
        "WITH x AS (SELECT c.* FROM d.t, UNNEST(t.counts) AS c) "
        "SELECT SUM(dau) AS s FROM x LEFT JOIN d.cc ON x.wau = cc.id",
        TYPED,
    )
    assert reads(e) == [("s", ["t.counts.dau"])]
    assert errors(e) == []


def test_an_open_element_wins_over_a_known_table_that_lacks_the_name() -> None:
    e = event("WITH x AS (SELECT c.* FROM d.t, UNNEST(t.counts) AS c) SELECT SUM(dau) AS s FROM x JOIN d.cc2 ON x.k = cc2.id",
              {"d.cc2": {"id": "INT64"}})  # fmt: skip
    assert reads(e) == [("s", ["t.counts.dau"])]
    assert errors(e) == []


# ---------------------------------------------------------------- 9: a qualified column a stale catalog lacks


@pytest.mark.parametrize("dialect", ["snowflake", "bigquery", "postgres"])
def test_a_qualified_column_the_catalog_lacks_is_kept_with_a_warning(dialect: str) -> None:
    cast = "o.o_orderkey::NUMBER(20,0)" if dialect == "snowflake" else "CAST(o.o_orderkey AS NUMERIC)"
    e = one_event(
        f"INSERT INTO out SELECT {cast} AS orderkey, o.o_custkey FROM sf.orders o",
        {"SF.ORDERS": ["O_CUSTKEY", "O_TOTALPRICE"]}
        if dialect == "snowflake"
        else {"sf.orders": ["o_custkey", "o_totalprice"]},
        dialect=dialect,
    )
    assert [[c.column.lower() for c in d.sources] for d in e.direct] == [["o_orderkey"], ["o_custkey"]]
    found = [d for d in e.diagnostics if d.code == "column_not_in_catalog"]
    assert len(found) == 1 and found[0].severity is Severity.WARNING
    assert e.status is Status.PARTIAL  # what --strict refuses
    assert "unknown_column" not in codes(e)


def test_an_unqualified_column_no_table_has_stays_an_error() -> None:
    e = one_event(
        "INSERT INTO out SELECT o_orderkey FROM sf.orders o", {"sf.orders": ["o_custkey"]}, dialect="bigquery"
    )
    assert "unknown_column" in codes(e)


def test_the_cli_reads_the_typed_schema(tmp_path) -> None:
    schema = tmp_path / "schema.yaml"
    schema.write_text("d.h:\n  client_id: STRING\n  metadata: ARRAY<STRUCT<name STRING, value INT64>>\n")
    sql = tmp_path / "q.sql"
    sql.write_text(f"CREATE OR REPLACE TABLE d.out AS {SQL_1};\n")
    out = CliRunner().invoke(
        app, ["extract", str(sql), "--dialect", "bigquery", "--schema", str(schema), "--format", "jsonl"]
    )
    assert out.exit_code == 0, out.output
    doc = json.loads(out.stdout.splitlines()[0])
    assert doc["status"] == "COMPLETE"
    assert [[s["column"] for s in d["sources"]] for d in doc["direct"]] == [
        ["client_id"],
        ["metadata.name"],
        ["metadata.value"],
    ]


def test_a_correlated_select_as_struct_over_a_struct_column_is_no_error() -> None:
    e = event(
        "SELECT * REPLACE ((SELECT AS STRUCT jsonPayload.* REPLACE ((SELECT AS STRUCT jsonPayload.fields.* "
        "EXCEPT (user_id), SHA256(jsonPayload.fields.user_id) AS user_id) AS fields)) AS jsonPayload) FROM d.logs"
    )
    assert errors(e) == [] and "unknown_qualifier" not in codes(e)
    # the fields the stars keep are unknown: the structs themselves stand for them (issue 34, gold set)
    assert reads(e) == [
        ("jsonpayload", ["logs.jsonpayload.fields.user_id", "logs.jsonpayload.fields", "logs.jsonpayload"])
    ]


def test_a_member_of_a_struct_subquery_is_its_value() -> None:
    e = event(
        "WITH a AS (SELECT * REPLACE ((SELECT AS STRUCT p.* REPLACE (SHA256(p.email) AS email)) AS p) FROM d.logs) "
        "SELECT a.p.email AS e FROM a"
    )
    assert [d.expression for d in e.direct] == ["SHA256(logs.p.email)"]


def test_a_struct_star_of_unknown_fields_keeps_the_struct_itself() -> None:
    """``(SELECT AS STRUCT p.* REPLACE (…))`` over a struct whose fields are unknown: the fields the
    star keeps are read from ``p`` (its input, PARTIAL: ``star_unknown_columns``), and a member the SQL
    does not name is ``p``'s field, not the member it does name (bigquery-etl's ``fxa_stdout_events_v1``)."""
    e = event(
        "WITH a AS (SELECT * REPLACE ((SELECT AS STRUCT p.* REPLACE (SHA256(p.email) AS email)) AS p) FROM d.logs) "
        "SELECT a.p AS whole, a.p.name AS n FROM a"
    )
    assert reads(e) == [("whole", ["logs.p.email", "logs.p"]), ("n", ["logs.p.name"])]
    assert e.status is Status.PARTIAL and "star_unknown_columns" in codes(e)


def test_an_unused_element_alias_may_be_a_struct() -> None:
    # glam: ``FROM scalars_data, UNNEST(scalar_aggregates) s1`` with the fields read unqualified
    e = event(
        "WITH sd AS (SELECT os, scalar_aggregates FROM d.src) SELECT os, metric FROM sd, UNNEST(scalar_aggregates) s1"
    )
    assert reads(e) == [("os", ["src.os"]), ("metric", ["src.scalar_aggregates.metric"])]
    assert errors(e) == []


def test_unnest_of_an_array_agg_of_structs_is_its_members() -> None:
    e = event(
        "WITH s AS (SELECT id, ARRAY_AGG(STRUCT(d, dau) ORDER BY d) AS arr FROM d.base GROUP BY id), "
        "x AS (SELECT * REPLACE (ARRAY(SELECT STRUCT(d, c.dau) FROM UNNEST(arr) AS c) AS arr) FROM s), "
        "e AS (SELECT c.*, x.* EXCEPT (arr) FROM x, UNNEST(arr) AS c) SELECT SUM(dau) AS s, * FROM e GROUP BY id"
    )
    assert reads(e) == [("s", ["base.dau"]), ("d", ["base.d"]), ("dau", ["base.dau"]), ("id", ["base.id"])]
    assert errors(e) == [] and e.status is Status.COMPLETE


@pytest.mark.parametrize("known", [True, False])
def test_a_table_alias_as_a_value_is_its_row(known: bool) -> None:
    head = "WITH g AS (SELECT build_hour, v, n FROM d.x), " if known else "WITH "
    src = "g" if known else "d.x"
    e = event(
        f"{head}a AS (SELECT ARRAY_AGG(t ORDER BY t.n DESC LIMIT 1)[OFFSET(0)] AS top_row FROM {src} t "
        "GROUP BY build_hour), b AS (SELECT top_row.* FROM a) SELECT v FROM b"
    )
    assert reads(e) == [("v", ["x.v", "x.n"])]
    assert errors(e) == [] and "unknown_column" not in codes(e)


def test_a_struct_of_an_element_field_renders() -> None:
    # sqlglot's BigQuery generator fails on ``STRUCT(UNNEST(x) AS a)`` (an internal_error before)
    e = event("SELECT STRUCT(tag AS x, m.name AS n) AS s FROM d.t0, UNNEST(tags) AS tag, UNNEST(t0.meta) AS m")
    assert e.direct[0].expression.startswith("STRUCT((UNNEST(t0.tags)) AS x")
    assert reads(e) == [("s", ["t0.tags", "t0.meta.name"])]


def test_if_of_written_structs_star_names_their_members() -> None:
    e = event(
        "WITH a AS (SELECT *, IF(x IS DISTINCT FROM y, STRUCT(x AS plan_id, z AS ended), (NULL, NULL)).* FROM d.t) "
        "SELECT FIRST_VALUE(plan_id IGNORE NULLS) OVER (ORDER BY v) AS p, ended FROM a"
    )
    assert reads(e) == [("p", ["t.v", "t.x", "t.y"]), ("ended", ["t.x", "t.y", "t.z"])]
    assert e.direct[1].expression == "IF(t.x IS DISTINCT FROM t.y, t.z, NULL)"


def test_ignore_nulls_over_a_window_argument_renders() -> None:
    # sqlglot moves IGNORE NULLS into the argument's window ORDER BY and fails (an internal_error before)
    e = event(
        "WITH a AS (SELECT id, LEAD(p) OVER (PARTITION BY id ORDER BY ts) AS nxt, ts FROM d.h) "
        "SELECT FIRST_VALUE(IF(nxt IS NULL, NULL, nxt) IGNORE NULLS) OVER (ORDER BY ts) AS f FROM a"
    )
    assert sorted(reads(e)[0][1]) == ["h.id", "h.p", "h.ts"]
    assert "IGNORE NULLS" in e.direct[0].expression


@pytest.mark.parametrize("dialect", ["spark", "databricks", "hive"])
def test_a_generator_with_several_names_in_the_select_list(dialect: str) -> None:
    e = event(
        "WITH a AS (SELECT m, EXPLODE(usage_map) AS (wiki, pages) FROM tmp.t) SELECT m, wiki FROM a", dialect=dialect
    )
    assert [(d.target_column, d.expression) for d in e.direct] == [("m", "t.m"), ("wiki", "EXPLODE(t.usage_map)")]
    assert errors(e) == []


@pytest.mark.parametrize("dialect", ["mysql", "bigquery", "postgres"])
def test_a_correlated_name_an_outer_table_certainly_has_is_in_doubt(dialect: str) -> None:
    e = one_event(
        "INSERT INTO out SELECT (SELECT value_text FROM obs WHERE obs_id = f(t.patient_id, j9_date)) AS v FROM tj t",
        {"db.tj": ["patient_id", "j9_date"]},
        dialect=dialect,
    )
    assert "ambiguous_column" in [d.code for d in e.diagnostics if d.severity is Severity.WARNING]
    assert e.status is Status.PARTIAL


def test_an_element_of_an_element_is_the_nested_field() -> None:
    e = event("SELECT a.x, b.y FROM d.t, UNNEST(t.arr) AS a WITH OFFSET off, UNNEST(a.sub) AS b")
    assert reads(e) == [("x", ["t.arr.x"]), ("y", ["t.arr.sub.y"])]


@pytest.mark.parametrize("dialect", ["postgres", "snowflake", "bigquery"])
def test_a_lateral_subquery_reading_its_own_scope_resolves(dialect: str) -> None:
    # the correlated-doubt and row-value checks must not load the LATERAL relation being resolved
    e = one_event(
        "INSERT INTO out SELECT t.id, l.m FROM t, LATERAL (SELECT MAX(v) AS m FROM s WHERE s.k = t.id) l",
        dialect=dialect,
    )
    assert [[c.column.lower() for c in d.sources] for d in e.direct] == [["id"], ["v"]]


# ---------------------------------------------------------------- the last false ERRORs of the BigQuery corpus


def test_a_star_beside_an_element_read_as_a_value_may_expand_its_fields() -> None:
    """``SELECT *, aa FROM t CROSS JOIN UNNEST(t.addons) AS aa``: the ``*`` gives the element's fields
    (a value table of structs) as well as ``aa`` itself; a later ``addon_id`` is one of them."""
    e = event(
        "WITH cm AS (SELECT id, addons FROM d.t0), x AS (SELECT *, aa FROM cm CROSS JOIN UNNEST(addons) AS aa) "
        "SELECT addon_id, COUNT(*) AS n FROM x GROUP BY 1"
    )
    assert errors(e) == []
    typed = event(
        "WITH cm AS (SELECT id, addons FROM d.t0), x AS (SELECT *, aa FROM cm CROSS JOIN UNNEST(addons) AS aa) "
        "SELECT addon_id, COUNT(*) AS n FROM x GROUP BY 1",
        {"d.t0": {"id": "INT64", "addons": "ARRAY<STRUCT<addon_id STRING, name STRING>>"}},
    )
    assert reads(typed)[0] == ("addon_id", ["t0.addons.addon_id"])
    assert typed.status is Status.COMPLETE


def test_a_struct_field_made_of_a_full_join_using_column_keeps_its_name() -> None:
    """``STRUCT(dt, c.dau)`` where ``dt`` is a FULL JOIN … USING (dt) column (COALESCE of both sides):
    BigQuery names the field ``dt``, as it names the column."""
    e = event(
        "SELECT x.dt, x.dau FROM UNNEST(ARRAY(SELECT STRUCT(dt, c.dau) FROM d.v AS c FULL JOIN d.u USING (dt))) AS x"
    )
    assert errors(e) == []
    e = event(
        "WITH s AS (SELECT ARRAY(SELECT STRUCT(dt, c.dau) FROM d.v AS c FULL JOIN d.u USING (dt)) AS arr FROM d.w), "
        "ex AS (SELECT c.* FROM s, UNNEST(arr) AS c) SELECT dt FROM ex"
    )
    assert errors(e) == []
    assert reads(e) == [("dt", ["v.dt", "u.dt"])]


def test_if_of_two_rows_of_known_columns_star_is_their_columns() -> None:
    """``IF(c, _current, _previous).*`` over rows whose columns the schema gives: the outputs are those
    columns (BigQuery's IF needs both branches of one type), each the IF of the two rows' column."""
    e = event(
        "CREATE TABLE d.o AS SELECT IF(_current.id IS NOT NULL, _current, _previous).* REPLACE (UPPER(_current.x) AS x) "
        "FROM (SELECT * FROM d.cur) AS _current FULL JOIN (SELECT * FROM d.prev) AS _previous USING (id)",
        {"d.cur": {"id": "INT64", "x": "STRING", "y": "INT64"}, "d.prev": {"id": "INT64", "x": "STRING", "y": "INT64"}},
    )
    assert [f.name for f in e.target.columns] == ["id", "x", "y"]
    assert reads(e)[1:] == [("x", ["cur.x"]), ("y", ["cur.id", "cur.y", "prev.y"])]
    assert e.status is Status.COMPLETE and codes(e) == []
