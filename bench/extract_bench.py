"""Extraction speed against bare parsing, measured in one run on the same statements.

    python bench/extract_bench.py [--corpus DIR] [--rounds N]

For the TPC-DS and TPC-H INSERT corpora (dialect ``generic``, with their schemas) it prints
statements per second of full extraction (``Extractor.run`` per statement: split, parse,
bind, resolve, classify, event), of bare ``sqlglot.parse_one`` on the same text, and their
ratio; and checks that every statement extracts with status COMPLETE.

    python bench/extract_bench.py --growth [--max-script N] [--freeze]

    python bench/extract_bench.py --script [--copies N] [--rounds N]

The script path instead, as the ``headwater extract`` command runs it: one file of ``--copies`` (10)
copies of the TPC-DS corpus, timed as one ``Extractor.run`` of the whole script in this process and
as the ``headwater extract --format jsonl`` command in a child process (its CPU time less that of the
same command over a one-statement file: startup excluded), each against bare ``sqlglot.parse_one`` of
the same statements, in alternating rounds; and that startup itself (CPU seconds).

The growth curves instead: the CPU cost per statement of one ``Extractor.run`` over scripts of
1,000 / 10,000 / 100,000 statements (``--max-script`` caps the length; fewer rounds for the long
ones) with the process's resident memory after each, and the cost of single statements as they
grow in columns, CTEs and UNION branches; every figure is a ratio against bare
``sqlglot.parse_one`` of the same statements, measured in the same run. ``--freeze`` freezes the
import-time heap first, as the ``headwater`` command does.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import sqlglot

from headwater.catalog import ColumnSchema, MemoryCatalog, TableSchema
from headwater.extract import ExtractOptions, Extractor
from headwater.extract.split import split_script
from headwater.model import Status, TableRef

DEFAULT_CORPUS = Path(os.environ.get("HEADWATER_SHARED") or Path(__file__).resolve().parents[2] / "shared") / "corpus"


def load_statements(path: Path) -> list[tuple[str, str]]:
    """(name, sql) of each entry of a corpus file (entries end with a line holding only ';')."""
    out = []
    for chunk in path.read_text().split("\n;\n"):
        lines = chunk.strip().splitlines()
        if not lines:
            continue
        name = lines[0].removeprefix("-- name:").strip() if lines[0].startswith("-- name:") else "?"
        sql = "\n".join(line for line in lines if not line.startswith("-- name:")).strip()
        if sql:
            out.append((name, sql))
    return out


def load_catalog(path: Path) -> MemoryCatalog:
    raw = json.loads(path.read_text())
    return MemoryCatalog(
        {
            TableRef("internal", None, table): TableSchema(tuple(ColumnSchema(c, t) for c, t in cols.items()))
            for table, cols in raw.items()
        }
    )


def interleaved(fns: dict[str, object], rounds: int) -> dict[str, float]:
    """Median CPU seconds of each function, measured in alternating rounds after a warm-up.

    Alternating keeps the comparison fair when the machine's load changes during the run;
    process CPU time ignores time spent waiting for the other core's work.
    """
    samples: dict[str, list[float]] = {k: [] for k in fns}
    for fn in fns.values():
        fn()  # type: ignore[operator]
    for _ in range(rounds):
        for key, fn in fns.items():
            t0 = time.process_time()
            fn()  # type: ignore[operator]
            samples[key].append(time.process_time() - t0)
    return {k: statistics.median(v) for k, v in samples.items()}


def bench(name: str, statements: list[tuple[str, str]], catalog: MemoryCatalog, rounds: int) -> bool:
    sqls = [sql for _, sql in statements]
    options = ExtractOptions(dialect="generic")

    def parse() -> None:
        for sql in sqls:
            sqlglot.parse_one(sql)

    def split_only() -> None:
        for sql in sqls:
            split_script(sql, "generic")

    def extract() -> None:
        for sql in sqls:
            Extractor(catalog, options).run(sql)

    t = interleaved({"parse": parse, "split": split_only, "extract": extract}, rounds)
    t_parse, t_split, t_extract = t["parse"], t["split"], t["extract"]
    n = len(sqls)

    bad = []
    for stmt_name, sql in statements:
        events = Extractor(catalog, options).run(sql).events
        if len(events) != 1 or events[0].status is not Status.COMPLETE:
            bad.append(stmt_name)
    print(f"{name}: {n} statements, median CPU time of {rounds} alternating rounds")
    print(f"  bare sqlglot.parse_one     {n / t_parse:9.1f} statements/s")
    print(f"  split + parse (headwater)  {n / t_split:9.1f} statements/s   ({t_split / t_parse:.2f}x parse)")
    print(f"  full extraction            {n / t_extract:9.1f} statements/s   ({t_extract / t_parse:.2f}x parse)")
    print(f"  lineage passes alone       {(t_extract - t_split) / t_parse:.2f}x parse")
    print(f"  COMPLETE: {n - len(bad)}/{n}" + (f"  NOT COMPLETE: {', '.join(bad)}" if bad else ""))
    return not bad


def child_cpu(cmd: list[str]) -> float:
    """CPU seconds (user + system) a child process running ``cmd`` used."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def script_bench(corpus: Path, copies: int, rounds: int) -> None:
    """One script of ``copies`` copies of TPC-DS: in-process ``run`` and the CLI, against parse_one."""
    sqls = [sql for _, sql in load_statements(corpus / "insert_tpcds.sql")] * copies
    schema = corpus / "tpcds_schema.json"
    catalog = load_catalog(schema)
    options = ExtractOptions(dialect="generic")
    script = ";\n".join(sqls)
    headwater = str(Path(sys.executable).with_name("headwater"))
    with tempfile.TemporaryDirectory() as tmp:
        path, one = os.path.join(tmp, "script.sql"), os.path.join(tmp, "one.sql")
        Path(path).write_text(script)
        Path(one).write_text(sqls[0])
        cli = [headwater, "extract", "--dialect", "generic", "--schema", str(schema), "--format", "jsonl"]

        def parse() -> None:
            for sql in sqls:
                sqlglot.parse_one(sql)

        def run() -> None:
            result = Extractor(catalog, options).run(script)
            assert len(result.statements) == len(sqls)

        samples: dict[str, list[float]] = {"parse": [], "run": [], "cli": [], "startup": []}
        run()  # warm-up
        for _ in range(rounds):
            samples["parse"].append(timed(parse))
            samples["run"].append(timed(run))
            startup = child_cpu([*cli, one])
            samples["cli"].append(child_cpu([*cli, path]) - startup)
            samples["startup"].append(startup)
    t = {k: statistics.median(v) for k, v in samples.items()}
    n = len(sqls)
    print(f"TPC-DS x {copies}: one script of {n} statements, median CPU time of {rounds} alternating rounds")
    print(f"  bare sqlglot.parse_one          {n / t['parse']:9.1f} statements/s")
    print(f"  Extractor.run(script)           {n / t['run']:9.1f} statements/s   ({t['run'] / t['parse']:.2f}x parse)")
    print(f"  headwater extract (no startup)  {n / t['cli']:9.1f} statements/s   ({t['cli'] / t['parse']:.2f}x parse)")
    print(f"  headwater extract startup       {t['startup']:9.2f} s CPU (the command over one statement)")


