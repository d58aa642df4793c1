"""A generated Doris-style query history, for tests, benchmarks and trying ``ingest-log`` out.

``generate_log(n)`` gives ``n`` audit rows (the ``__internal_schema.audit_log`` columns) in time
order across many sessions: INSERT … SELECT / INSERT OVERWRITE / CTAS over a small shop warehouse
(``synthetic_schema()``), session-local CTAS and views read by later statements of the session,
``USE`` switches, SELECTs, VALUES inserts, loads, ``SET``/``SHOW``, writes to ``__internal_schema``,
statements that failed in the database (state ``ERR``), and statements that do not parse. Extra
statements (e.g. TPC-DS-shaped inserts) can be mixed in. The same ``seed`` gives the same log.

Writers: ``write_jsonl``, ``write_csv``, ``write_audit_file`` (``fe.audit.log`` lines) and
``write_table`` (any SQLAlchemy database). ``generate_rerun_log`` makes a log of scheduled re-runs
(the same statements with other literals), for the reuse of extracted statements.

>>> rows = generate_log(200, seed=1)
>>> len(rows), sorted({r["state"] for r in rows})
(200, ['EOF', 'ERR', 'OK'])
"""

from __future__ import annotations

import csv
import json
import random
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import sqlalchemy as sa

COLUMNS = (
    "query_id",
    "time",
    "client_ip",
    "user",
    "catalog",
    "db",
    "state",
    "error_code",
    "error_message",
    "query_time",
    "stmt_id",
    "frontend_ip",
    "stmt",
)

TABLES: dict[str, dict[str, str]] = {
    "orders": {
        "order_id": "BIGINT",
        "customer_id": "BIGINT",
        "region": "VARCHAR(16)",
        "amount": "DECIMAL(18,2)",
        "status": "VARCHAR(16)",
        "order_date": "DATE",
    },
    "customers": {
        "customer_id": "BIGINT",
        "customer_name": "VARCHAR(64)",
        "customer_level": "VARCHAR(16)",
        "country": "VARCHAR(32)",
    },
    "products": {"product_id": "BIGINT", "name": "VARCHAR(64)", "category": "VARCHAR(32)", "price": "DECIMAL(18,2)"},
    "order_items": {"order_id": "BIGINT", "product_id": "BIGINT", "qty": "INT", "price": "DECIMAL(18,2)"},
    "daily_sales": {"order_date": "DATE", "region": "VARCHAR(16)", "total": "DECIMAL(18,2)"},
    "customer_summary": {
        "customer_id": "BIGINT",
        "region_label": "VARCHAR(16)",
        "total_amount": "DECIMAL(18,2)",
        "order_count": "BIGINT",
    },
    "product_stats": {"product_id": "BIGINT", "category": "VARCHAR(32)", "revenue": "DECIMAL(18,2)"},
    "vip_orders": {"order_id": "BIGINT", "customer_name": "VARCHAR(64)", "amount": "DECIMAL(18,2)"},
}
DATABASES = ("shop_east", "shop_west", "shop_north")
USERS = ("etl", "analyst", "lineage_user", "bi")

