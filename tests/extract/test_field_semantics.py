"""Flink-grade column semantics (issue 3): per-field DIRECT/INDIRECT, origins, labels, constructs."""

from __future__ import annotations

import pytest

from headwater.extract import extract_script
from headwater.model import Dependency, Origin, Status
from headwater.model.dependencies import field_dependencies
from tests.extract.helpers import codes, direct, one_event, output, sources

DIRECT, INDIRECT = Dependency.DIRECT, Dependency.INDIRECT


def view(e, column):
    return [
        (f"{i.column.table.name}.{i.column.column}", sorted(d.value for d in i.dependencies), i.subtypes, i.labels)
        for i in field_dependencies(e)[column].inputs
    ]


def test_the_articles_customer_summary():
    e = one_event(
        "INSERT INTO customer_summary SELECT customer_id, SUM(price * quantity) AS gross_amount, "
        "COUNT(*) AS order_count FROM orders WHERE region = 'CN' GROUP BY customer_id"
    )
    assert view(e, "gross_amount") == [
        ("orders.price", ["DIRECT"], (), ("SUM", "ARITHMETIC")),
        ("orders.quantity", ["DIRECT"], (), ("SUM", "ARITHMETIC")),
        ("orders.region", ["INDIRECT"], ("FILTER",), ()),
        ("orders.customer_id", ["INDIRECT"], ("GROUP_BY",), ()),
    ]
    assert view(e, "order_count") == [
        ("orders.region", ["INDIRECT"], ("FILTER",), ()),
        ("orders.customer_id", ["INDIRECT"], ("GROUP_BY",), ()),
    ]
    deps = field_dependencies(e)
    assert deps["order_count"].origin is Origin.SYSTEM
    assert [t.name for t in deps["order_count"].row_sources] == ["orders"]
    assert deps["customer_id"].origin is Origin.COLUMN
    # customer_id is both the value and the grouping key
    assert view(e, "customer_id")[0] == ("orders.customer_id", ["DIRECT", "INDIRECT"], ("GROUP_BY",), ())


def test_the_guide_example_per_field():
    from headwater.cli.extract_cmd import run_demo

    e = run_demo().events[0]
    seq = dict((c, (deps, subtypes)) for c, deps, subtypes, _ in view(e, "customer_seq"))
    assert seq["lineage_orders.customer_id"] == (["INDIRECT"], ("JOIN", "GROUP_BY", "WINDOW"))
    group = dict((c, (deps, subtypes)) for c, deps, subtypes, _ in view(e, "region_group"))
    assert group["lineage_orders.region"] == (["INDIRECT"], ("GROUP_BY", "CONDITIONAL"))
    label = dict((c, (deps, subtypes)) for c, deps, subtypes, _ in view(e, "region_label"))
    assert label["lineage_orders.region"] == (["DIRECT", "INDIRECT"], ("GROUP_BY",))


@pytest.mark.parametrize(
    ("expr", "origin"),
    [
        ("1", Origin.CONSTANT),
        ("'x'", Origin.CONSTANT),
        ("NULL", Origin.CONSTANT),
        ("UPPER('x')", Origin.CONSTANT),
        ("COUNT(*)", Origin.SYSTEM),
        ("SUM(1)", Origin.SYSTEM),
        ("ROW_NUMBER() OVER ()", Origin.SYSTEM),
        ("CURRENT_TIMESTAMP()", Origin.SYSTEM),
        ("UUID()", Origin.SYSTEM),
        ("RAND()", Origin.SYSTEM),
        ("a", Origin.COLUMN),
        ("COUNT(a)", Origin.COLUMN),
        ("ROW_NUMBER() OVER (ORDER BY a)", Origin.COLUMN),
    ],
)
def test_origins(expr, origin):
    e = one_event(f"INSERT INTO t SELECT {expr} AS v FROM s")
    assert e.direct[0].origin is origin


