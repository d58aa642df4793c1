"""History ingestion end to end: statements per second from a generated audit log into a store.

    python bench/ingest_bench.py [--rows N] [--workers 1,2] [--stores sqlite,postgresql] [--no-spark]
    python bench/ingest_bench.py --projects [--copies N] [--bigquery-etl DIR] [--memory 1000,10000,100000]
        [--repeat 3] [--baseline /tmp/before/src]

The log (``headwater.history.synthetic.generate_log``) mixes TPC-DS-shaped inserts and SELECTs from
``../shared/corpus`` with the generator's own warehouse statements, VALUES inserts, loads, writes to
``__internal_schema``, statements that failed in the database and statements that do not parse,
across sessions of 50 statements. It is written as JSON lines and ingested with ``ingest_history``
(read, group by session, extract in N processes, record in batches of 500) into a fresh SQLite file
and a fresh PostgreSQL schema, then through Spark local mode (``local[2]``): extraction written as
JSON lines, and extraction recorded into PostgreSQL from the executors. Wall-clock times; every run
must produce the same number of events.

``--projects`` times ``headwater ingest`` against ``headwater extract --project`` of the same files, each
a fresh process (wall clock; the ratio is what recording beside extraction costs), into SQLite and
PostgreSQL, with each of ``--recorders`` (``ingest --recorder thread``, ``process``, ``auto``): the TPC corpus
(``insert_tpch.sql`` and ``insert_tpcds.sql``) copied ``--copies`` times, each copy a directory of its
own (its own jobs), and the ``sql/**/query.sql`` files of a mozilla/bigquery-etl checkout or bare git
mirror (``--bigquery-etl``; BigQuery dialect, ``--statements all``: its queries are SELECTs that its
runner writes to a table). Then the peak memory of ``ingest`` of one generated file of 1,000 / 10,000 /
100,000 INSERT statements (``--memory``), beside plain ``extract`` of it (which streams the file): the
larger of a command's own maximum resident set and the sum over its processes, sampled (``_PEAK``).
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


def _timed(command: list[str], src: Path | None = None) -> tuple[float, int, str]:
    """Run ``command``: its wall-clock seconds, peak resident memory (MB) and output; fails loudly.
    ``src``: another tree's ``src`` first on the path (``--baseline``)."""
    import subprocess

    path = os.pathsep.join([str(src), *sys.path] if src else sys.path)
    env = {**os.environ, "PYTHONPATH": path, "COLUMNS": "200"}
    start = time.perf_counter()
    # started by a small Python of its own: a child's maximum resident set (``ru_maxrss``) starts at
    # the process it was forked from, and this one may hold a large command's output by then
    child = subprocess.Popen(
        [sys.executable, "-c", _PEAK, *command], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    out = child.stdout.read() if child.stdout else ""
    child.wait()
    seconds = time.perf_counter() - start
    out, _, peak = out.rpartition("\npeak-kib ")
    code, _, kib = peak.partition(" ")
    if code not in ("0", "1"):  # 1: some statement failed or stayed incomplete, as expected
        raise RuntimeError(f"{' '.join(command)} exited {code}:\n{out[-2000:]}")
    return seconds, int(kib) // 1024, out


_PEAK = """
import os, subprocess, sys, threading, time
child = subprocess.Popen(sys.argv[1:])
page = os.sysconf("SC_PAGE_SIZE") // 1024
peak, done = [0], [False]

def tree(pid):
    out = [pid]
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            kids = [int(k) for k in f.read().split()]
    except OSError:
        return out
    for k in kids:
        out.extend(tree(k))
    return out

def sample():  # the command and every process it started, summed, every 50 ms
    while not done[0]:  # (not child.poll(): it would reap the child before wait4)
        total = 0
        for pid in tree(child.pid):
            try:
                with open(f"/proc/{pid}/statm") as f:
                    total += int(f.read().split()[1]) * page
            except OSError:
                pass
        peak[0] = max(peak[0], total)
        time.sleep(0.05)

threading.Thread(target=sample, daemon=True).start()
_, status, usage = os.wait4(child.pid, 0)
done[0] = True
print(f"\\npeak-kib {os.waitstatus_to_exitcode(status)} {max(usage.ru_maxrss, peak[0])}", flush=True)
"""
"""Runs the command given and prints its exit code and peak resident set (KiB) on a last line: the
larger of its own maximum (``ru_maxrss``: of the command, or of the largest process it waited for)
and the sum over the command and every process it started, sampled every 50 ms (``ingest
--recorder process`` is two processes)."""


def _tpc_project(corpus: Path, copies: int, root: Path) -> Path:
    for k in range(copies):
        d = root / f"copy{k:03d}"
        d.mkdir(parents=True)
        for name in ("insert_tpch.sql", "insert_tpcds.sql"):
            (d / name).write_text((corpus / name).read_text())
    return root


def _bigquery_etl(source: Path, root: Path) -> Path | None:
    """The ``sql/**/query.sql`` files of a checkout, or of a bare git mirror (its HEAD), under ``root``."""
    import subprocess

    if (source / "sql").is_dir():
        files = {
            p.relative_to(source).as_posix(): p.read_text(errors="replace") for p in source.glob("sql/**/query.sql")
        }
    elif source.is_dir():
        listing = subprocess.run(
            ["git", "-C", str(source), "ls-tree", "-r", "--name-only", "HEAD", "sql"], capture_output=True, text=True
        )
        names = [n for n in listing.stdout.splitlines() if n.endswith("/query.sql")]
        files = {}
        for n in names:
            shown = subprocess.run(["git", "-C", str(source), "show", f"HEAD:{n}"], capture_output=True, text=True)
            files[n] = shown.stdout
    else:
        return None
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root if files else None


def _generated(n: int, path: Path) -> Path:
    lines = [
        f"INSERT INTO db.t{i % 40} SELECT a + {i} AS a, b, c * {i % 9} AS c FROM db.s{i % 7} WHERE d > {i};"
        for i in range(n)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def projects(args: argparse.Namespace) -> int:
    """ingest / extract ratios on the TPC corpus xN and bigquery-etl; peak memory by statement count."""
    headwater = [sys.executable, "-m", "headwater.cli.main"]
    rows: list[tuple[str, str, float, float, int, int]] = []
    with tempfile.TemporaryDirectory(prefix="hw-ingest-projects-") as d:
        tmp = Path(d)
        schema = tmp / "schema.json"
        doc = json.loads((args.corpus / "tpcds_schema.json").read_text())
        doc.update(json.loads((args.corpus / "tpch_schema.json").read_text()))
        schema.write_text(json.dumps(doc))
        inputs = []
        if args.copies:
            tpc = _tpc_project(args.corpus, args.copies, tmp / "tpc")
            inputs.append((f"TPC corpus x{args.copies}", tpc, ["--schema", str(schema)]))
        if args.bigquery_etl is not None:
            bq = _bigquery_etl(args.bigquery_etl, tmp / "bq")
            if bq is not None:
                inputs.append(("mozilla/bigquery-etl", bq, ["--dialect", "bigquery", "--statements", "all"]))
        trees = [("baseline", args.baseline), ("", None)] if args.baseline else [("", None)]
        for label, root, options in [(lb, r, o) for lb, r, o in inputs for _ in range(args.repeat)]:
            extract_s, extract_mb, _ = _timed(
                [*headwater, "extract", str(root), "--project", "--format", "jsonl", *options]
            )
            runs = [(k, r, t) for k in args.stores.split(",") for r in args.recorders.split(",") for t in trees]
            for store_kind, recorder, (tree, src) in runs:  # baseline and candidate one after the other
                pg = PgSchema() if store_kind == "postgresql" else None
                url = pg.url if pg else f"sqlite:///{tmp / f'{uuid.uuid4().hex[:6]}.db'}"
                try:
                    command = [*headwater, "ingest", str(root), "--store", url, "--recorder", recorder, *options]
                    ingest_s, ingest_mb, out = _timed(command, src)
                finally:
                    if pg:
                        pg.drop()
                timing = next((ln for ln in out.splitlines() if ln.startswith("extraction ")), "")
                kind = f"{store_kind}, {recorder}" + (f" ({tree})" if tree else "")
                rows.append((label, kind, extract_s, ingest_s, extract_mb, ingest_mb))
                print(label, kind, f"extract {extract_s:.1f} s, ingest {ingest_s:.1f} s;", timing, flush=True)
        memory = []
        for n in (int(x) for x in args.memory.split(",") if x):
            script = _generated(n, tmp / f"gen{n}.sql")
            # plain ``extract`` streams a file (``extract --project`` keeps a file's trees and results)
            _, extract_mb, _ = _timed([*headwater, "extract", str(script), "--format", "jsonl"])
            for recorder in args.recorders.split(","):
                url = f"sqlite:///{tmp / f'mem{n}-{recorder}.db'}"
                command = [*headwater, "ingest", str(script), "--store", url, "--recorder", recorder]
                seconds, ingest_mb, _ = _timed(command)
                memory.append((n, recorder, extract_mb, ingest_mb, seconds))
                print(f"{n:,} statements: peak extract {extract_mb} MB, ingest ({recorder}) {ingest_mb} MB", flush=True)
    print(f"\npython {sys.version.split()[0]}; {os.cpu_count()} cores\n")
    print("| input | store | extract s | ingest s | ingest / extract | peak MB extract / ingest |")
    print("|---|---|---:|---:|---:|---:|")
    for label, store_kind, e, i, em, im in rows:
        print(f"| {label} | {store_kind} | {e:.1f} | {i:.1f} | {i / e:.2f} | {em} / {im} |")
    if memory:
        print("\n| statements (one file) | recorder | peak MB extract | peak MB ingest (SQLite) | ingest s |")
        print("|---:|---|---:|---:|---:|")
        for n, recorder, em, im, seconds in memory:
            print(f"| {n:,} | {recorder} | {em} | {im} | {seconds:.0f} |")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=20_000, help="statements in the generated log (issue: 100000)")
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--stores", default="sqlite,postgresql")
    ap.add_argument("--no-spark", action="store_true")
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--projects", action="store_true", help="ingest / extract of projects, and peak memory")
    ap.add_argument("--copies", type=int, default=10, help="--projects: copies of the TPC corpus")
    ap.add_argument("--bigquery-etl", type=Path, default=None, help="--projects: a bigquery-etl checkout or mirror")
    ap.add_argument("--memory", default="1000,10000,100000", help="--projects: statements for the memory runs")
    ap.add_argument("--recorders", default="thread,process,auto", help="--projects: ingest --recorder values to time")
    ap.add_argument("--repeat", type=int, default=1, help="--projects: runs of each input (ratios: take the median)")
    ap.add_argument(
        "--baseline", type=Path, default=None, help="--projects: another tree's src, its ingest run before each one"
    )
    args = ap.parse_args()
    logging.getLogger("sqlglot").setLevel(logging.ERROR)
    if args.projects:
        return projects(args)

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
