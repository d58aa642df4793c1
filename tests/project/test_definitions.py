"""Tables known only from recorded DDL (issue 11, deliverable 2): a ``CREATE TABLE`` with columns that
no statement writes is recorded as catalog knowledge, so a statement file ingested alone later binds
to it. On SQLite and PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from typer.testing import CliRunner

from headwater.cli.main import app
from headwater.store import open_store

runner = CliRunner()

DDL = """CREATE DATABASE IF NOT EXISTS shop;
CREATE TABLE shop.orders (order_id BIGINT, customer_id BIGINT, amount DECIMAL(18, 2), status STRING);
CREATE TEMPORARY TABLE scratch (x INT);
"""
LOAD = "CREATE TABLE shop.paid AS SELECT * FROM shop.orders WHERE status = 'PAID';\n"


def _ingest(url: str, path: Path, *extra: str) -> str:
    result = runner.invoke(app, ["ingest", str(path), "--dialect", "spark", "--store", url, *extra])
    assert result.exit_code == 0, result.output
    return result.output


def _columns(url: str, table: str) -> list[str]:
    with open_store(url).engine.connect() as conn:
        q = "SELECT n.name FROM hw_nodes n JOIN hw_nodes d ON d.id = n.parent_id WHERE d.name = :t ORDER BY n.name"
        return [n.rsplit(".", 1)[1] for n in conn.execute(sa.text(q), {"t": f"internal.{table}"}).scalars()]


def test_a_ddl_file_then_a_statement_file_alone(store_url: str, tmp_path: Path) -> None:
    (tmp_path / "ddl.sql").write_text(DDL)
    (tmp_path / "load.sql").write_text(LOAD)
    out = _ingest(store_url, tmp_path / "ddl.sql")
    assert "table definitions recorded (DDL, for later statements to bind): 1\n" in out, out  # not the temporary one
    again = _ingest(store_url, tmp_path / "ddl.sql")
    assert "table definitions recorded" not in again, again  # the same DDL: nothing new

    out = _ingest(store_url, tmp_path / "load.sql", "--strict")  # a command of its own, no schema file
    assert "not COMPLETE" not in out, out
    assert _columns(store_url, "shop.paid") == ["amount", "customer_id", "order_id", "status"]
    store = open_store(store_url)
    origin = store.get_field_origin("shop.paid.amount", level="direct").origins
    assert [o.field.name for o in origin] == ["internal.shop.orders.amount"]
    with store.engine.connect() as conn:  # the DDL is no job: nothing writes shop.orders
        jobs = conn.execute(sa.text("SELECT name FROM hw_nodes WHERE type = 'JOB'")).scalars().all()
    assert jobs == ["job:load.sql#1"]
    assert store.get_upstream("shop.orders", max_depth=1).nodes[1:] == []


def test_a_changed_ddl_describes_the_table_from_then_on(sqlite_url: str, tmp_path: Path) -> None:
    (tmp_path / "ddl.sql").write_text(DDL)
    _ingest(sqlite_url, tmp_path / "ddl.sql")
    (tmp_path / "ddl.sql").write_text(DDL.replace("status STRING", "status STRING, channel STRING"))
    out = _ingest(sqlite_url, tmp_path / "ddl.sql")
    assert "table definitions recorded (DDL, for later statements to bind): 1\n" in out, out
    (tmp_path / "load.sql").write_text(LOAD)
    _ingest(sqlite_url, tmp_path / "load.sql", "--strict")
    assert _columns(sqlite_url, "shop.paid") == ["amount", "channel", "customer_id", "order_id", "status"]
