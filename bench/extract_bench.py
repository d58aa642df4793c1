"""Extraction speed against bare parsing, measured in one run on the same statements.

    python bench/extract_bench.py [--corpus DIR] [--rounds N]

For the TPC-DS and TPC-H INSERT corpora (dialect ``generic``, with their schemas) it prints
statements per second of full extraction (``Extractor.run`` per statement: split, parse,
bind, resolve, classify, event), of bare ``sqlglot.parse_one`` on the same text, and their
ratio; and checks that every statement extracts with status COMPLETE.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import sqlglot

from headwater.catalog import ColumnSchema, MemoryCatalog, TableSchema
from headwater.extract import ExtractOptions, Extractor
from headwater.extract.split import split_script
from headwater.model import Status, TableRef

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    compiled = sqlglot.parser.__file__.endswith(".so")
    print(f"sqlglot {sqlglot.__version__} ({'compiled: sqlglotc' if compiled else 'pure Python'})")
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
