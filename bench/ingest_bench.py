"""History ingestion end to end: statements per second from a generated audit log into a store.

    python bench/ingest_bench.py [--rows N] [--workers 1,2] [--stores sqlite,postgresql] [--no-spark]

The log (``headwater.history.synthetic.generate_log``) mixes TPC-DS-shaped inserts and SELECTs from
``../shared/corpus`` with the generator's own warehouse statements, VALUES inserts, loads, writes to
``__internal_schema``, statements that failed in the database and statements that do not parse,
across sessions of 50 statements. It is written as JSON lines and ingested with ``ingest_history``
(read, group by session, extract in N processes, record in batches of 500) into a fresh SQLite file
and a fresh PostgreSQL schema, then through Spark local mode (``local[2]``): extraction written as
JSON lines, and extraction recorded into PostgreSQL from the executors. Wall-clock times; every run
must produce the same number of events.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path

import sqlalchemy as sa

from headwater.history import ExtractSpec, IngestOptions, ingest_history, open_source
from headwater.history.synthetic import generate_log, synthetic_schema, write_jsonl
from headwater.store import close_all, open_store

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
PG = os.environ.get("HEADWATER_BENCH_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def corpus_statements(path: Path) -> list[str]:
    """The statements of a corpus file (entries end with a line holding only ';'), name lines dropped."""
    out = []
    for chunk in path.read_text().split("\n;\n"):
        sql = "\n".join(line for line in chunk.strip().splitlines() if not line.startswith("-- name:")).strip()
        if sql:
            out.append(sql)
    return out


class PgSchema:
    """A throwaway PostgreSQL schema; its URL puts it first on the search path."""

    def __init__(self) -> None:
        self.name = f"hw_bench_{uuid.uuid4().hex[:8]}"
        self.admin = sa.create_engine(PG, isolation_level="AUTOCOMMIT")
        with self.admin.connect() as conn:
            conn.execute(sa.text(f'CREATE SCHEMA "{self.name}"'))
        self.url = f"{PG}?options=-csearch_path%3D{self.name}"

    def drop(self) -> None:
        close_all()
        with self.admin.connect() as conn:
            conn.execute(sa.text(f'DROP SCHEMA "{self.name}" CASCADE'))
        self.admin.dispose()


def run_local(log: Path, spec: ExtractSpec, store_kind: str, workers: int, tmp: Path) -> dict:
    pg = PgSchema() if store_kind == "postgresql" else None
    url = pg.url if pg else f"sqlite:///{tmp / f'bench-{workers}-{uuid.uuid4().hex[:6]}.db'}"
    try:
        store = open_store(url)  # schema created before the clock starts
        start = time.perf_counter()
        summary = ingest_history(open_source("jsonl", [str(log)]), store, IngestOptions(spec=spec, workers=workers))
        seconds = time.perf_counter() - start
    finally:
        if pg:
            pg.drop()
    c = summary.counters
    return {"rows": c.rows_read, "events": c.events, "recorded": c.recorded, "failed": c.failed, "seconds": seconds}


def run_spark(log: Path, schema: Path, tmp: Path) -> list[tuple[str, dict]]:
    from headwater.spark import extract_events, local_session, read_log, write_jsonl, write_store

    start = time.perf_counter()
    spark = local_session("local[2]", "headwater-bench")
    spark.sparkContext.parallelize([1]).count()
    startup = time.perf_counter() - start
    results = []
    try:
        rows = read_log(spark, [str(log)], "jsonl").count()
        start = time.perf_counter()
        outcomes = extract_events(read_log(spark, [str(log)], "jsonl"), str(schema))
        write_jsonl(outcomes, str(tmp / "spark-events"))
        seconds = time.perf_counter() - start
        events = sum(1 for p in (tmp / "spark-events").glob("part-*") for _ in p.open())
        results.append(("Spark local[2] → JSON lines", {"rows": rows, "events": events, "seconds": seconds}))
        pg = PgSchema()
        try:
            start = time.perf_counter()
            outcomes = extract_events(read_log(spark, [str(log)], "jsonl"), str(schema))
            recorded, _ = write_store(outcomes, pg.url)
            seconds = time.perf_counter() - start
        finally:
            pg.drop()
        results.append(("Spark local[2] → PostgreSQL", {"rows": rows, "events": recorded, "seconds": seconds}))
    finally:
        spark.stop()
    print(f"(Spark session start-up, not counted above: {startup:.1f} s)")
    return results


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=20_000, help="statements in the generated log (issue: 100000)")
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--stores", default="sqlite,postgresql")
    ap.add_argument("--no-spark", action="store_true")
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    logging.getLogger("sqlglot").setLevel(logging.ERROR)

    schema_doc: dict = synthetic_schema()
    schema_doc.update(json.loads((args.corpus / "tpcds_schema.json").read_text()))
    inserts = corpus_statements(args.corpus / "insert_tpcds.sql")
    selects = corpus_statements(args.corpus / "tpcds.sql")
    results: list[tuple[str, dict]] = []
    with tempfile.TemporaryDirectory(prefix="hw-ingest-bench-") as d:
        tmp = Path(d)
        schema = tmp / "schema.json"
        schema.write_text(json.dumps(schema_doc))
        log = tmp / "log.jsonl"
        write_jsonl(generate_log(args.rows, seed=args.seed, extra_inserts=inserts, extra_selects=selects), log)
        spec = ExtractSpec(schema_file=str(schema))
        for store_kind in args.stores.split(","):
            for workers in (int(w) for w in args.workers.split(",")):
                label = f"{store_kind}, {workers} worker{'s' if workers > 1 else ''}"
                results.append((label, run_local(log, spec, store_kind, workers, tmp)))
                print(label, results[-1][1], flush=True)
        if not args.no_spark:
            results.extend(run_spark(log, schema, tmp))
    events = {r["events"] for _, r in results}
    print(f"\n{args.rows} statements; python {sys.version.split()[0]}; {os.cpu_count()} cores\n")
    print("| run | rows | events | seconds | statements/s |")
    print("|---|---:|---:|---:|---:|")
    for label, r in results:
        print(f"| {label} | {r['rows']:,} | {r['events']:,} | {r['seconds']:.1f} | {r['rows'] / r['seconds']:,.0f} |")
    if len(events) != 1:
        print(f"ERROR: the runs disagree on the number of events: {sorted(events)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