@pytest.mark.parametrize(
    ("expr", "labels", "masking"),
    [
        ("CAST(a AS INT)", ("CAST",), False),
        ("a + 1", ("ARITHMETIC",), False),
        ("UPPER(TRIM(a))", ("UPPER", "TRIM"), False),
        ("SUBSTRING(a, 1, 2)", ("SUBSTRING",), False),
        ("my_udf(a)", ("UDF",), False),
        ("MD5(a)", ("MD5",), True),
        ("SHA2(a, 256)", ("SHA2",), True),
        ("mask_ssn(a)", ("UDF",), True),
        ("SUM(CAST(a AS DOUBLE) * 2)", ("SUM", "ARITHMETIC", "CAST"), False),
    ],
)
def test_labels_and_masking(expr, labels, masking):
    e = one_event(f"INSERT INTO t SELECT {expr} AS v FROM s")
    [inp] = e.direct[0].inputs
    assert (inp.labels, inp.masking) == (labels, masking)


def test_lateral_view_explode():
    e = one_event(
        "INSERT INTO t SELECT id, tag FROM t0 LATERAL VIEW EXPLODE(tags) x AS tag WHERE tag <> ''", dialect="hive"
    )
    assert e.status is Status.COMPLETE
    assert direct(e) == [("id", "t0.id", "IDENTITY"), ("tag", "EXPLODE(t0.tags)", "TRANSFORMATION")]
    assert [(i.type.value, i.expression) for i in e.dataset_indirect] == [("FILTER", "EXPLODE(t0.tags) <> ''")]


def test_cross_join_unnest_with_column_alias():
    e = one_event("INSERT INTO t SELECT id, tag FROM t0 CROSS JOIN UNNEST(t0.tags) AS x(tag)", dialect="trino")
    assert e.status is Status.COMPLETE
    assert direct(e) == [("id", "t0.id", "IDENTITY"), ("tag", "UNNEST(t0.tags)", "TRANSFORMATION")]


def test_bigquery_unnest_alias_names_the_value():
    e = one_event("INSERT INTO d.t SELECT id, tag FROM d.t0, UNNEST(tags) AS tag", dialect="bigquery", db="d")
    assert e.status is Status.COMPLETE
    assert [d.expression for d in e.direct] == ["t0.id", "UNNEST(t0.tags)"]


def test_struct_and_map_access():
    e = one_event("INSERT INTO t SELECT s.a.b AS f1, t0.s.a AS f2, arr[1] AS f3, m['k'] AS f4 FROM t0", dialect="spark")
    assert e.status is Status.COMPLETE
    # a struct field of a column is a source of its own (theme 16): the field, read as it is
    assert [(d.expression, d.inputs[0].column.column, d.inputs[0].labels) for d in e.direct] == [
        ("t0.s.a.b", "s.a.b", ()),
        ("t0.s.a", "s.a", ()),
        ("t0.arr[1]", "arr", ("SUBSCRIPT",)),
        ("t0.m['k']", "m", ("SUBSCRIPT",)),
    ]


def test_json_functions_are_transformations_of_their_column():
    e = one_event("INSERT INTO t SELECT JSON_EXTRACT(doc, '$.a') AS j FROM s", dialect="mysql")
    assert direct(e) == [("j", "JSON_EXTRACT(s.doc, '$.a')", "TRANSFORMATION")]


def test_recursive_cte_is_resolved_once_with_a_note():
    e = one_event(
        "INSERT INTO t WITH RECURSIVE r AS (SELECT id, parent, name AS path FROM emp WHERE parent IS NULL "
        "UNION ALL SELECT e.id, e.parent, CONCAT(r.path, '/', e.name) FROM emp e JOIN r ON e.parent = r.id) "
        "SELECT id, path FROM r",
        dialect="mysql",
    )
    assert e.status is Status.COMPLETE
    assert [d.expression for d in e.direct_for("path")] == ["emp.name", "CONCAT(emp.name, '/', emp.name)"]
    assert "recursive_cte" in codes(e)