_INSERTS = (
    "INSERT INTO daily_sales SELECT order_date, region, SUM(amount) FROM orders WHERE status = '{status}' "
    "GROUP BY order_date, region",
    "INSERT INTO customer_summary\nSELECT o.customer_id, UPPER(o.region), SUM(o.amount), COUNT(*)\n"
    "FROM orders o JOIN customers c ON o.customer_id = c.customer_id\nWHERE c.customer_level = '{level}'\n"
    "GROUP BY o.customer_id, UPPER(o.region)",
    "INSERT OVERWRITE TABLE product_stats SELECT p.product_id, p.category, SUM(i.qty * i.price) "
    "FROM order_items i JOIN products p ON i.product_id = p.product_id WHERE i.qty > {n} "
    "GROUP BY p.product_id, p.category",
    "INSERT INTO vip_orders WITH v AS (SELECT customer_id, customer_name FROM customers "
    "WHERE customer_level = 'VIP') SELECT o.order_id, v.customer_name, o.amount FROM orders o "
    "JOIN v ON o.customer_id = v.customer_id WHERE o.amount > {n}",
    "INSERT INTO customer_summary (customer_id, total_amount) SELECT customer_id, "
    "CASE WHEN SUM(amount) > {n} THEN SUM(amount) ELSE 0 END FROM orders GROUP BY customer_id",
)
_SELECTS = (
    "SELECT region, SUM(amount) FROM orders WHERE order_date >= '{date}' GROUP BY region",
    "SELECT c.customer_name, o.amount FROM orders o JOIN customers c ON o.customer_id = c.customer_id LIMIT {n}",
    "SELECT * FROM daily_sales ORDER BY total DESC LIMIT {n}",
)
_OTHERS = (
    "SET query_timeout = {n}",
    "SHOW TABLES",
    'LOAD LABEL {db}.label_{n} (DATA INFILE("hdfs://nn/orders/{n}.csv") INTO TABLE orders) WITH BROKER hdfs',
    "INSERT INTO __internal_schema.audit_log SELECT * FROM orders WHERE amount > {n}",
    "DELETE FROM orders WHERE order_id = {n}",
)
_BROKEN = (
    "INSERT INTO daily_sales SELECT order_date, region, SUM(amount FROM orders GROUP BY order_date, region",
    "INSERT INTO vip_orders SELECT order_id, FROM orders WHERE",
)


def synthetic_schema() -> dict[str, dict[str, str]]:
    """The warehouse of ``generate_log`` as a schema file (``db.table`` → columns) for every database."""
    return {f"{db}.{t}": dict(cols) for db in DATABASES for t, cols in TABLES.items()}


def _query_id(rng: random.Random) -> str:
    return f"{rng.getrandbits(64):016x}-{rng.getrandbits(64):016x}"


def _fill(template: str, rng: random.Random, db: str) -> str:
    return template.format(
        status=rng.choice(("PAID", "SHIPPED", "CANCELLED")),
        level=rng.choice(("VIP", "REGULAR")),
        n=rng.randint(1, 5000),
        date=f"2024-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}",
        db=db,
    )


def _statement(
    rng: random.Random, db: str, sid: int, k: int, extra: Sequence[str], extra_selects: Sequence[str]
) -> str:
    roll = rng.random()
    if roll < 0.30:
        return _fill(rng.choice(_INSERTS), rng, db)
    if roll < 0.30 + (0.15 if extra else 0):
        return rng.choice(extra)
    if roll < 0.62:
        if extra_selects and rng.random() < 0.5:
            return rng.choice(extra_selects)
        return _fill(rng.choice(_SELECTS), rng, db)
    if roll < 0.72:
        return f"INSERT INTO orders VALUES ({k}, {sid}, 'east', {rng.randint(1, 999)}.00, 'PAID', '2024-05-01')"
    if roll < 0.90:
        return _fill(rng.choice(_OTHERS), rng, db)
    if roll < 0.95:
        return rng.choice(_BROKEN)
    return f"INSERT INTO daily_sales SELECT order_date, region, SUM(amount) FROM tmp_{sid} GROUP BY order_date, region"


_SHAPES = (
    "INSERT INTO daily_sales SELECT order_date AS d{i}, region, SUM(amount) FROM orders "
    "WHERE status = '{status}' AND order_date >= '{date}' GROUP BY order_date, region",
    "INSERT INTO customer_summary SELECT o.customer_id AS k{i}, UPPER(o.region), SUM(o.amount), COUNT(*) "
    "FROM orders o JOIN customers c ON o.customer_id = c.customer_id WHERE c.customer_level = '{level}' "
    "AND o.order_date < '{date}' GROUP BY o.customer_id, UPPER(o.region)",
    "INSERT OVERWRITE TABLE product_stats SELECT p.product_id AS k{i}, p.category, SUM(i.qty * i.price) "
    "FROM order_items i JOIN products p ON i.product_id = p.product_id WHERE i.qty > {n} "
    "GROUP BY p.product_id, p.category",
    "INSERT INTO vip_orders WITH v{i} AS (SELECT customer_id, customer_name FROM customers "
    "WHERE customer_level = '{level}') SELECT o.order_id, v{i}.customer_name, o.amount FROM orders o "
    "JOIN v{i} ON o.customer_id = v{i}.customer_id WHERE o.amount > {n}",
    "SELECT region AS r{i}, SUM(amount) FROM orders WHERE order_date >= '{date}' GROUP BY region",
)


