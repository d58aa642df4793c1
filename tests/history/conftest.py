"""Real databases for the history tests: a MariaDB audit table, SQLite and PostgreSQL stores.

Nothing is skipped: if MariaDB or PostgreSQL is down, these fixtures fail.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from tests.pg_schema import fresh_schema_url

from headwater.history.synthetic import write_table
from headwater.model import event_to_json
from headwater.store import open_store

MARIADB_URL = "mysql+pymysql://root@127.0.0.1:3306/test"

GUIDE_SQL = Path(__file__).resolve().parents[2] / "src/headwater/extract/examples/doris_guide.sql"
T0 = datetime(2024, 5, 1, 10, 0, 0)


def guide_statements() -> list[str]:
    return [s.strip() for s in GUIDE_SQL.read_text().split(";") if s.strip()]


def row(
    qid: str,
    stmt: str,
    t: datetime,
    *,
    client: str = "192.0.2.10:51234",
    user: str = "lineage_user",
    db: str = "lineage_demo",
    state: str = "OK",
    error_code: int = 0,
    query_time: int = 25,
    fe: str = "172.16.0.1",
) -> dict[str, Any]:
    """An audit row (the ``__internal_schema.audit_log`` columns)."""
    return {
        "query_id": qid,
        "time": t,
        "client_ip": client,
        "user": user,
        "catalog": "internal",
        "db": db,
        "state": state,
        "error_code": error_code,
        "error_message": "" if not error_code else "errCode = 2, detailMessage = failed",
        "query_time": query_time,
        "stmt_id": 0,
        "frontend_ip": fe,
        "stmt": stmt,
    }


def guide_mix() -> list[dict[str, Any]]:
    """The guide's script in one session, and a realistic mix in a second one (16 rows)."""
    rows = []
    t = T0
    for k, stmt in enumerate(guide_statements(), 1):
        db = "" if k == 1 else "lineage_demo"
        state = "EOF" if stmt.upper().startswith("SELECT") else "OK"
        qid = "guide-insert" if "lineage_customer_summary\nWITH" in stmt else f"guide-{k}"
        rows.append(row(qid, stmt, t, db=db, state=state, query_time=250 if qid == "guide-insert" else 20))
        t += timedelta(seconds=1)
    s2 = {"client": "192.0.2.11:40000", "user": "etl"}
    t = T0 + timedelta(minutes=5)
    mix = [
        ("mix-failed", "INSERT INTO lineage_customer_summary SELECT * FROM lineage_orders", "ERR", 1105),
        ("mix-load", 'LOAD LABEL lineage_demo.l1 (DATA INFILE("hdfs://nn/o.csv") INTO TABLE lineage_orders)', "OK", 0),
        ("mix-internal", "INSERT INTO __internal_schema.audit_log SELECT * FROM lineage_orders", "OK", 0),
        ("mix-broken", "INSERT INTO lineage_orders SELECT FROM WHERE", "OK", 0),
        (
            "mix-ctas",
            "CREATE TABLE region_totals AS SELECT region, SUM(amount) AS total FROM lineage_orders GROUP BY region",
            "OK",
            0,
        ),
        (
            "mix-overwrite",
            "INSERT OVERWRITE TABLE region_totals SELECT region, SUM(amount) FROM lineage_orders "
            "WHERE status = 'PAID' GROUP BY region",
            "OK",
            0,
        ),
        ("mix-ok-with-error", "INSERT INTO region_totals SELECT region, amount FROM lineage_orders", "OK", 1064),
    ]
    for qid, stmt, state, code in mix:
        rows.append(row(qid, stmt, t, state=state, error_code=code, **s2))
        t += timedelta(seconds=2)
    rows.sort(key=lambda r: r["time"])
    for i, r in enumerate(rows, 1):
        r["stmt_id"] = i
    return rows


def event_jsons(events: Any) -> list[str]:
    return sorted(event_to_json(e) for e in events)


def store_dump(url: str) -> tuple[list, list, list]:
    """The store's contents without recording times: events, nodes and edges (by name)."""
    engine = open_store(url).engine
    with engine.connect() as conn:
        events = conn.execute(
            sa.text("SELECT event_id, kind, run_key, event_us, status, payload FROM hw_events")
        ).fetchall()
        nodes = conn.execute(sa.text("SELECT type, name, short, properties FROM hw_nodes")).fetchall()
        edges = conn.execute(
            sa.text(
                "SELECT e.type, s.name, d.name, e.subtype, e.dependency, e.expression, e.labels, e.masking, "
                "e.valid_from, e.valid_to FROM hw_edges e JOIN hw_nodes s ON s.id = e.src_id "
                "JOIN hw_nodes d ON d.id = e.dst_id"
            )
        ).fetchall()
    return sorted(map(tuple, events)), sorted(map(tuple, nodes), key=repr), sorted(map(tuple, edges), key=repr)


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'lineage.db'}"


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A PostgreSQL store URL in a fresh schema, dropped afterwards (fails if PostgreSQL is down)."""
    with fresh_schema_url("hw_hist") as url:
        yield url


@pytest.fixture
def audit_table() -> Iterator[Callable[[list[dict[str, Any]]], str]]:
    """Create audit-log-shaped tables in MariaDB's ``test`` database; returns the table name."""
    engine = sa.create_engine(MARIADB_URL)
    made: list[str] = []

    def make(rows: list[dict[str, Any]]) -> str:
        name = f"hw_audit_{uuid.uuid4().hex[:10]}"
        write_table(rows, engine, name)
        made.append(name)
        return f"test.{name}"

    yield make
    with engine.begin() as conn:
        for name in made:
            conn.execute(sa.text(f"DROP TABLE IF EXISTS `{name}`"))
    engine.dispose()
