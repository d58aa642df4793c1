"""Issue 34 item 11: BigQuery dataset and table names are case-sensitive (column names, CTE names and
table aliases are not), so ``d.Events`` and ``d.events`` are two datasets; other dialects keep their
folding (PostgreSQL folds unquoted names to lower case, Snowflake to upper case)."""

from __future__ import annotations

import pytest

from headwater.catalog import Names
from headwater.extract import extract_script
from headwater.model import TableRef
from tests.extract.helpers import catalog_of

TWO = "CREATE TABLE d.Out AS SELECT a FROM d.Events UNION ALL SELECT a FROM d.events"


def _refs(sql: str, dialect: str, **kw) -> list[tuple[str, list[str]]]:
    res = extract_script(sql, dialect=dialect, **kw)
    return [(e.target.table.qualified, [t.qualified for t in e.sources]) for e in res.events]


def test_bigquery_keeps_the_case_of_dataset_and_table_names() -> None:
    assert _refs(TWO, "bigquery") == [("d.Out", ["d.Events", "d.events"])]
    (e,) = extract_script(TWO, dialect="bigquery").events
    assert [[str(c) for c in d.sources] for d in e.direct] == [["internal.d.Events.a"], ["internal.d.events.a"]]
    assert [f.name for f in e.target.columns] == ["a"]


@pytest.mark.parametrize(("dialect", "folded"), [("postgres", "d.events"), ("snowflake", "D.EVENTS")])
def test_other_dialects_keep_folding_table_names(dialect: str, folded: str) -> None:
    (out,) = _refs(TWO, dialect)
    assert out[1] == [folded]


def test_bigquery_column_names_aliases_and_ctes_are_still_case_insensitive() -> None:
    sql = (
        "CREATE TABLE Proj.Mart.Daily AS WITH Recent AS (SELECT Id, Amount FROM Proj.Raw.Orders) "
        "SELECT R.ID, r.AMOUNT AS Amount, Orders.Status FROM recent AS r JOIN Proj.Raw.Orders ON orders.id = r.id"
    )
    (e,) = extract_script(sql, dialect="bigquery").events
    assert str(e.target.table) == "Proj.Mart.Daily"
    assert [str(t) for t in e.sources] == ["Proj.Raw.Orders"]
    assert [(d.target_column, [str(c) for c in d.sources]) for d in e.direct] == [
        ("id", ["Proj.Raw.Orders.id"]),
        ("amount", ["Proj.Raw.Orders.amount"]),
        ("status", ["Proj.Raw.Orders.status"]),
    ]
    assert not [d.code for d in e.diagnostics if d.severity.value != "INFO"]


def test_bigquery_binds_a_table_of_the_catalog_by_its_exact_case() -> None:
    catalog = catalog_of({"d.Events": ["a", "b"], "d.events": ["x"]})
    (e,) = extract_script("CREATE TABLE d.o AS SELECT * FROM d.Events", dialect="bigquery", catalog=catalog).events
    assert [f.name for f in e.target.columns] == ["a", "b"]
    (e,) = extract_script("CREATE TABLE d.o AS SELECT * FROM d.events", dialect="bigquery", catalog=catalog).events
    assert [f.name for f in e.target.columns] == ["x"]


def test_bigquery_ddl_of_a_script_binds_its_own_case() -> None:
    sql = "CREATE TABLE d.Events (a INT64, b STRING);\nCREATE TABLE d.o AS SELECT * FROM d.Events"
    (e,) = extract_script(sql, dialect="bigquery").events
    assert [f.name for f in e.target.columns] == ["a", "b"]
    assert [t.qualified for t in e.sources] == ["d.Events"]


def test_bigquery_default_dataset_keeps_its_case() -> None:
    assert _refs("CREATE TABLE Out AS SELECT a FROM Events", "bigquery", database="Sales") == [
        ("Sales.Out", ["Sales.Events"])
    ]


def test_names_say_the_dataset_fold() -> None:
    assert Names.for_dialect("bigquery").dataset("Events", False) == "Events"
    assert Names.for_dialect("bigquery").table("Events", False) == "events"  # an alias, a CTE
    assert Names.for_dialect("postgres").dataset("Events", False) == "events"
    assert Names.for_dialect("snowflake").dataset("Events", False) == "EVENTS"


def test_a_bigquery_schema_file_keeps_the_case_of_its_tables() -> None:
    from headwater.catalog import schema_from_data

    doc = {"d.Events": {"a": "INT64"}, "d.events": {"x": "INT64"}, "d.Other": {"Y": "STRING"}}
    catalog = schema_from_data(doc, dialect="bigquery")
    (e,) = extract_script("CREATE TABLE d.o AS SELECT * FROM d.Events", dialect="bigquery", catalog=catalog).events
    assert [f.name for f in e.target.columns] == ["a"]
    (e,) = extract_script("CREATE TABLE d.o AS SELECT y FROM d.Other", dialect="bigquery", catalog=catalog).events
    assert [str(c) for d in e.direct for c in d.sources] == ["internal.d.Other.y"]  # a column: any case
    pg = schema_from_data({"d.Events": {"a": "INT"}}, dialect="postgres")
    (e,) = extract_script("CREATE TABLE d.o AS SELECT * FROM d.events", dialect="postgres", catalog=pg).events
    assert [f.name for f in e.target.columns] == ["a"]


def test_statement_reuse_keeps_two_cases_apart() -> None:
    from headwater.extract import ExtractOptions, Extractor
    from headwater.extract.reuse import StatementReuse

    ex = Extractor(None, ExtractOptions(dialect="bigquery"), reuse=StatementReuse())
    seen = []
    for table in ["Events", "events", "EVENTS"] * 2:
        (e,) = ex.run(f"CREATE TABLE d.o AS SELECT a FROM d.{table} WHERE x = 1").events
        seen.append([str(c) for d in e.direct for c in d.sources])
    assert seen == [[f"internal.d.{t}.a"] for t in ["Events", "events", "EVENTS"] * 2]


def test_openlineage_keeps_the_bigquery_case() -> None:
    from headwater.model.ol_ddl import ddl_run_events
    from headwater.model.openlineage import to_run_event

    (e,) = extract_script(TWO, dialect="bigquery").events
    run = to_run_event(e)
    assert [i.name for i in run.inputs] == ["d.Events", "d.events"]
    assert [o.name for o in run.outputs] == ["d.Out"]
    for dialect, name in [("bigquery", "D.Events"), ("postgres", "d.events")]:  # as the lineage events say it
        fold = Names.for_dialect(dialect).dataset_ident
        (ddl,) = ddl_run_events("DROP TABLE D.Events", dialect, fold=fold)
        assert ddl.outputs[0].name == name


def test_a_bigquery_dbt_relation_keeps_its_case() -> None:
    from headwater.project.dbt.catalog import catalog_of
    from headwater.project.dbt.manifest import DbtNode
    from headwater.project.dbt.relations import relation_of

    node = DbtNode("model.p.daily_users", "model", "daily_users", "Proj", "Mart", "Daily_Users", "table")
    assert relation_of(node, "bigquery") == TableRef("Proj", "Mart", "Daily_Users")
    doc = {
        "nodes": {
            "m": {
                "metadata": {"database": "Proj", "schema": "Mart", "name": "Daily_Users"},
                "columns": {"A": {"name": "A", "index": 1}},
            }
        }
    }
    cat = catalog_of(doc, "bigquery")
    assert cat.table(TableRef("Proj", "Mart", "Daily_Users")).column_names == ("a",)