def test_pivot_and_match_recognize_are_reported_not_invented():
    e = one_event(
        "INSERT INTO t SELECT * FROM s PIVOT (SUM(amount) FOR month IN ('JAN', 'FEB')) AS p",
        dialect="snowflake",
        db="D",
    )
    assert e.status is Status.UNAVAILABLE
    assert "unsupported_construct" in codes(e)
    assert sources(e) == ["D.S"]


@pytest.mark.parametrize(
    ("dialect", "sql"),
    [
        ("databricks", "INSERT INTO t SELECT * FROM s UNPIVOT (sales FOR month IN (jan, feb AS f)) AS u"),
        ("bigquery", "INSERT INTO db.t SELECT * FROM db.s UNPIVOT(sales FOR month IN (jan, feb AS 'f'))"),
        ("duckdb", "INSERT INTO t SELECT * FROM s UNPIVOT (sales FOR month IN (jan, feb AS f))"),
    ],
)
def test_unpivot_value_is_each_listed_column_and_the_name_a_constant(dialect, sql):
    """``UNPIVOT (sales FOR month IN (jan, feb AS f))``: the other columns pass through, ``month`` is the
    listed columns' names (constants), ``sales`` is ``jan`` or ``feb`` (one branch each)."""
    e = one_event(sql, {"db.s": ["id", "jan", "feb"]}, dialect=dialect)
    assert e.status is Status.COMPLETE
    assert [(d.target_column, d.expression, d.origin.value, d.branch) for d in e.direct] == [
        ("id", "s.id", "COLUMN", 0),
        ("month", "'jan'", "CONSTANT", 0),
        ("month", "'f'", "CONSTANT", 1),
        ("sales", "s.jan", "COLUMN", 0),
        ("sales", "s.feb", "COLUMN", 1),
    ]


def test_unpivot_over_unknown_columns_resolves_its_own_and_says_why_it_is_partial():
    e = one_event(
        "INSERT INTO t SELECT u.month, sales FROM s UNPIVOT (sales FOR month IN (jan, feb)) AS u", dialect="databricks"
    )
    assert e.status is Status.PARTIAL
    assert [(d.target_column, d.expression) for d in e.direct] == [
        ("month", "'jan'"),
        ("month", "'feb'"),
        ("sales", "s.jan"),
        ("sales", "s.feb"),
    ]
    assert [(d.code, d.construct) for d in e.diagnostics if d.code == "unsupported_construct"] == [
        ("unsupported_construct", "UNPIVOT")
    ]


def test_correlated_subquery_in_select_list_has_a_defined_meaning():
    e = one_event("INSERT INTO t SELECT o.id, (SELECT COUNT(*) FROM items i WHERE i.oid = o.id) AS n FROM orders o")
    assert direct(e) == [("id", "orders.id", "IDENTITY"), ("n", "COUNT(*)", "AGGREGATION")]
    assert [(i.type.value, i.expression) for i in e.dataset_indirect] == [("FILTER", "items.oid = orders.id")]


def test_flink_statement_sets_views_and_connectors():
    sql = """
CREATE TABLE orders (id INT, amount DOUBLE) WITH ('connector' = 'kafka', 'topic' = 'orders',
  'properties.sasl.jaas.config' = 'user=x password=y', 'password' = 'p');
CREATE TABLE sink1 (id INT, amount DOUBLE) WITH ('connector' = 'jdbc', 'url' = 'jdbc:mysql://h/db');
CREATE TEMPORARY VIEW big AS SELECT id, amount FROM orders WHERE amount > 100;
EXECUTE STATEMENT SET BEGIN
INSERT INTO sink1 SELECT id, amount FROM big;
INSERT INTO sink2 SELECT id, amount * 2 AS a2 FROM big;
END;
BEGIN STATEMENT SET;
INSERT INTO sink3 SELECT id FROM orders;
END;
"""
    res = extract_script(sql, dialect="flink", database="db")
    assert [s.kind for s in res.statements] == [
        "ddl",
        "ddl",
        "view",
        "insert",
        "insert",
        "statement-set",
        "statement-set",
        "insert",
        "statement-set",
    ]
    s1, s2, s3 = res.events
    assert [e.target.table.name for e in res.events] == ["sink1", "sink2", "sink3"]
    assert direct(s1) == [("id", "orders.id", "IDENTITY"), ("amount", "orders.amount", "IDENTITY")]
    assert direct(s2) == [("id", "orders.id", "IDENTITY"), ("a2", "orders.amount * 2", "TRANSFORMATION")]
    assert [t.name for t in s1.via] == ["big"] and [t.name for t in s2.via] == ["big"] and s3.via == ()
    assert dict(s1.context.external_catalog_properties) == {
        "db.sink1.connector": "jdbc",
        "db.sink1.url": "jdbc:mysql://h/db",
        "db.orders.connector": "kafka",
        "db.orders.topic": "orders",
    }
    assert res.statements[3].line == 7


