"""Real databases of this machine: a throw-away MariaDB database and PostgreSQL schema per test.

The URLs can be changed with ``HEADWATER_TEST_MYSQL_URL`` and ``HEADWATER_TEST_POSTGRES_URL``.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
import sqlalchemy as sa

MYSQL_URL = os.environ.get("HEADWATER_TEST_MYSQL_URL", "mysql+pymysql://root@127.0.0.1:3306/test")
POSTGRES_URL = os.environ.get("HEADWATER_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


@dataclass
class LiveDb:
    url: str  # connects to the server's `test` database
    database: str  # the throw-away database (MariaDB) or schema (PostgreSQL) holding the tables
    engine: sa.Engine

    def run(self, *statements: str) -> None:
        with self.engine.begin() as conn:
            for sql in statements:
                conn.execute(sa.text(sql))


def without_database(url: str) -> sa.URL:
    """``url`` naming no database (``URL.set(database=None)`` would keep it)."""
    return sa.make_url(url)._replace(database=None)


def _name() -> str:
    return f"hw_cat_{uuid.uuid4().hex[:10]}"


@pytest.fixture
def mariadb() -> Iterator[LiveDb]:
    """A fresh MariaDB database with the Doris guide's source tables, a mixed-case table and a view."""
    engine = sa.create_engine(MYSQL_URL)
    db = LiveDb(MYSQL_URL, _name(), engine)
    db.run(f"CREATE DATABASE `{db.database}`")
    try:
        d = db.database
        db.run(
            f"CREATE TABLE `{d}`.lineage_orders (order_id BIGINT, customer_id BIGINT, region VARCHAR(16), "
            "amount DECIMAL(18, 2), status VARCHAR(16))",
            f"CREATE TABLE `{d}`.lineage_customers (customer_id BIGINT, customer_name VARCHAR(64), "
            "customer_level VARCHAR(16))",
            f"CREATE TABLE `{d}`.Orders_Mixed (CustomerId BIGINT NOT NULL, `Total Amount` DOUBLE)",
            f"CREATE VIEW `{d}`.paid_orders AS SELECT o.customer_id, UPPER(o.region) AS region_label "
            f"FROM `{d}`.lineage_orders o WHERE o.status = 'PAID'",
        )
        yield db
    finally:
        db.run(f"DROP DATABASE IF EXISTS `{db.database}`")
        engine.dispose()


@pytest.fixture
def postgres() -> Iterator[LiveDb]:
    """A fresh PostgreSQL schema: a table, a quoted mixed-case table, a view and a materialized view."""
    engine = sa.create_engine(POSTGRES_URL)
    db = LiveDb(POSTGRES_URL, _name(), engine)
    db.run(f'CREATE SCHEMA "{db.database}"')
    try:
        s = db.database
        db.run(
            f'CREATE TABLE "{s}".orders (order_id BIGINT, customer_id BIGINT, region VARCHAR(16), '
            "amount NUMERIC(18, 2), status VARCHAR(16))",
            f'CREATE TABLE "{s}"."MixedCase" ("Id" INTEGER, plain TEXT)',
            f'CREATE VIEW "{s}".paid AS SELECT customer_id, SUM(amount) AS total FROM "{s}".orders '
            "WHERE status = 'PAID' GROUP BY customer_id",
            f'CREATE MATERIALIZED VIEW "{s}".regions AS SELECT DISTINCT region FROM "{s}".orders',
        )
        yield db
    finally:
        db.run(f'DROP SCHEMA IF EXISTS "{db.database}" CASCADE')
        engine.dispose()