def generate_rerun_log(n: int, *, distinct: int = 1000, seed: int = 0, per_session: int = 50) -> list[dict[str, Any]]:
    """``n`` audit rows that run ``distinct`` statements, each once first, the other ``n - distinct``
    rows re-runs of them with other literals (dates, statuses, numbers), as scheduled jobs do:
    ``n=10_000, distinct=1_000`` is a log of which 90 % of rows are re-runs.

    >>> rows = generate_rerun_log(100, distinct=10, seed=1)
    >>> len(rows), len({r["stmt"] for r in rows}) > 10
    (100, True)
    """
    rng = random.Random(seed)
    known = [_SHAPES[i % len(_SHAPES)].replace("{i}", str(i)) for i in range(distinct)]
    order = known + [rng.choice(known) for _ in range(max(0, n - distinct))]
    rng.shuffle(order)
    rows: list[dict[str, Any]] = []
    t = datetime(2024, 5, 1, 8, 0, 0)
    for k, shape in enumerate(order[:n]):
        db = DATABASES[0]
        stmt = _fill(shape, rng, db)
        t += timedelta(milliseconds=rng.randint(1, 2000))
        rows.append(
            {
                "query_id": _query_id(rng),
                "time": t,
                "client_ip": f"10.0.{k // per_session % 250}.7:40000",
                "user": rng.choice(USERS),
                "catalog": "internal",
                "db": db,
                "state": "EOF" if stmt.startswith("SELECT") else "OK",
                "error_code": 0,
                "error_message": "",
                "query_time": rng.randint(3, 4000),
                "stmt_id": k + 1,
                "frontend_ip": "172.16.0.1",
                "stmt": stmt,
            }
        )
    return rows


def generate_log(
    n: int,
    *,
    seed: int = 0,
    per_session: int = 50,
    start: datetime = datetime(2024, 5, 1, 8, 0, 0),
    extra_inserts: Sequence[str] = (),
    extra_selects: Sequence[str] = (),
    failed_share: float = 0.06,
) -> list[dict[str, Any]]:
    """``n`` audit rows in time order; see the module docstring."""
    rng = random.Random(seed)
    rows: list[dict[str, Any]] = []
    sessions = max(1, n // per_session)
    for sid in range(sessions):
        count = n // sessions + (1 if sid < n % sessions else 0)
        t = start + timedelta(seconds=rng.randint(0, 86_400), milliseconds=rng.randint(0, 999))
        db = rng.choice(DATABASES)
        client = f"10.{sid // 250 % 250}.{sid % 250}.{rng.randint(2, 250)}:{rng.randint(20000, 60000)}"
        user, fe = rng.choice(USERS), f"172.16.0.{1 + sid % 3}"
        plan: list[str] = []
        if count >= 4:
            plan = [
                f"USE {db}",
                f"CREATE TABLE tmp_{sid} AS SELECT order_date, region, amount FROM orders WHERE status = 'PAID'",
            ]
        for k in range(count):
            stmt = plan[k] if k < len(plan) else _statement(rng, db, sid, k, extra_inserts, extra_selects)
            if k >= len(plan) and rng.random() < 0.03:
                db = rng.choice(DATABASES)
                stmt = f"USE {db}"
            failed = k >= len(plan) and rng.random() < failed_share
            duration = rng.randint(3, 4000)
            rows.append(
                {
                    "query_id": _query_id(rng),
                    "time": t,
                    "client_ip": client,
                    "user": user,
                    "catalog": "internal",
                    "db": db,
                    "state": "ERR" if failed else ("EOF" if stmt.startswith(("SELECT", "SHOW")) else "OK"),
                    "error_code": 1105 if failed else 0,
                    "error_message": "errCode = 2, detailMessage = table not found" if failed else "",
                    "query_time": duration,
                    "stmt_id": 0,
                    "frontend_ip": fe,
                    "stmt": stmt,
                }
            )
            t += timedelta(milliseconds=duration + rng.randint(1, 5000))
    rows.sort(key=lambda r: (r["time"], r["query_id"]))
    for i, r in enumerate(rows, 1):
        r["stmt_id"] = i
    return rows


def _iso(t: datetime) -> str:
    return t.isoformat(sep=" ", timespec="milliseconds")


def write_jsonl(rows: Iterable[dict[str, Any]], path: str | Path) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps({**r, "time": _iso(r["time"])}, ensure_ascii=False) + "\n")


