"""``headwater catalog dump`` and ``open_catalog``: live databases to schema files and back."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from headwater.catalog import (
    CatalogConnectionError,
    CatalogError,
    ChainCatalog,
    ColumnSchema,
    SchemaFileCatalog,
    SqlAlchemyCatalog,
    TableSchema,
    dump_catalog,
    load_schema_file,
    open_catalog,
)
from headwater.cli.main import app
from headwater.model import TableRef

from .conftest import LiveDb, without_database


def ref(db: str | None, name: str, catalog: str = "internal") -> TableRef:
    return TableRef(catalog, db, name)


def assert_round_trip(doc: dict, url: str | sa.URL, dialect: str, tmp_path: Path) -> SchemaFileCatalog:
    """The file read back answers exactly as the live database does, for every table in it."""
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    loaded = load_schema_file(path, dialect=dialect)
    with SqlAlchemyCatalog(url, dialect=dialect) as live:
        assert len(loaded.tables()) == len(doc["tables"])
        for r, schema in loaded.tables().items():
            assert live.table(r) == schema, r
    return loaded


# ---------------------------------------------------------------- MariaDB


def test_mariadb_dump(mariadb: LiveDb, tmp_path: Path) -> None:
    d = mariadb.database
    doc = dump_catalog(mariadb.url, [d], dialect="doris")
    assert doc == {
        "format": "headwater.schema/1",
        "dialect": "doris",
        "source": "mysql+pymysql://root@127.0.0.1:3306/test",
        "default_database": "test",
        "tables": [
            {
                "catalog": "internal",
                "database": d,
                "name": "Orders_Mixed",
                "kind": "table",
                "columns": [
                    {"name": "CustomerId", "type": "BIGINT(20)"},
                    {"name": "Total Amount", "type": "DOUBLE"},
                ],
            },
            {
                "catalog": "internal",
                "database": d,
                "name": "lineage_customers",
                "kind": "table",
                "columns": [
                    {"name": "customer_id", "type": "BIGINT(20)"},
                    {"name": "customer_name", "type": "VARCHAR(64)"},
                    {"name": "customer_level", "type": "VARCHAR(16)"},
                ],
            },
            {
                "catalog": "internal",
                "database": d,
                "name": "lineage_orders",
                "kind": "table",
                "columns": [
                    {"name": "order_id", "type": "BIGINT(20)"},
                    {"name": "customer_id", "type": "BIGINT(20)"},
                    {"name": "region", "type": "VARCHAR(16)"},
                    {"name": "amount", "type": "DECIMAL(18, 2)"},
                    {"name": "status", "type": "VARCHAR(16)"},
                ],
            },
            {
                "catalog": "internal",
                "database": d,
                "name": "paid_orders",
                "kind": "view",
                "columns": [
                    {"name": "customer_id", "type": "BIGINT(20)"},
                    {"name": "region_label", "type": "VARCHAR(16)"},
                ],
                "view_sql": "SELECT `o`.`customer_id` AS `customer_id`, "
                "UPPER(`o`.`region`) AS `region_label` "
                f"FROM `{d}`.`lineage_orders` AS `o` WHERE `o`.`status` = 'PAID'",
                "view_dialect": "doris",
            },
        ],
    }
    loaded = assert_round_trip(doc, mariadb.url, "doris", tmp_path)
    assert loaded.table(ref(d, "Orders_Mixed")).column_names == ("customerid", "total amount")


def test_mariadb_dump_defaults_to_the_urls_database(mariadb: LiveDb, tmp_path: Path) -> None:
    url = sa.make_url(mariadb.url).set(database=mariadb.database)
    doc = dump_catalog(url, dialect="doris")
    assert doc["default_database"] == mariadb.database
    assert [(t["database"], t["name"]) for t in doc["tables"]] == [
        (mariadb.database, "Orders_Mixed"),
        (mariadb.database, "lineage_customers"),
        (mariadb.database, "lineage_orders"),
        (mariadb.database, "paid_orders"),
    ]
    loaded = assert_round_trip(doc, url, "doris", tmp_path)
    # Asked without a database, a name resolves in the URL's database, as it does live.
    assert loaded.table(ref(None, "lineage_orders")) == loaded.table(ref(mariadb.database, "lineage_orders"))


def test_mariadb_dump_without_a_database_in_the_url_takes_every_user_database(mariadb: LiveDb) -> None:
    doc = dump_catalog(without_database(mariadb.url), dialect="doris")
    databases = {t["database"] for t in doc["tables"]}
    assert mariadb.database in databases
    assert databases.isdisjoint({"mysql", "information_schema", "performance_schema", "sys"})
    assert "default_database" not in doc


def test_dump_of_a_missing_database(mariadb: LiveDb) -> None:
    with pytest.raises(CatalogError) as info:
        dump_catalog(mariadb.url, ["hw_no_such_database"])
    assert str(info.value) == "no database 'hw_no_such_database' at mysql+pymysql://root@127.0.0.1:3306/test"


def test_dump_connection_failure() -> None:
    with pytest.raises(CatalogConnectionError) as info:
        dump_catalog("mysql+pymysql://root:s3cretpw@127.0.0.1:1/test")
    assert str(info.value).startswith("cannot connect to mysql+pymysql://root:***@127.0.0.1:1/test: ")
    assert "s3cretpw" not in str(info.value)


# ---------------------------------------------------------------- PostgreSQL


def test_postgres_dump(postgres: LiveDb, tmp_path: Path) -> None:
    s = postgres.database
    doc = dump_catalog(postgres.url, [s], dialect="postgres")
    assert doc["dialect"] == "postgres"
    assert doc["source"] == "postgresql+psycopg://postgres@127.0.0.1:5432/test"
    assert doc["default_database"] == "public"
    assert [(t["name"], t["kind"], [c["name"] for c in t["columns"]]) for t in doc["tables"]] == [
        ("MixedCase", "table", ["Id", "plain"]),
        ("orders", "table", ["order_id", "customer_id", "region", "amount", "status"]),
        ("paid", "view", ["customer_id", "total"]),
        ("regions", "view", ["region"]),
    ]
    assert doc["tables"][3]["view_sql"] == f"SELECT DISTINCT orders.region\n   FROM {s}.orders"
    loaded = assert_round_trip(doc, postgres.url, "postgres", tmp_path)
    assert loaded.table(ref(s, "MixedCase")) == TableSchema(
        (ColumnSchema("Id", "INTEGER"), ColumnSchema("plain", "TEXT"))
    )
    assert loaded.table(ref(s, "mixedcase")) is None


def test_postgres_dump_defaults_to_every_user_schema(postgres: LiveDb) -> None:
    doc = dump_catalog(postgres.url, dialect="postgres")
    schemas = {t["database"] for t in doc["tables"]}
    assert postgres.database in schemas
    assert not any(s == "information_schema" or s.startswith("pg_") for s in schemas)


# ---------------------------------------------------------------- SQLite


def test_sqlite_dump(tmp_path: Path) -> None:
    path = tmp_path / "w.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE orders (id INTEGER, amount REAL)")
        db.execute("CREATE VIEW big AS SELECT id FROM orders WHERE amount > 100")
    db.close()
    url = f"sqlite:///{path}"
    doc = dump_catalog(url, dialect="sqlite")
    assert doc["tables"] == [
        {
            "catalog": "internal",
            "database": "main",
            "name": "big",
            "kind": "view",
            "columns": [{"name": "id", "type": "INTEGER"}],
            "view_sql": "SELECT id FROM orders WHERE amount > 100",
            "view_dialect": "sqlite",
        },
        {
            "catalog": "internal",
            "database": "main",
            "name": "orders",
            "kind": "table",
            "columns": [{"name": "id", "type": "INTEGER"}, {"name": "amount", "type": "REAL"}],
        },
    ]
    loaded = assert_round_trip(doc, url, "sqlite", tmp_path)
    assert loaded.table(ref(None, "orders")) == loaded.table(ref("main", "orders"))


# ---------------------------------------------------------------- the CLI


def test_cli_dump_to_stdout_reads_back(mariadb: LiveDb, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["catalog", "dump", "--catalog-url", mariadb.url, "--database", mariadb.database])
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == dump_catalog(mariadb.url, [mariadb.database])
    assert result.stderr == "3 tables and 1 views from mysql+pymysql://root@127.0.0.1:3306/test\n"
    path = tmp_path / "schema.json"
    path.write_text(result.stdout, encoding="utf-8")
    assert load_schema_file(path).table(ref(mariadb.database, "lineage_orders")).column_names == (
        "order_id",
        "customer_id",
        "region",
        "amount",
        "status",
    )


def test_cli_dump_to_a_file(postgres: LiveDb, tmp_path: Path) -> None:
    out = tmp_path / "pg.json"
    args = [
        "catalog",
        "dump",
        "--catalog-url",
        postgres.url,
        "-d",
        postgres.database,
        "--dialect",
        "postgres",
        "-o",
        str(out),
    ]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ""
    assert json.loads(out.read_text(encoding="utf-8")) == dump_catalog(
        postgres.url, [postgres.database], dialect="postgres"
    )


def test_cli_dump_errors() -> None:
    runner = CliRunner()
    result = runner.invoke(
        app, ["catalog", "dump", "--catalog-url", "postgresql+psycopg://postgres:s3cretpw@127.0.0.1:1/x"]
    )
    assert result.exit_code == 2  # as extract and ingest (issue 36: one exit code for a connection error)
    assert result.stdout == ""
    assert result.stderr.startswith("error: cannot connect to postgresql+psycopg://postgres:***@127.0.0.1:1/x: ")
    assert "s3cretpw" not in result.stderr
    result = runner.invoke(app, ["catalog", "dump", "--catalog-url", "sqlite://", "--dialect", "nosuch"])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: --dialect: unknown dialect 'nosuch'; one of: ")
    assert runner.invoke(app, ["catalog", "dump"]).exit_code == 2


# ---------------------------------------------------------------- open_catalog


def test_open_catalog_combines_file_then_live(mariadb: LiveDb, tmp_path: Path) -> None:
    d = mariadb.database
    path = tmp_path / "s.yaml"
    path.write_text(f"{d}:\n  lineage_orders: [only_in_file]\nbare_table: {{x: int}}\n", encoding="utf-8")
    cat = open_catalog(str(path), mariadb.url, "doris")
    assert isinstance(cat, ChainCatalog)
    assert cat.table(ref(d, "lineage_orders")) == TableSchema((ColumnSchema("only_in_file"),))
    assert cat.table(ref(d, "lineage_customers")).column_names == (
        "customer_id",
        "customer_name",
        "customer_level",
    )
    assert cat.table(ref(d, "bare_table")) == TableSchema((ColumnSchema("x", "int"),))
    assert cat.table(ref(d, "nowhere")) is None


def test_open_catalog_single_sources(mariadb: LiveDb, tmp_path: Path) -> None:
    assert open_catalog(None, None, "doris") is None
    path = tmp_path / "s.json"
    path.write_text('{"t": {"a": "int"}}', encoding="utf-8")
    assert isinstance(open_catalog(path, None, "generic"), SchemaFileCatalog)
    live = open_catalog(None, mariadb.url, "doris")
    assert isinstance(live, SqlAlchemyCatalog)
    assert live.table(ref(mariadb.database, "lineage_orders")) is not None


def test_open_catalog_fails_at_once_on_a_bad_url() -> None:
    with pytest.raises(CatalogConnectionError) as info:
        open_catalog(None, "mysql+pymysql://root:pw@127.0.0.1:1/test", "doris")
    assert str(info.value).startswith("cannot connect to mysql+pymysql://root:***@127.0.0.1:1/test: ")
