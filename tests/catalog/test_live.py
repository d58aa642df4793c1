"""``SqlAlchemyCatalog`` against the MariaDB, PostgreSQL and SQLite of this machine (no mocks)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import pytest
import sqlalchemy as sa

from headwater.catalog import (
    CatalogConnectionError,
    CatalogError,
    ColumnSchema,
    SqlAlchemyCatalog,
    TableSchema,
    mask_url,
)
from headwater.model import TableRef

from .conftest import LiveDb, without_database


def ref(db: str | None, name: str, catalog: str = "internal") -> TableRef:
    return TableRef(catalog, db, name)


@contextmanager
def counting(catalog: SqlAlchemyCatalog) -> Iterator[list[str]]:
    """Every SQL statement the catalog sends while the block runs."""
    sent: list[str] = []
    lock = threading.Lock()

    def record(conn, cursor, statement, params, context, executemany) -> None:  # type: ignore[no-untyped-def]
        with lock:
            sent.append(statement)

    sa.event.listen(catalog.engine, "before_cursor_execute", record)
    try:
        yield sent
    finally:
        sa.event.remove(catalog.engine, "before_cursor_execute", record)


ORDERS_MARIADB = TableSchema(
    (
        ColumnSchema("order_id", "BIGINT(20)"),
        ColumnSchema("customer_id", "BIGINT(20)"),
        ColumnSchema("region", "VARCHAR(16)"),
        ColumnSchema("amount", "DECIMAL(18, 2)"),
        ColumnSchema("status", "VARCHAR(16)"),
    )
)


# ---------------------------------------------------------------- MariaDB (the MySQL protocol of Doris)


def test_mariadb_tables_columns_and_types(mariadb: LiveDb) -> None:
    d = mariadb.database
    with SqlAlchemyCatalog(mariadb.url, dialect="doris") as cat:
        assert cat.table(ref(d, "lineage_orders")) == ORDERS_MARIADB
        assert cat.table(ref(d, "lineage_customers")) == TableSchema(
            (
                ColumnSchema("customer_id", "BIGINT(20)"),
                ColumnSchema("customer_name", "VARCHAR(64)"),
                ColumnSchema("customer_level", "VARCHAR(16)"),
            )
        )
        # Doris/MySQL: table names are case-sensitive, column names are not (normalised to lower case).
        assert cat.table(ref(d, "Orders_Mixed")) == TableSchema(
            (ColumnSchema("customerid", "BIGINT(20)"), ColumnSchema("total amount", "DOUBLE"))
        )
        assert cat.table(ref(d, "orders_mixed")) is None


def test_mariadb_view_has_its_query(mariadb: LiveDb) -> None:
    d = mariadb.database
    with SqlAlchemyCatalog(mariadb.url, dialect="doris") as cat:
        assert cat.table(ref(d, "paid_orders")) == TableSchema(
            (ColumnSchema("customer_id", "BIGINT(20)"), ColumnSchema("region_label", "VARCHAR(16)")),
            view_sql="SELECT `o`.`customer_id` AS `customer_id`, UPPER(`o`.`region`) AS `region_label` "
            f"FROM `{d}`.`lineage_orders` AS `o` WHERE `o`.`status` = 'PAID'",
            view_dialect="doris",
        )
    with SqlAlchemyCatalog(mariadb.url, dialect="postgres") as cat:  # not a MySQL-family dialect
        assert cat.table(ref(d, "paid_orders")).view_dialect == "mysql"


def test_mariadb_unknown_names_are_none(mariadb: LiveDb) -> None:
    d = mariadb.database
    with SqlAlchemyCatalog(mariadb.url, dialect="doris") as cat:
        assert cat.table(ref(d, "no_such_table")) is None
        assert cat.table(ref("no_such_database_hw", "lineage_orders")) is None
        assert cat.table(ref(d, "lineage_orders", catalog="hive")) is None  # another catalog


def test_mariadb_no_database_means_the_urls(mariadb: LiveDb) -> None:
    url = sa.make_url(mariadb.url).set(database=mariadb.database)
    with SqlAlchemyCatalog(url, dialect="doris") as cat:
        assert cat.table(ref(None, "lineage_orders")) == ORDERS_MARIADB
    with SqlAlchemyCatalog(without_database(mariadb.url), dialect="doris") as cat:
        assert cat.table(ref(None, "lineage_orders")) is None  # no default database to look in
        assert cat.table(ref(mariadb.database, "lineage_orders")) == ORDERS_MARIADB


def test_catalog_name_is_configurable(mariadb: LiveDb) -> None:
    with SqlAlchemyCatalog(mariadb.url, dialect="doris", catalog="prod") as cat:
        assert cat.table(ref(mariadb.database, "lineage_orders", catalog="prod")) == ORDERS_MARIADB
        assert cat.table(ref(mariadb.database, "lineage_orders")) is None


# ---------------------------------------------------------------- PostgreSQL


ORDERS_PG = TableSchema(
    (
        ColumnSchema("order_id", "BIGINT"),
        ColumnSchema("customer_id", "BIGINT"),
        ColumnSchema("region", "VARCHAR(16)"),
        ColumnSchema("amount", "NUMERIC(18, 2)"),
        ColumnSchema("status", "VARCHAR(16)"),
    )
)


def test_postgres_tables_views_and_quoted_names(postgres: LiveDb) -> None:
    s = postgres.database
    with SqlAlchemyCatalog(postgres.url, dialect="postgres") as cat:
        assert cat.table(ref(s, "orders")) == ORDERS_PG
        assert cat.table(ref(s, "MixedCase")) == TableSchema(
            (ColumnSchema("Id", "INTEGER"), ColumnSchema("plain", "TEXT"))
        )
        assert cat.table(ref(s, "mixedcase")) is None
        assert cat.table(ref(s, "paid")) == TableSchema(
            (ColumnSchema("customer_id", "BIGINT"), ColumnSchema("total", "NUMERIC")),
            view_sql="SELECT orders.customer_id,\n    sum(orders.amount) AS total\n"
            f"   FROM {s}.orders\n  WHERE ((orders.status)::text = 'PAID'::text)\n"
            "  GROUP BY orders.customer_id",
            view_dialect="postgres",
        )
        assert cat.table(ref(s, "regions")) == TableSchema(
            (ColumnSchema("region", "VARCHAR(16)"),),
            view_sql=f"SELECT DISTINCT orders.region\n   FROM {s}.orders",
            view_dialect="postgres",
        )
        assert cat.table(ref("no_such_schema_hw", "orders")) is None


def test_postgres_catalog_may_be_the_database_name(postgres: LiveDb) -> None:
    s = postgres.database
    with SqlAlchemyCatalog(postgres.url, dialect="postgres") as cat:
        assert cat.table(ref(s, "orders", catalog="test")) == ORDERS_PG
        assert cat.table(ref(s, "orders", catalog="other")) is None


def test_postgres_no_database_means_the_search_path(postgres: LiveDb) -> None:
    url = f"{postgres.url}?options=-csearch_path%3D{postgres.database}"
    with SqlAlchemyCatalog(url, dialect="postgres") as cat:
        assert cat.table(ref(None, "orders")) == ORDERS_PG


# ---------------------------------------------------------------- SQLite


@pytest.fixture
def sqlite_file(tmp_path: Path) -> str:
    path = tmp_path / "warehouse.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE Orders (OrderId INTEGER, Region VARCHAR(16), Amount DECIMAL(18, 2))")
        db.execute("CREATE VIEW east AS SELECT OrderId, UPPER(Region) AS Up FROM Orders WHERE Region = 'east'")
    db.close()
    return f"sqlite:///{path}"


def test_sqlite_tables_and_views(sqlite_file: str) -> None:
    orders = TableSchema(
        (
            ColumnSchema("orderid", "INTEGER"),
            ColumnSchema("region", "VARCHAR(16)"),
            ColumnSchema("amount", "DECIMAL(18, 2)"),
        )
    )
    with SqlAlchemyCatalog(sqlite_file, dialect="sqlite") as cat:
        assert cat.table(ref(None, "orders")) == orders  # SQLite names are case-insensitive
        assert cat.table(ref("main", "orders")) == orders
        assert cat.table(ref(None, "east")) == TableSchema(
            (ColumnSchema("orderid", "INTEGER"), ColumnSchema("up")),  # no type for an expression
            view_sql="SELECT OrderId, UPPER(Region) AS Up FROM Orders WHERE Region = 'east'",
            view_dialect="sqlite",
        )
        assert cat.table(ref("attached_db", "orders")) is None
        assert cat.table(ref(None, "nope")) is None


# ---------------------------------------------------------------- laziness, cache, threads


def test_nothing_is_read_before_a_table_is_asked(sqlite_file: str) -> None:
    cat = SqlAlchemyCatalog(sqlite_file, dialect="sqlite")
    with counting(cat) as sent:
        assert sent == []
        assert cat.table(ref(None, "orders")) is not None
        first = len(sent)
        assert first > 0
        assert cat.table(ref(None, "orders")) is not None
        assert cat.table(ref("main", "orders")) is not None  # a different ref: read once more
        second = len(sent)
        assert cat.table(ref("main", "orders")) is not None
        assert cat.table(ref(None, "missing")) is None
        third = len(sent)
        assert cat.table(ref(None, "missing")) is None  # unknown tables are cached too
        assert len(sent) == third
        assert second > first
    cat.close()


def test_answers_are_cached_until_cleared(mariadb: LiveDb) -> None:
    d = mariadb.database
    with SqlAlchemyCatalog(mariadb.url, dialect="doris") as cat:
        assert cat.table(ref(d, "lineage_customers")).column_names == (
            "customer_id",
            "customer_name",
            "customer_level",
        )
        mariadb.run(f"ALTER TABLE `{d}`.lineage_customers ADD COLUMN since DATE")
        with counting(cat) as sent:
            assert cat.table(ref(d, "lineage_customers")).column_names == (
                "customer_id",
                "customer_name",
                "customer_level",
            )
            assert sent == []
        cat.clear()
        assert cat.table(ref(d, "lineage_customers")).columns[-1] == ColumnSchema("since", "DATE")


def test_concurrent_askers_share_one_read(postgres: LiveDb) -> None:
    s = postgres.database
    with SqlAlchemyCatalog(postgres.url, dialect="postgres") as single, counting(single) as alone:
        single.table(ref(s, "orders"))
    with SqlAlchemyCatalog(postgres.url, dialect="postgres") as cat, counting(cat) as sent:
        start = threading.Barrier(16)

        def ask(_: int) -> TableSchema | None:
            start.wait()
            return cat.table(ref(s, "orders"))

        with ThreadPoolExecutor(16) as pool:
            results = list(pool.map(ask, range(16)))
        assert results == [ORDERS_PG] * 16
        assert len(sent) == len(alone)


def test_many_tables_from_many_threads(postgres: LiveDb) -> None:
    s = postgres.database
    names = ["orders", "MixedCase", "paid", "regions", "nope"] * 8
    with SqlAlchemyCatalog(postgres.url, dialect="postgres") as cat:
        expected = {n: cat.table(ref(s, n)) for n in set(names)}
        cat.clear()
        with ThreadPoolExecutor(8) as pool:
            results = list(pool.map(lambda n: cat.table(ref(s, n)), names))
        assert results == [expected[n] for n in names]
        assert expected["nope"] is None


# ---------------------------------------------------------------- errors


def test_connection_failure_names_the_url_without_password() -> None:
    cat = SqlAlchemyCatalog("mysql+pymysql://lineage:s3cretpw@127.0.0.1:1/sales", dialect="doris")
    assert cat.url == "mysql+pymysql://lineage:***@127.0.0.1:1/sales"
    with pytest.raises(CatalogConnectionError) as info:
        cat.table(ref("sales", "orders"))
    message = str(info.value)
    assert message.startswith("cannot connect to mysql+pymysql://lineage:***@127.0.0.1:1/sales: (2003, ")
    assert "s3cretpw" not in message
    with pytest.raises(CatalogConnectionError):
        cat.check()


def test_postgres_connection_failure() -> None:
    cat = SqlAlchemyCatalog("postgresql+psycopg://postgres:s3cretpw@127.0.0.1:1/test", dialect="postgres")
    with pytest.raises(CatalogConnectionError) as info:
        cat.check()
    message = str(info.value)
    assert message.startswith(
        "cannot connect to postgresql+psycopg://postgres:***@127.0.0.1:1/test: connection failed:"
    )
    assert "s3cretpw" not in message


def test_wrong_password_is_not_shown(mariadb: LiveDb) -> None:
    url = sa.make_url(mariadb.url).set(username="hw_no_such_user", password="s3cretpw")
    with pytest.raises(CatalogConnectionError) as info:
        SqlAlchemyCatalog(url, dialect="doris").check()
    assert str(info.value).startswith("cannot connect to mysql+pymysql://hw_no_such_user:***@127.0.0.1:3306/test: (")
    assert "Access denied for user 'hw_no_such_user'" in str(info.value)
    assert "s3cretpw" not in str(info.value)


def test_successful_check(mariadb: LiveDb, postgres: LiveDb, sqlite_file: str) -> None:
    for url, dialect in ((mariadb.url, "doris"), (postgres.url, "postgres"), (sqlite_file, "sqlite")):
        with SqlAlchemyCatalog(url, dialect=dialect) as cat:
            cat.check()


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("not a url", "cannot use catalog URL not a url: Could not parse SQLAlchemy URL"),
        (
            "nosuchdb+driver://u:pw@h/db",
            "cannot use catalog URL nosuchdb+driver://u:***@h/db: Can't load plugin",
        ),
        (
            "mysql+mysqldb://u:pw@h/db",
            "cannot use catalog URL mysql+mysqldb://u:***@h/db: driver not installed",
        ),
    ],
)
def test_unusable_url(url: str, message: str) -> None:
    with pytest.raises(CatalogError) as info:
        SqlAlchemyCatalog(url)
    assert str(info.value).startswith(message)
    assert "pw@" not in str(info.value)


def test_mask_url() -> None:
    assert mask_url("postgresql+psycopg://u:p%40ss@h:5432/db") == "postgresql+psycopg://u:***@h:5432/db"
    assert mask_url("sqlite:///tmp/x.db") == "sqlite:///tmp/x.db"
    assert mask_url(sa.make_url("mysql+pymysql://root@h/db")) == "mysql+pymysql://root@h/db"