def write_csv(rows: Iterable[dict[str, Any]], path: str | Path) -> None:
    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=COLUMNS)
        w.writeheader()
        for r in rows:
            w.writerow({**r, "time": _iso(r["time"])})


def audit_line(r: dict[str, Any]) -> str:
    """The ``fe.audit.log`` line Doris writes for a row (logged when the statement ends)."""
    logged = r["time"] + timedelta(milliseconds=r["query_time"])
    stmt = r["stmt"].replace("\n", "\\n")
    return (
        f"{logged:%Y-%m-%d %H:%M:%S},{logged.microsecond // 1000:03d} [query] |Client={r['client_ip']}"
        f"|User={r['user']}|Ctl={r['catalog']}|Db={r['db']}|CommandType=Query|State={r['state']}"
        f"|ErrorCode={r['error_code']}|ErrorMessage={r['error_message']}|Time(ms)={r['query_time']}"
        f"|ScanBytes=0|ScanRows=0|ReturnRows=0|StmtId={r['stmt_id']}|QueryId={r['query_id']}|IsQuery=false"
        f"|isNereids=true|feIp={r['frontend_ip']}|StmtType=|Stmt={stmt}|CpuTimeMS=1|ShuffleSendBytes=0"
        f"|ShuffleSendRows=0|SqlHash=|peakMemoryBytes=0|SqlDigest=|TraceId=|WorkloadGroup=normal|FuzzyVariables="
    )


def write_audit_file(rows: Iterable[dict[str, Any]], path: str | Path) -> None:
    """``fe.audit.log`` lines in the order Doris logs them (by end time)."""
    ordered = sorted(rows, key=lambda r: (r["time"] + timedelta(milliseconds=r["query_time"]), r["stmt_id"]))
    with open(path, "w", encoding="utf-8") as fh:
        for r in ordered:
            fh.write(audit_line(r) + "\n")


def audit_table(name: str, schema: str | None = None, metadata: sa.MetaData | None = None) -> sa.Table:
    """A table shaped like Doris's ``__internal_schema.audit_log``."""
    return sa.Table(
        name,
        metadata or sa.MetaData(),
        sa.Column("query_id", sa.String(48)),
        sa.Column("time", sa.DateTime),
        sa.Column("client_ip", sa.String(128)),
        sa.Column("user", sa.String(128)),
        sa.Column("catalog", sa.String(128)),
        sa.Column("db", sa.String(128)),
        sa.Column("state", sa.String(128)),
        sa.Column("error_code", sa.Integer),
        sa.Column("error_message", sa.Text),
        sa.Column("query_time", sa.BigInteger),
        sa.Column("scan_bytes", sa.BigInteger),
        sa.Column("scan_rows", sa.BigInteger),
        sa.Column("return_rows", sa.BigInteger),
        sa.Column("stmt_id", sa.BigInteger),
        sa.Column("is_query", sa.SmallInteger),
        sa.Column("frontend_ip", sa.String(128)),
        sa.Column("cpu_time_ms", sa.BigInteger),
        sa.Column("sql_hash", sa.String(128)),
        sa.Column("sql_digest", sa.String(128)),
        sa.Column("peak_memory_bytes", sa.BigInteger),
        sa.Column("workload_group", sa.String(128)),
        sa.Column("stmt", sa.Text),
        schema=schema,
    )


def write_table(rows: Sequence[dict[str, Any]], engine: sa.Engine, name: str, schema: str | None = None) -> sa.Table:
    """Create an audit-log-shaped table (``DATETIME(3)`` times on MySQL/MariaDB) and insert ``rows``."""
    table = audit_table(name, schema)
    if engine.dialect.name in ("mysql", "mariadb"):
        from sqlalchemy.dialects.mysql import DATETIME

        table.c.time.type = DATETIME(fsp=3)
    table.create(engine)
    with engine.begin() as conn:
        for start in range(0, len(rows), 1000):
            conn.execute(table.insert(), [dict(r) for r in rows[start : start + 1000]])
    return table
