"""Schema files: every accepted shape, name normalisation, the dump document, and malformed input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.shared_data import shared_path

from headwater.catalog import (
    ColumnSchema,
    SchemaFileCatalog,
    SchemaFileError,
    TableSchema,
    load_schema_file,
    schema_from_data,
    tables_to_document,
)
from headwater.model import TableRef


def ref(db: str | None, name: str, catalog: str = "internal") -> TableRef:
    return TableRef(catalog, db, name)


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# ---------------------------------------------------------------- shapes


def test_db_table_form_keeps_column_order_and_types(tmp_path: Path) -> None:
    path = write(tmp_path, "s.json", json.dumps({"sales.orders": {"id": "BIGINT", "amount": "DECIMAL(18, 2)"}}))
    cat = load_schema_file(path)
    assert isinstance(cat, SchemaFileCatalog)
    assert cat.tables() == {
        ref("sales", "orders"): TableSchema((ColumnSchema("id", "BIGINT"), ColumnSchema("amount", "DECIMAL(18, 2)")))
    }


def test_catalog_db_table_form(tmp_path: Path) -> None:
    path = write(tmp_path, "s.json", json.dumps({"hive.sales.orders": {"id": "bigint"}}))
    cat = load_schema_file(path)
    assert cat.table(ref("sales", "orders", "hive")) == TableSchema((ColumnSchema("id", "bigint"),))
    assert cat.table(ref("sales", "orders")) is None


def test_default_catalog_applies_to_two_part_names(tmp_path: Path) -> None:
    path = write(tmp_path, "s.json", json.dumps({"sales.orders": {"id": "bigint"}}))
    cat = load_schema_file(path, default_catalog="hive")
    assert list(cat.tables()) == [ref("sales", "orders", "hive")]


def test_bare_table_is_found_under_any_database(tmp_path: Path) -> None:
    path = write(tmp_path, "s.json", json.dumps({"nation": {"n_nationkey": "bigint", "n_name": "string"}}))
    cat = load_schema_file(path, dialect="generic")
    assert list(cat.tables()) == [ref(None, "nation")]
    expected = TableSchema((ColumnSchema("n_nationkey", "bigint"), ColumnSchema("n_name", "string")))
    assert cat.table(ref(None, "nation")) == expected
    assert cat.table(ref("tpch", "nation")) == expected
    assert cat.table(ref("anything", "nation")) == expected
    assert cat.table(ref("tpch", "nation", "hive")) is None
    assert cat.table(ref("tpch", "region")) is None


def test_exact_entry_wins_over_bare_one(tmp_path: Path) -> None:
    data = {"t": {"a": "int"}, "db2.t": {"b": "int"}}
    cat = load_schema_file(write(tmp_path, "s.json", json.dumps(data)))
    assert cat.table(ref("db1", "t")).column_names == ("a",)
    assert cat.table(ref("db2", "t")).column_names == ("b",)


def test_nested_database_form(tmp_path: Path) -> None:
    data = {"sales": {"orders": {"id": "bigint"}, "customers": {"cid": "bigint", "name": "varchar(64)"}}}
    cat = load_schema_file(write(tmp_path, "s.json", json.dumps(data)))
    assert cat.tables() == {
        ref("sales", "orders"): TableSchema((ColumnSchema("id", "bigint"),)),
        ref("sales", "customers"): TableSchema((ColumnSchema("cid", "bigint"), ColumnSchema("name", "varchar(64)"))),
    }


def test_nested_catalog_form_and_mixed_shapes(tmp_path: Path) -> None:
    data = {
        "hive": {"raw": {"events": {"id": "bigint"}}},
        "sales.orders": {"id": "bigint"},
        "dim": {"date": ["d_date_sk", "d_year"]},
    }
    cat = load_schema_file(write(tmp_path, "s.json", json.dumps(data)))
    assert cat.tables() == {
        ref("raw", "events", "hive"): TableSchema((ColumnSchema("id", "bigint"),)),
        ref("sales", "orders"): TableSchema((ColumnSchema("id", "bigint"),)),
        ref("dim", "date"): TableSchema((ColumnSchema("d_date_sk"), ColumnSchema("d_year"))),
    }


def test_null_and_blank_types_are_unknown(tmp_path: Path) -> None:
    cat = load_schema_file(write(tmp_path, "s.json", '{"t": {"a": null, "b": " ", "c": " int "}}'))
    assert cat.table(ref(None, "t")).columns == (
        ColumnSchema("a"),
        ColumnSchema("b"),
        ColumnSchema("c", "int"),
    )


def test_yaml_file(tmp_path: Path) -> None:
    text = "sales:\n  orders:\n    id: bigint\n    amount: decimal(18,2)\n    note: ~\nnation: [n_name]\n"
    for name in ("s.yaml", "s.yml", "schema.txt"):
        cat = load_schema_file(write(tmp_path, name, text))
        assert cat.tables() == {
            ref("sales", "orders"): TableSchema(
                (ColumnSchema("id", "bigint"), ColumnSchema("amount", "decimal(18,2)"), ColumnSchema("note"))
            ),
            ref(None, "nation"): TableSchema((ColumnSchema("n_name"),)),
        }


def test_json_without_json_suffix(tmp_path: Path) -> None:
    cat = load_schema_file(write(tmp_path, "schema", '{"db.t": {"a": "int"}}'))
    assert cat.table(ref("db", "t")).columns == (ColumnSchema("a", "int"),)


# ---------------------------------------------------------------- names


@pytest.mark.parametrize(
    ("dialect", "table", "column"),
    [
        ("doris", ref("Sales", "Orders"), "amount"),  # tables case-sensitive, columns case-insensitive
        ("mysql", ref("Sales", "Orders"), "amount"),
        ("postgres", ref("sales", "orders"), "amount"),
        ("generic", ref("sales", "orders"), "amount"),
        ("snowflake", ref("SALES", "ORDERS"), "AMOUNT"),
        ("bigquery", ref("Sales", "Orders"), "amount"),  # dataset and table names case-sensitive
    ],
)
def test_names_follow_the_dialect_as_unquoted(dialect: str, table: TableRef, column: str) -> None:
    cat = schema_from_data({"Sales.Orders": {"Amount": "int"}}, dialect=dialect)
    assert cat.tables() == {
        TableRef(table.catalog, table.database, table.name): TableSchema((ColumnSchema(column, "int"),))
    }


def test_quoted_parts_are_exact() -> None:
    data = {'sales."Orders.2024"': {'"Amount"': "int", "`Net`": "int"}, "`Raw`.`T`": ["x"]}
    cat = schema_from_data(data, dialect="postgres")
    assert cat.tables() == {
        ref("sales", "Orders.2024"): TableSchema((ColumnSchema("Amount", "int"), ColumnSchema("Net", "int"))),
        ref("Raw", "T"): TableSchema((ColumnSchema("x"),)),
    }
    # Doris columns are case-insensitive even when quoted.
    assert schema_from_data({"t": {'"Amount"': "int"}}, dialect="doris").table(ref(None, "t")).column_names == (
        "amount",
    )


# ---------------------------------------------------------------- the benchmark corpus


@pytest.mark.parametrize(("name", "tables", "columns"), [("tpcds", 24, 425), ("tpch", 8, 61)])
def test_corpus_schemas(name: str, tables: int, columns: int) -> None:
    cat = load_schema_file(shared_path("corpus", f"{name}_schema.json"), dialect="generic")
    assert len(cat.tables()) == tables
    assert sum(len(s.columns) for s in cat.tables().values()) == columns
    assert all(r.database is None and r.catalog == "internal" for r in cat.tables())


def test_corpus_table_resolves_for_any_session_database() -> None:
    cat = load_schema_file(shared_path("corpus", "tpcds_schema.json"), dialect="generic")
    for db in (None, "tpcds", "bench"):
        store_sales = cat.table(ref(db, "store_sales"))
        assert store_sales is not None
        assert store_sales.columns[:2] == (
            ColumnSchema("ss_sold_date_sk", "bigint"),
            ColumnSchema("ss_sold_time_sk", "bigint"),
        )


# ---------------------------------------------------------------- the dump document


def test_document_round_trip_with_view() -> None:
    tables = {
        ref("shop", "Orders"): TableSchema((ColumnSchema("Id", "BIGINT"), ColumnSchema("Region", "VARCHAR(16)"))),
        ref("shop", "v"): TableSchema((ColumnSchema("Id", "BIGINT"),), "SELECT `Id` FROM `Orders`", "doris"),
    }
    doc = tables_to_document(tables, dialect="doris", source="mysql+pymysql://root@h/shop", default_database="shop")
    assert doc == {
        "format": "headwater.schema/1",
        "dialect": "doris",
        "source": "mysql+pymysql://root@h/shop",
        "default_database": "shop",
        "tables": [
            {
                "catalog": "internal",
                "database": "shop",
                "name": "Orders",
                "kind": "table",
                "columns": [{"name": "Id", "type": "BIGINT"}, {"name": "Region", "type": "VARCHAR(16)"}],
            },
            {
                "catalog": "internal",
                "database": "shop",
                "name": "v",
                "kind": "view",
                "columns": [{"name": "Id", "type": "BIGINT"}],
                "view_sql": "SELECT `Id` FROM `Orders`",
                "view_dialect": "doris",
            },
        ],
    }
    cat = schema_from_data(json.loads(json.dumps(doc)), dialect="doris")
    # Names are read as the database stores them: tables exact, Doris columns lower-cased.
    assert cat.tables() == {
        ref("shop", "Orders"): TableSchema((ColumnSchema("id", "BIGINT"), ColumnSchema("region", "VARCHAR(16)"))),
        ref("shop", "v"): TableSchema((ColumnSchema("id", "BIGINT"),), "SELECT `Id` FROM `Orders`", "doris"),
    }
    # The default database answers names asked without one.
    assert cat.table(ref(None, "Orders")) == cat.table(ref("shop", "Orders"))
    assert cat.table(ref(None, "orders")) is None


def test_document_names_are_exact_in_postgres() -> None:
    doc = {
        "format": "headwater.schema/1",
        "tables": [{"database": "public", "name": "MixedCase", "columns": [{"name": "Id", "type": "int"}]}],
    }
    cat = schema_from_data(doc, dialect="postgres")
    assert cat.tables() == {ref("public", "MixedCase"): TableSchema((ColumnSchema("Id", "int"),))}


def test_document_view_dialect_defaults_to_the_documents() -> None:
    doc = {
        "format": "headwater.schema/1",
        "dialect": "postgres",
        "tables": [
            {
                "database": "public",
                "name": "v",
                "kind": "view",
                "columns": [{"name": "a"}],
                "view_sql": "SELECT 1 AS a",
            }
        ],
    }
    assert schema_from_data(doc, dialect="postgres").table(ref("public", "v")) == TableSchema(
        (ColumnSchema("a"),), "SELECT 1 AS a", "postgres"
    )


# ---------------------------------------------------------------- malformed input


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        (
            "s.json",
            '{"db.t": {"a": "int",}}',
            "s.json: invalid JSON at line 1 column 22: Expecting property name enclosed in double quotes",
        ),
        ("s.json", "", "s.json: invalid JSON at line 1 column 1: Expecting value"),
        ("s.yaml", "", "s.yaml: the file is empty"),
        (
            "s.yaml",
            "a: [b\n",
            "s.yaml: invalid YAML at line 2 column 1: expected ',' or ']', but got '<stream end>'",
        ),
        ("s.json", '["t"]', "s.json: expected a mapping of tables at the top level, got a list"),
        (
            "s.json",
            '{"db.t": {"a": 1}}',
            's.json: key "db.t" > "a": a column type must be a string or null, got 1',
        ),
        (
            "s.json",
            '{"db": {"t": {"a": "int"}, "b": "int"}}',
            's.json: key "db": mixes columns (string types) with nested tables (mappings)',
        ),
        ("s.json", '{"db.t": {}}', 's.json: key "db.t": an empty mapping: a table needs at least one column'),
        (
            "s.json",
            '{"db.t": "int"}',
            's.json: key "db.t": expected a mapping of columns to types, got a string',
        ),
        (
            "s.json",
            '{"a.b.c.d": {"x": "int"}}',
            's.json: key "a.b.c.d": a table name has at most three parts (catalog.database.table)',
        ),
        (
            "s.json",
            '{"c": {"d": {"t": {"u": {"x": "int"}}}}}',
            's.json: key "c" > "d" > "t": nested too deeply: a table name has at most three parts',
        ),
        ("s.json", '{"db..t": {"x": "int"}}', "s.json: key \"db..t\": empty name part in 'db..t'"),
        ("s.json", '{"db.\\"t": {"x": "int"}}', 's.json: key "db.\\"t": unterminated quote in \'db."t\''),
        (
            "s.json",
            '{"db.t": {"x": "int"}, "db.T": {"x": "int"}}',
            's.json: key "db.T": table internal.db.t is already defined by key "db.t"',
        ),
        (
            "s.json",
            '{"db.t": {"x": "int", "X": "int"}}',
            "s.json: key \"db.t\" > \"X\": duplicate column: 'x' and 'X' are both 'x'",
        ),
        (
            "s.json",
            '{"db.t": {"t.x": "int"}}',
            's.json: key "db.t" > "t.x": a column name cannot be qualified',
        ),
        ("s.json", '{"db.t": [1]}', 's.json: key "db.t" > 1: a column name must be a non-empty string'),
        (
            "s.json",
            '{"db.t": {"a": "int"}, "db.t": {"b": "int"}}',
            's.json: key "db.t": written twice in one object',
        ),
        (
            "s.yaml",
            "db.t: {a: int}\ndb.t: {b: int}\n",
            "s.yaml: invalid YAML at line 2 column 1: duplicate key 'db.t'",
        ),
        (
            "s.yaml",
            "db:\n  1: {a: int}\n",
            's.yaml: key "db" > 1: a name must be a string (quote it in YAML)',
        ),
        ("s.yaml", "? [a, b]\n: {a: int}\n", "s.yaml: invalid YAML at line 1 column 3: found unhashable key"),
        ("s.yaml", "on: {a: int}\n", "s.yaml: key True: a name must be a string (quote it in YAML)"),
    ],
)
def test_malformed_file_names_the_file_and_the_key(tmp_path: Path, name: str, text: str, message: str) -> None:
    path = write(tmp_path, name, text)
    with pytest.raises(SchemaFileError) as info:
        load_schema_file(path, dialect="postgres")
    assert str(info.value) == message.replace(name, str(path), 1)


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({"format": "headwater.schema/9", "tables": []}, 'd.json: key "format": unsupported format'),
        (
            {"format": "headwater.schema/1", "table": []},
            'd.json: key "table": unknown key in a schema document',
        ),
        (
            {"format": "headwater.schema/1", "tables": {}},
            'd.json: key "tables": expected a list of tables, got a',
        ),
        (
            {"format": "headwater.schema/1", "tables": ["t"]},
            "d.json: tables[0]: expected a table object, got a str",
        ),
        ({"format": "headwater.schema/1", "tables": [{"columns": []}]}, "d.json: tables[0].name: missing"),
        (
            {
                "format": "headwater.schema/1",
                "tables": [{"name": "t", "database": "d", "columns": [], "kind": "x"}],
            },
            "d.json: tables[0] (d.t).kind: 'x' is not one of table, view",
        ),
        (
            {"format": "headwater.schema/1", "tables": [{"name": "t", "columns": {"a": "int"}}]},
            "d.json: tables[0] (t).columns: expected a list of columns, got a mapping",
        ),
        (
            {
                "format": "headwater.schema/1",
                "tables": [{"name": "t", "columns": [{"name": "a", "typ": "int"}]}],
            },
            'd.json: tables[0] (t).columns[0]: expected {"name": ..., "type": ...}',
        ),
        (
            {
                "format": "headwater.schema/1",
                "tables": [{"name": "t", "columns": [{"name": "a", "type": 5}]}],
            },
            "d.json: tables[0] (t).columns[0].type: expected a string, got 5",
        ),
        (
            {
                "format": "headwater.schema/1",
                "tables": [{"name": "t", "columns": [{"name": "a"}, {"name": "A"}]}],
            },
            "d.json: tables[0] (t).columns[1]: duplicate column 'a'",
        ),
        (
            {"format": "headwater.schema/1", "tables": [{"name": "t", "columns": [], "owner": "x"}]},
            "d.json: tables[0] (t).owner: unknown key",
        ),
    ],
)
def test_malformed_document(tmp_path: Path, doc: dict, message: str) -> None:
    path = write(tmp_path, "d.json", json.dumps(doc))
    with pytest.raises(SchemaFileError) as info:
        load_schema_file(path, dialect="doris")
    assert str(info.value).startswith(message.replace("d.json", str(path), 1))


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(SchemaFileError) as info:
        load_schema_file(tmp_path / "nope.json")
    assert str(info.value) == f"{tmp_path / 'nope.json'}: cannot read: No such file or directory"


def test_binary_file(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(SchemaFileError) as info:
        load_schema_file(path)
    assert str(info.value) == f"{path}: not UTF-8 text"


def test_unknown_dialect(tmp_path: Path) -> None:
    path = write(tmp_path, "s.json", '{"t": {"a": "int"}}')
    with pytest.raises(SchemaFileError) as info:
        load_schema_file(path, dialect="nosuch")
    assert str(info.value).startswith(f"{path}: Unknown dialect 'nosuch'")