def test_flink_identifiers_are_case_sensitive():
    e = one_event("INSERT INTO T SELECT Id FROM Orders", {"db.Orders": ["Id", "id"]}, dialect="flink")
    assert e.status is Status.COMPLETE
    assert [(r.table.name, r.column) for r in e.direct[0].sources] == [("Orders", "Id")]


def test_hive_multi_insert_gives_one_event_per_sink():
    res = extract_script(
        "FROM src s INSERT OVERWRITE TABLE a SELECT s.x, y WHERE z > 1 "
        "INSERT INTO TABLE b SELECT y, COUNT(*) AS c GROUP BY y",
        dialect="hive",
        database="db",
    )
    a, b = res.events
    assert (a.target.table.name, a.source_command.value) == ("a", "InsertOverwriteTableCommand")
    assert direct(a) == [("x", "src.x", "IDENTITY"), ("y", "src.y", "IDENTITY")]
    assert [(i.type.value, i.expression) for i in a.dataset_indirect] == [("FILTER", "src.z > 1")]
    assert direct(b) == [("y", "src.y", "IDENTITY"), ("c", "COUNT(*)", "AGGREGATION")]
    assert [(i.type.value, i.expression) for i in b.dataset_indirect] == [("GROUP_BY", "src.y")]
    assert a.event_id != b.event_id


def test_output_indirect_for_conditional_only_column():
    e = one_event("INSERT INTO t SELECT CASE WHEN flag THEN 'y' ELSE 'n' END AS f FROM s")
    assert output(e) == [("f", "CONDITIONAL", "s.flag")]
    assert view(e, "f") == [("s.flag", ["INDIRECT"], ("CONDITIONAL",), ())]
    assert DIRECT not in field_dependencies(e)["f"].inputs[0].dependencies
    assert INDIRECT in field_dependencies(e)["f"].inputs[0].dependencies


def test_pivot_is_the_aggregation_it_stands_for():
    e = one_event(
        "INSERT INTO t SELECT * FROM s PIVOT (SUM(amount) AS total, COUNT(*) AS n FOR month IN ('JAN', 'FEB')) AS p",
        {"D.S": ["REGION", "MONTH", "AMOUNT"]},
        dialect="snowflake",
        db="D",
    )
    assert e.status is Status.COMPLETE
    assert [f.name for f in e.target.columns] == ["REGION", "'JAN'_total", "'JAN'_n", "'FEB'_total", "'FEB'_n"]
    assert [d.expression for d in e.direct] == [
        "S.REGION",
        "SUM(CASE WHEN S.MONTH = 'JAN' THEN S.AMOUNT END)",
        "COUNT(CASE WHEN S.MONTH = 'JAN' THEN 1 END)",
        "SUM(CASE WHEN S.MONTH = 'FEB' THEN S.AMOUNT END)",
        "COUNT(CASE WHEN S.MONTH = 'FEB' THEN 1 END)",
    ]
    assert [(i.type.value, i.expression) for i in e.dataset_indirect] == [("GROUP_BY", "S.REGION")]
    assert output(e)[0] == ("'JAN'_total", "CONDITIONAL", "S.MONTH = 'JAN'")