GROWTH_TABLES = {"s": [f"c{i}" for i in range(1000)], "t": [f"c{i}" for i in range(1000)]}


def growth_catalog() -> MemoryCatalog:
    return MemoryCatalog(
        {
            TableRef("internal", None, name): TableSchema(tuple(ColumnSchema(c, "INT") for c in cols))
            for name, cols in GROWTH_TABLES.items()
        }
    )


def script_statement(k: int) -> str:
    """The ``k``-th statement of a generated script: a small INSERT … SELECT, literals varying."""
    return f"INSERT INTO t (c0, c1, c2) SELECT c0 + {k}, UPPER(c1), c2 FROM s WHERE c3 > {k % 97}"


def rss_mb() -> float:
    """Resident memory of this process now, in MB (Linux)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 1e6


def timed(fn: object) -> float:
    t0 = time.process_time()
    fn()  # type: ignore[operator]
    return time.process_time() - t0


def script_growth(catalog: MemoryCatalog, lengths: list[int]) -> None:
    """Cost per statement of one ``run`` over a whole script, against parsing its statements one by one."""
    options = ExtractOptions(dialect="generic")
    sample = [script_statement(k) for k in range(1000)]
    print("script length: CPU per statement of one Extractor.run(script), ratio to parse_one per statement")
    print(f"  {'statements':>10} {'rounds':>6} {'parse µs':>9} {'extract µs':>10} {'ratio':>6} {'RSS after MB':>12}")
    for n in lengths:
        script = ";\n".join(script_statement(k) for k in range(n))
        rounds = 3 if n <= 10_000 else 1
        t_parse: list[float] = []
        t_run: list[float] = []
        for _ in range(rounds):  # alternating: the baseline of each round next to its extraction
            t_parse.append(timed(lambda: [sqlglot.parse_one(sql) for sql in sample]) / len(sample))
            kept: list[object] = []  # the result stays alive until the RSS is read, as a caller's would

            def run(kept: list[object] = kept, script: str = script) -> None:
                kept.append(Extractor(catalog, options).run(script))

            t_run.append(timed(run) / n)
            assert len(kept[0].statements) == n  # type: ignore[attr-defined]
            rss = rss_mb()
            del kept
        p, r = statistics.median(t_parse), statistics.median(t_run)
        print(f"  {n:>10,} {rounds:>6} {p * 1e6:>9.1f} {r * 1e6:>10.1f} {r / p:>6.2f} {rss:>12.1f}")


def size_statements(dimension: str, size: int) -> str:
    """One statement ``size`` units large in ``dimension`` (columns, CTEs or UNION branches)."""
    if dimension == "columns":
        cols = ", ".join(f"c{i} + 1" for i in range(size))
        return f"INSERT INTO t ({', '.join(f'c{i}' for i in range(size))}) SELECT {cols} FROM s"
    if dimension == "ctes":
        ctes = ["q0 AS (SELECT c0, c1 FROM s)"]
        ctes += [f"q{i} AS (SELECT c0 + 1 AS c0, c1 FROM q{i - 1})" for i in range(1, size)]
        return f"INSERT INTO t (c0, c1) WITH {', '.join(ctes)} SELECT c0, c1 FROM q{size - 1}"
    branches = " UNION ALL ".join(f"SELECT c0 + {i}, c1 FROM s WHERE c2 = {i}" for i in range(size))
    return f"INSERT INTO t (c0, c1) {branches}"


def size_growth(catalog: MemoryCatalog, rounds: int) -> None:
    """Extraction against parsing of single statements as they grow; a flat ratio is linear growth."""
    options = ExtractOptions(dialect="generic")
    print("statement size: CPU per statement, ratio to parse_one of the same statement")
    print(f"  {'dimension':>10} {'size':>5} {'parse ms':>9} {'extract ms':>10} {'ratio':>6}")
    for dimension, sizes in (("columns", (10, 100, 1000)), ("ctes", (10, 50, 100)), ("unions", (10, 100, 200))):
        for size in sizes:
            sql = size_statements(dimension, size)
            events = Extractor(catalog, options).run(sql).events
            assert len(events) == 1 and events[0].status is Status.COMPLETE, (dimension, size)
            t = interleaved(
                {
                    "parse": lambda sql=sql: sqlglot.parse_one(sql),
                    "extract": lambda sql=sql: Extractor(catalog, options).run(sql),
                },
                rounds,
            )
            p, e = t["parse"], t["extract"]
            print(f"  {dimension:>10} {size:>5} {p * 1e3:>9.2f} {e * 1e3:>10.2f} {e / p:>6.2f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--growth", action="store_true", help="the growth curves instead of the corpora")
    ap.add_argument("--max-script", type=int, default=100_000, help="longest script of the growth curve")
    ap.add_argument("--freeze", action="store_true", help="gc.freeze() the import-time heap first")
    ap.add_argument("--script", action="store_true", help="the script path (in-process and CLI) instead")
    ap.add_argument("--copies", type=int, default=10, help="copies of TPC-DS in the --script file")
    args = ap.parse_args()
    if args.freeze:
        gc.freeze()
    compiled = sqlglot.parser.__file__.endswith(".so")
    print(f"sqlglot {sqlglot.__version__} ({'compiled: sqlglotc' if compiled else 'pure Python'})")
    if args.script:
        script_bench(args.corpus, args.copies, args.rounds)
        return 0
    if args.growth:
        catalog = growth_catalog()
        script_growth(catalog, [n for n in (1_000, 10_000, 100_000) if n <= args.max_script])
        size_growth(catalog, args.rounds)
        return 0
    ok = True
    for label, sql_file, schema_file in (
        ("TPC-DS", "insert_tpcds.sql", "tpcds_schema.json"),
        ("TPC-H", "insert_tpch.sql", "tpch_schema.json"),
    ):
        statements = load_statements(args.corpus / sql_file)
        ok = bench(label, statements, load_catalog(args.corpus / schema_file), args.rounds) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
