"""Store benchmark: a synthetic layered warehouse in SQLite and PostgreSQL; ingest rate and query latency.

The warehouse at ``--scale 1``: 10,000 tables of 20 columns (200,000 columns) in five layers; every
table past the first layer is written by one INSERT … SELECT from two tables of earlier layers (8,000
events), with IDENTITY and TRANSFORMATION columns, a JOIN, three FILTERs and a WINDOW column: 135
column edges (MAPS_TO) per event, 1,080,000 in all.

Prints ingest events/s (``record_batch`` in batches of 500, ``record`` one event per transaction,
``record_batch`` of events shaped like the Doris guide's example: 5 columns, 45 column edges, and of
re-runs: the warehouse's statements run again a day later, as months of query logs mostly are), then
p50/p95 over random starting points of: depth-3 upstream and downstream table lineage, full-depth field
origin and field impact, and analyze_impact of a source table.

    .venv/bin/python bench/store_bench.py                      # full scale, SQLite and PostgreSQL
    .venv/bin/python bench/store_bench.py --scale 0.1 --backend sqlite
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import random
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import create_engine, text

from headwater.model import (
    ColumnRef,
    DirectInput,
    DirectLineage,
    DirectType,
    Field,
    IndirectLineage,
    IndirectType,
    LineageInfo,
    Origin,
    QueryContext,
    SourceCommand,
    TableRef,
    Target,
    make_event_id,
)
from headwater.store import LineageStore, open_store

COLUMNS = 20
LAYERS = 5
TARGETS = {"table p50 ms": 50.0, "field p50 ms": 200.0, "ingest ev/s": 2000.0}
PG = os.environ.get("HEADWATER_BENCH_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def table(layer: int, k: int) -> TableRef:
    return TableRef("internal", f"l{layer}", f"t{layer}_{k}")


def make_event(tgt: TableRef, a: TableRef, b: TableRef, n: int) -> LineageInfo:
    """``INSERT INTO tgt SELECT … FROM a JOIN b ON a.c0 = b.c0 WHERE … ``: 135 column edges."""
    ca = [ColumnRef(a, f"c{i}") for i in range(COLUMNS)]
    cb = [ColumnRef(b, f"c{i}") for i in range(COLUMNS)]
    direct = []
    for i in range(COLUMNS):
        if i < 5:
            direct.append(
                DirectLineage(
                    f"c{i}", f"{a.name}.c{i}", DirectType.IDENTITY, Origin.COLUMN, (ca[i],), (DirectInput(ca[i]),)
                )
            )
        elif i < 10:
            direct.append(
                DirectLineage(
                    f"c{i}",
                    f"UPPER({a.name}.c{i})",
                    DirectType.TRANSFORMATION,
                    Origin.COLUMN,
                    (ca[i],),
                    (DirectInput(ca[i], ("UPPER",)),),
                )
            )
        else:
            direct.append(
                DirectLineage(
                    f"c{i}",
                    f"{a.name}.c{i} + {b.name}.c{i}",
                    DirectType.TRANSFORMATION,
                    Origin.COLUMN,
                    (ca[i], cb[i]),
                    (DirectInput(ca[i]), DirectInput(cb[i])),
                )
            )
    dataset = (
        IndirectLineage(IndirectType.JOIN, f"{a.name}.c0 = {b.name}.c0", (ca[0], cb[0])),
        IndirectLineage(IndirectType.FILTER, f"{a.name}.c1 > 0", (ca[1],)),
        IndirectLineage(IndirectType.FILTER, f"{b.name}.c2 > 0", (cb[2],)),
        IndirectLineage(IndirectType.FILTER, f"{a.name}.c3 IS NOT NULL", (ca[3],)),
    )
    output = tuple(IndirectLineage(IndirectType.WINDOW, f"{a.name}.c4", (ca[4],), f"c{i}") for i in range(15, 20))
    sql = f"INSERT INTO {tgt.qualified} SELECT … FROM {a.qualified} JOIN {b.qualified} -- {n}"
    ctx = QueryContext(SourceCommand.INSERT_INTO, f"q{n}", sql, timestamp="2024-01-01T00:00:00Z")
    return LineageInfo(
        make_event_id(f"q{n}", tgt),
        SourceCommand.INSERT_INTO,
        Target(tgt, tuple(Field(f"c{i}") for i in range(COLUMNS))),
        (a, b),
        tuple(direct),
        dataset,
        output,
        ctx,
    )


def guide_event(k: int, pool: int) -> LineageInfo:
    """An event shaped like the Doris guide's example (``INSERT INTO summary_k SELECT … FROM orders_i JOIN
    customers_i … WHERE … GROUP BY … ORDER BY …``): 5 target columns, 3 DIRECT inputs, a WINDOW and a
    CONDITIONAL column, a JOIN, 3 FILTERs, 2 GROUP_BYs and a SORT: 45 column edges (8 dataset-level
    inputs x 5 columns + 5), 2 READ, 1 WRITE."""
    i = k % pool
    orders, customers = TableRef("internal", "g", f"orders_{i}"), TableRef("internal", "g", f"customers_{i}")
    summary = TableRef("internal", "g", f"summary_{k}")
    o_cust, o_region = ColumnRef(orders, "customer_id"), ColumnRef(orders, "region")
    o_amount, o_status = ColumnRef(orders, "amount"), ColumnRef(orders, "status")
    c_cust, c_level = ColumnRef(customers, "customer_id"), ColumnRef(customers, "customer_level")
    upper, total = f"UPPER({orders.name}.region)", f"SUM({orders.name}.amount)"
    d, t = DirectType, IndirectType
    direct = (
        DirectLineage("customer_id", "o.customer_id", d.IDENTITY, Origin.COLUMN, (o_cust,), (DirectInput(o_cust),)),
        DirectLineage(
            "region_label", upper, d.TRANSFORMATION, Origin.COLUMN, (o_region,), (DirectInput(o_region, ("UPPER",)),)
        ),
        DirectLineage(
            "total_amount", total, d.AGGREGATION, Origin.COLUMN, (o_amount,), (DirectInput(o_amount, ("SUM",)),)
        ),
        DirectLineage("customer_seq", "ROW_NUMBER() OVER (…)", d.TRANSFORMATION, Origin.SYSTEM, (o_cust,), ()),
        DirectLineage("region_group", f"CASE WHEN {upper} = 'EAST' …", d.TRANSFORMATION, Origin.COLUMN, (o_region,)),
    )
    dataset = (
        IndirectLineage(t.JOIN, "o.customer_id = c.customer_id", (o_cust, c_cust)),
        IndirectLineage(t.FILTER, "o.status = 'PAID'", (o_status,)),
        IndirectLineage(t.FILTER, "c.customer_level = 'VIP'", (c_level,)),
        IndirectLineage(t.FILTER, f"{total} >= 50", (o_amount,)),
        IndirectLineage(t.GROUP_BY, "o.customer_id", (o_cust,)),
        IndirectLineage(t.GROUP_BY, upper, (o_region,)),
        IndirectLineage(t.SORT, total, (o_amount,)),
    )
    output = (
        IndirectLineage(t.WINDOW, "o.customer_id", (o_cust,), "customer_seq"),
        IndirectLineage(t.CONDITIONAL, f"{upper} = 'EAST'", (o_region,), "region_group"),
    )
    columns = tuple(Field(n) for n in ("customer_id", "region_label", "total_amount", "customer_seq", "region_group"))
    sql = f"INSERT INTO {summary.qualified} WITH … FROM {orders.qualified} JOIN {customers.qualified} -- {k}"
    ctx = QueryContext(SourceCommand.INSERT_INTO, f"g{k}", sql, timestamp="2024-01-01T00:00:00Z")
    return LineageInfo(
        make_event_id(f"g{k}", summary),
        SourceCommand.INSERT_INTO,
        Target(summary, columns),
        (orders, customers),
        direct,
        dataset,
        output,
        ctx,
    )


def rerun(event: LineageInfo, day: int) -> LineageInfo:
    """The same statement run again ``day`` days later: a new query id, the same job and lineage."""
    query_id = f"{event.context.query_id}-d{day}"
    ctx = dataclasses.replace(event.context, query_id=query_id, timestamp=f"2024-01-{1 + day:02d}T00:00:00Z")
    return dataclasses.replace(event, event_id=make_event_id(query_id, event.target.table), context=ctx)


def warehouse(tables: int, rng: random.Random) -> tuple[list[LineageInfo], list[list[TableRef]]]:
    per = tables // LAYERS
    layers = [[table(layer, k) for k in range(per)] for layer in range(LAYERS)]
    events = []
    for layer in range(1, LAYERS):
        for tgt in layers[layer]:
            a = rng.choice(layers[layer - 1])
            b = rng.choice(layers[rng.randrange(layer)])
            while b == a:
                b = rng.choice(layers[layer - 1])
            events.append(make_event(tgt, a, b, len(events)))
    return events, layers


def pct(samples: list[float], q: float) -> float:
    s = sorted(samples)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))]


def timed(fn: Callable[[], object], runs: int) -> tuple[float, float, object]:
    out: object = None
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter()
        out = fn()
        samples.append((time.perf_counter() - t0) * 1000)
    return statistics.median(samples), pct(samples, 0.95), out


def run_backend(
    name: str, url: str, events: list[LineageInfo], layers: list[list[TableRef]], runs: int, rng: random.Random
) -> dict[str, float]:
    store: LineageStore = open_store(url)
    res: dict[str, float] = {}
    t0 = time.perf_counter()
    opened = 0
    for i in range(0, len(events), 500):
        opened += store.record_batch(events[i : i + 500]).edges_opened
    dt = time.perf_counter() - t0
    res["ingest ev/s"] = len(events) / dt
    stats = store.get_lineage_stats()
    logical = stats.total_edges
    print(
        f"\n[{name}] ingested {len(events):,} events in {dt:.1f} s: {len(events) / dt:,.0f} events/s, "
        f"{logical / dt:,.0f} edges/s as queries count them, {opened / dt:,.0f} stored edge rows/s ({opened:,} rows)"
    )
    print(
        f"[{name}] graph: {stats.nodes_by_type.get('DATASET', 0):,} datasets, "
        f"{stats.nodes_by_type.get('FIELD', 0):,} fields, {stats.total_field_mappings:,} column edges "
        f"(MAPS_TO), {stats.total_edges:,} edges in all"
    )
    # one event per transaction (the dispatcher's store plugin path), into the same big store
    extra = [
        make_event(TableRef("internal", "extra", f"x{k}"), rng.choice(layers[-1]), rng.choice(layers[-2]), 10**7 + k)
        for k in range(min(300, len(events)))
    ]
    t0 = time.perf_counter()
    for e in extra:
        store.record(e)
    res["record() ev/s"] = len(extra) / (time.perf_counter() - t0)
    print(f"[{name}] record(), one event per transaction: {res['record() ev/s']:,.0f} events/s")

    def batches(key: str, label: str, batch: list[LineageInfo]) -> None:
        t0 = time.perf_counter()
        for i in range(0, len(batch), 500):
            store.record_batch(batch[i : i + 500])
        dt = time.perf_counter() - t0
        res[key] = len(batch) / dt
        print(f"[{name}] {label}: {len(batch):,} in {dt:.1f} s: {len(batch) / dt:,.0f} events/s")

    # guide-sized events (5 columns, 45 column edges), in batches of 500, into the same big store
    batches("guide-sized ev/s", "guide-sized events", [guide_event(k, 500) for k in range(max(500, len(events) // 4))])
    # the warehouse's statements run again the next day: same jobs, same lineage, new events
    again = [rerun(e, 1) for e in events[: max(500, len(events) // 4)]]
    batches("re-run ev/s", "re-runs of recorded statements", again)
    top = layers[-1]
    read = sorted({t for e in events for t in e.sources})  # tables some statement reads
    bottom = [t for t in read if t in set(layers[0])]
    middle = [t for t in read if t in set(layers[1])]

    def sample(fn: Callable[[TableRef], object], pool: list[TableRef]) -> tuple[float, float, float]:
        picks = [rng.choice(pool) for _ in range(runs)]
        it = iter(picks)
        p50, p95, _ = timed(lambda: fn(next(it)), runs)
        return p50, p95, 0.0

    rows = [
        ("upstream depth 3 (table)", lambda t: store.get_upstream(str(t), max_depth=3), top),
        ("downstream depth 3 (table)", lambda t: store.get_downstream(str(t), max_depth=3), bottom),
        ("field origin, full depth", lambda t: store.get_field_origin(f"{t}.c12"), top),
        ("field impact, full depth", lambda t: store.get_field_impact(f"{t}.c0"), middle),
        ("analyze_impact (table, DELETE)", lambda t: store.analyze_impact(str(t), "DELETE"), middle),
    ]
    print(f"[{name}] {'query':32} {'p50 ms':>9} {'p95 ms':>9}   answer size (last run)")
    for label, fn, pool in rows:
        p50, p95, _ = sample(fn, pool)
        last = fn(pool[0])
        size = _size(last)
        res[f"{label} p50"] = p50
        res[f"{label} p95"] = p95
        print(f"[{name}] {label:32} {p50:9.1f} {p95:9.1f}   {size}")
    store.close()
    return res


def _size(result: object) -> str:
    for attr in ("total_nodes", "total", "total_affected_count"):
        if hasattr(result, attr):
            return f"{attr}={getattr(result, attr)}"
    return ""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=1.0, help="1.0 = 10,000 tables, 1,080,000 column edges")
    ap.add_argument("--backend", choices=["sqlite", "postgresql", "both"], default="both")
    ap.add_argument("--runs", type=int, default=50, help="samples per query")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    tables = max(LAYERS * 4, int(10_000 * args.scale))
    t0 = time.perf_counter()
    events, layers = warehouse(tables, rng)
    print(
        f"synthetic warehouse: {tables:,} tables, {tables * COLUMNS:,} columns, {len(events):,} events, "
        f"{len(events) * 135:,} column edges (built in {time.perf_counter() - t0:.1f} s)"
    )
    results: dict[str, dict[str, float]] = {}
    if args.backend in ("sqlite", "both"):
        with tempfile.TemporaryDirectory() as tmp:
            results["sqlite"] = run_backend(
                "sqlite", f"sqlite:///{Path(tmp) / 'bench.db'}", events, layers, args.runs, random.Random(args.seed)
            )
    if args.backend in ("postgresql", "both"):
        schema = f"hw_bench_{uuid.uuid4().hex[:8]}"
        admin = create_engine(PG, isolation_level="AUTOCOMMIT")
        with admin.connect() as c:
            c.execute(text(f'CREATE SCHEMA "{schema}"'))
        try:
            results["postgresql"] = run_backend(
                "postgresql",
                f"{PG}?options=-csearch_path%3D{schema}",
                events,
                layers,
                args.runs,
                random.Random(args.seed),
            )
        finally:
            with admin.connect() as c:
                c.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
            admin.dispose()
    print("\nagainst the targets (ratio = measured / target; < 1 is better for latency, > 1 for ingest):")
    for backend, r in results.items():
        table_p50 = max(r["upstream depth 3 (table) p50"], r["downstream depth 3 (table) p50"])
        field_p50 = max(r["field origin, full depth p50"], r["field impact, full depth p50"])
        print(
            f"  {backend:10} depth-3 table p50 {table_p50:7.1f} ms / 50 ms = {table_p50 / 50:.2f};"
            f" field p50 {field_p50:7.1f} ms / 200 ms = {field_p50 / 200:.2f};"
            f" ingest {r['ingest ev/s']:,.0f} ev/s / 2,000 = {r['ingest ev/s'] / 2000:.2f}"
            f" (guide-sized {r['guide-sized ev/s']:,.0f} ev/s = {r['guide-sized ev/s'] / 2000:.2f};"
            f" re-runs {r['re-run ev/s']:,.0f} ev/s = {r['re-run ev/s'] / 2000:.2f})"
        )


if __name__ == "__main__":
    main()
