"""Extraction speed against bare parsing, measured in one run on the same statements.

    python bench/extract_bench.py [--corpus DIR] [--rounds N]

For the TPC-DS and TPC-H INSERT corpora (dialect ``generic``, with their schemas) it prints
statements per second of full extraction (``Extractor.run`` per statement: split, parse,
bind, resolve, classify, event), of bare ``sqlglot.parse_one`` on the same text, and their
ratio; and checks that every statement extracts with status COMPLETE.

    python bench/extract_bench.py --growth [--max-script N] [--freeze]

    python bench/extract_bench.py --script [--copies N] [--rounds N] [--trees NAME=SRC ...]

The script path instead, as the ``headwater extract`` command runs it: one file of ``--copies`` (10)
copies of the TPC-DS corpus, timed as one ``Extractor.run`` of the whole script in this process and
as the ``headwater extract --format jsonl`` command in a child process (its CPU time less that of the
same command over a one-statement file: startup excluded), each against bare ``sqlglot.parse_one`` of
the same statements, in alternating rounds; and that startup itself (CPU seconds). ``--trees`` runs
the command of each named source tree too (``PYTHONPATH=SRC``, e.g. an export of an older commit),
alternating with this tree's in every round, and prints each one's rate and its ratio to the first.

    python bench/extract_bench.py --cli-growth [--max-script N] [--rounds N] [--trees NAME=SRC ...]

The CLI's growth curve: ``headwater extract --format jsonl`` in a child process over generated scripts
of 1,000 / 10,000 / 100,000 statements (the growth curves' statements, with their schema file): CPU µs
per statement with startup excluded (less the same command over a one-statement file) and the child's
peak resident memory (``os.wait4``'s rusage of that child), per tree, alternating.

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


def child_usage(cmd: list[str], src: str | None = None) -> tuple[float, float]:
    """(CPU seconds, user + system; peak RSS in MB) of a child process running ``cmd``, its own
    (``os.wait4``), with ``PYTHONPATH=src`` when given."""
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = src
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0  # reaped here
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def child_cpu(cmd: list[str], src: str | None = None) -> float:
    """CPU seconds (user + system) a child process running ``cmd`` used."""
    return child_usage(cmd, src)[0]


def parse_trees(specs: list[str]) -> dict[str, str | None]:
    """``NAME=SRC`` arguments as {name: src}, this tree first (``branch``, no PYTHONPATH)."""
    trees: dict[str, str | None] = {"branch": None}
    for spec in specs:
        name, _, src = spec.partition("=")
        if not src or not Path(src, "headwater").is_dir():
            raise SystemExit(f"--trees {spec!r}: NAME=SRC with SRC holding the headwater package")
        trees[name] = str(Path(src).resolve())
    return trees


def tree_origin(src: str | None) -> str:
    """Where a child with ``PYTHONPATH=src`` imports headwater from (to check the tree is the one run)."""
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = src
    code = "import headwater, os; print(os.path.dirname(headwater.__file__))"
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True).stdout.strip()


def script_bench(corpus: Path, copies: int, rounds: int, trees: dict[str, str | None]) -> None:
    """One script of ``copies`` copies of TPC-DS: in-process ``run`` and the CLI of each tree, against parse_one."""
    sqls = [sql for _, sql in load_statements(corpus / "insert_tpcds.sql")] * copies
    schema = corpus / "tpcds_schema.json"
    catalog = load_catalog(schema)
    options = ExtractOptions(dialect="generic")
    script = ";\n".join(sqls)
    headwater = str(Path(sys.executable).with_name("headwater"))
    for name, src in trees.items():
        print(f"  tree {name}: headwater from {tree_origin(src)}")
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

        samples: dict[str, list[float]] = {"parse": [], "run": []}
        for name in trees:
            samples[f"cli {name}"], samples[f"startup {name}"] = [], []
        run()  # warm-up
        for _ in range(rounds):
            samples["parse"].append(timed(parse))
            samples["run"].append(timed(run))
            for name, src in trees.items():  # alternating: every tree once per round
                startup = child_cpu([*cli, one], src)
                samples[f"cli {name}"].append(child_cpu([*cli, path], src) - startup)
                samples[f"startup {name}"].append(startup)
    t = {k: statistics.median(v) for k, v in samples.items()}
    n = len(sqls)
    print(f"TPC-DS x {copies}: one script of {n} statements, median CPU time of {rounds} alternating rounds")
    print(f"  bare sqlglot.parse_one          {n / t['parse']:9.1f} statements/s")
    print(f"  Extractor.run(script)           {n / t['run']:9.1f} statements/s   ({t['run'] / t['parse']:.2f}x parse)")
    for name in trees:
        cli_t = t[f"cli {name}"]
        rate = f"{n / cli_t:9.1f} statements/s   ({cli_t / t['parse']:.2f}x parse)"
        print(f"  headwater extract, {name:<12} {rate}, startup {t[f'startup {name}']:.2f} s CPU")
    for name in list(trees)[1:]:  # this tree's rate against each other's, by round and as medians
        rounds_ = zip(samples[f"cli {name}"], samples["cli branch"], strict=True)
        each = ", ".join(f"{theirs / ours:.2f}" for theirs, ours in rounds_)
        print(f"  branch's CLI rate {t[f'cli {name}'] / t['cli branch']:.2f}x {name}'s (per round: {each})")


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


def cli_growth(lengths: list[int], rounds: int, trees: dict[str, str | None]) -> None:
    """``headwater extract --format jsonl`` in a child over generated scripts: CPU per statement
    (startup excluded) and the child's peak RSS, by script length, per tree."""
    headwater = str(Path(sys.executable).with_name("headwater"))
    for name, src in trees.items():
        print(f"  tree {name}: headwater from {tree_origin(src)}")
    print("CLI script length: headwater extract --format jsonl, CPU µs per statement less startup, child's peak RSS")
    print(f"  {'tree':>10} {'statements':>10} {'rounds':>6} {'CPU µs':>8} {'peak RSS MB':>11}  {'per round µs':}")
    with tempfile.TemporaryDirectory() as tmp:
        schema = Path(tmp, "schema.json")
        schema.write_text(json.dumps({t: dict.fromkeys(cols, "INT") for t, cols in GROWTH_TABLES.items()}))
        one = Path(tmp, "one.sql")
        one.write_text(script_statement(0))
        cli = [headwater, "extract", "--dialect", "generic", "--schema", str(schema), "--format", "jsonl"]
        for n in lengths:
            path = Path(tmp, f"script{n}.sql")
            path.write_text(";\n".join(script_statement(k) for k in range(n)))
            k_rounds = rounds if n <= 10_000 else 1
            cpu: dict[str, list[float]] = {name: [] for name in trees}
            rss: dict[str, float] = dict.fromkeys(trees, 0.0)
            for _ in range(k_rounds):
                for name, src in trees.items():  # alternating
                    startup = child_cpu([*cli, str(one)], src)
                    used, peak = child_usage([*cli, str(path)], src)
                    cpu[name].append((used - startup) / n)
                    rss[name] = max(rss[name], peak)
            for name in trees:
                each = ", ".join(f"{c * 1e6:.0f}" for c in cpu[name])
                med = statistics.median(cpu[name]) * 1e6
                print(f"  {name:>10} {n:>10,} {k_rounds:>6} {med:>8.1f} {rss[name]:>11.1f}  {each}")


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
    ap.add_argument("--cli-growth", action="store_true", help="the CLI's growth curve (child processes)")
    ap.add_argument(
        "--trees", nargs="*", default=[], metavar="NAME=SRC", help="other trees' CLI too (--script, --cli-growth)"
    )
    args = ap.parse_args()
    if args.freeze:
        gc.freeze()
    compiled = sqlglot.parser.__file__.endswith(".so")
    print(f"sqlglot {sqlglot.__version__} ({'compiled: sqlglotc' if compiled else 'pure Python'})")
    if args.script:
        script_bench(args.corpus, args.copies, args.rounds, parse_trees(args.trees))
        return 0
    if args.cli_growth:
        lengths = [n for n in (1_000, 10_000, 100_000) if n <= args.max_script]
        cli_growth(lengths, args.rounds, parse_trees(args.trees))
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
