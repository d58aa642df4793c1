"""Hand-built events for tests, benchmarks and plugin authors (no extraction involved).

``guide_event`` is the event of the Doris guide's example insert (extracted from the guide's script).

>>> e = guide_event("q-1")
>>> [d.type.value for d in e.direct]
['IDENTITY', 'TRANSFORMATION', 'AGGREGATION', 'TRANSFORMATION', 'TRANSFORMATION']
>>> tiny_event("q-2").context.query_id
'q-2'
"""

from __future__ import annotations

from headwater.model import (
    ColumnRef,
    DirectInput,
    DirectLineage,
    DirectType,
    Field,
    LineageInfo,
    Origin,
    QueryContext,
    SourceCommand,
    TableRef,
    Target,
    make_event_id,
)

_DB = "lineage_demo"


def _t(name: str, db: str = _DB) -> TableRef:
    return TableRef("internal", db, name)


def tiny_event(query_id: str, target: str = "t", source: str = "s", db: str = "db") -> LineageInfo:
    """``INSERT INTO <target> SELECT a FROM <source>``: one IDENTITY column."""
    tgt, src = _t(target, db), _t(source, db)
    a = ColumnRef(src, "a")
    sql = f"INSERT INTO {target} SELECT a FROM {source}"
    return LineageInfo(
        event_id=make_event_id(query_id, tgt),
        source_command=SourceCommand.INSERT_INTO,
        target=Target(tgt, (Field("a", "BIGINT"),)),
        sources=(src,),
        direct=(DirectLineage("a", f"{src.name}.a", DirectType.IDENTITY, Origin.COLUMN, (a,), (DirectInput(a),)),),
        dataset_indirect=(),
        output_indirect=(),
        context=QueryContext(SourceCommand.INSERT_INTO, query_id, sql, database=db),
    )


def guide_event(
    query_id: str = "guide-q1", user: str | None = "lineage_user", timestamp: str | None = "2026-01-01T00:00:00Z"
) -> LineageInfo:
    """The guide's example event (``INSERT INTO lineage_customer_summary WITH … SELECT …``), as extracted."""
    from headwater.extract.examples import guide_event as extracted

    return extracted(query_id, user, timestamp, duration_ms=12)


def guide_tables(s: str) -> list[str]:
    """The three table names of the guide's example, each with ``_<s>`` appended."""
    return [f"lineage_orders_{s}", f"lineage_customers_{s}", f"lineage_customer_summary_{s}"]


def guide_script(s: str) -> list[str]:
    """The guide's example script in portable SQL (no Doris table properties), one statement each."""
    orders, customers, summary = guide_tables(s)
    return [
        f"CREATE TABLE {orders} (order_id BIGINT, customer_id BIGINT, region VARCHAR(16), "
        "amount DECIMAL(18, 2), status VARCHAR(16))",
        f"CREATE TABLE {customers} (customer_id BIGINT, customer_name VARCHAR(64), customer_level VARCHAR(16))",
        f"CREATE TABLE {summary} (customer_id BIGINT, region_label VARCHAR(16), total_amount DECIMAL(18, 2), "
        "customer_seq BIGINT, region_group VARCHAR(16))",
        f"INSERT INTO {customers} VALUES (1, 'Alice', 'VIP'), (2, 'Bob', 'VIP'), (3, 'Carol', 'REGULAR')",
        f"INSERT INTO {orders} VALUES (101, 1, 'east', 100.00, 'PAID'), (102, 1, 'east', 50.00, 'PAID'), "
        "(103, 2, 'west', 80.00, 'PAID'), (104, 2, 'west', 30.00, 'CANCELLED'), (105, 3, 'north', 200.00, 'PAID')",
        f"""INSERT INTO {summary}
WITH customer_totals AS (
    SELECT o.customer_id, UPPER(o.region) AS region_label, SUM(o.amount) AS total_amount
    FROM {orders} o
    JOIN {customers} c ON o.customer_id = c.customer_id
    WHERE o.status = 'PAID' AND c.customer_level = 'VIP'
    GROUP BY o.customer_id, UPPER(o.region)
    HAVING SUM(o.amount) >= 50
)
SELECT customer_id, region_label, total_amount,
    ROW_NUMBER() OVER (ORDER BY customer_id) AS customer_seq,
    CASE WHEN region_label = 'EAST' THEN 'CORE' ELSE 'OTHER' END AS region_group
FROM customer_totals
ORDER BY total_amount DESC""",
    ]


def guide_result_query(s: str) -> str:
    """The guide's closing SELECT."""
    return (
        f"SELECT customer_id, region_label, total_amount, customer_seq, region_group "
        f"FROM lineage_customer_summary_{s} ORDER BY customer_id"
    )
