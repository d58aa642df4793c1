"""Extraction cost against bare parsing in executed instructions (valgrind's callgrind).

    python bench/extract_instructions.py [--corpus DIR] [--set tpcds|tpch]

CPU time on a shared machine moves with its load; instruction counts do not. This runs three
processes under ``valgrind --tool=callgrind`` — imports and warm-up only, then the same plus bare
``sqlglot.parse_one`` of every INSERT of the corpus (``--set``: TPC-DS, the default, or TPC-H), then
the same plus full extraction — and prints the instructions each workload adds and their ratio.
About a minute per process. Run it with ``PYTHONPATH`` at another tree's ``src`` to compare two
versions.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from callgrind import count_instructions
from extract_bench import DEFAULT_CORPUS, load_catalog, load_statements

SETS = {"tpch": ("insert_tpch.sql", "tpch_schema.json"), "tpcds": ("insert_tpcds.sql", "tpcds_schema.json")}


def workload(mode: str, corpus: Path, name: str) -> None:
    import sqlglot

    from headwater.extract import ExtractOptions, Extractor

    statements, schema = SETS[name]
    sqls = [sql for _, sql in load_statements(corpus / statements)]
    extractor = Extractor(load_catalog(corpus / schema), ExtractOptions(dialect="generic"))
    for sql in sqls[:5]:  # warm-up: lazy imports, caches
        sqlglot.parse_one(sql)
        extractor.run(sql)
    if mode == "parse":
        for sql in sqls:
            sqlglot.parse_one(sql)
    elif mode == "extract":
        for sql in sqls:
            extractor.run(sql)


def instructions(mode: str, corpus: Path, name: str) -> int:
    return count_instructions([sys.executable, __file__, "--run", mode, "--corpus", str(corpus), "--set", name])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--set", choices=sorted(SETS), default="tpcds")
    ap.add_argument("--run", choices=["none", "parse", "extract"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.run:
        workload(args.run, args.corpus, args.set)
        return
    base = instructions("none", args.corpus, args.set)
    parse = instructions("parse", args.corpus, args.set) - base
    extract = instructions("extract", args.corpus, args.set) - base
    n = len(load_statements(args.corpus / SETS[args.set][0]))
    print(f"{args.set}, {n} INSERTs, instructions added to imports and warm-up (callgrind)")
    print(f"  bare sqlglot.parse_one   {parse / 1e6:9.1f} M")
    print(f"  full extraction          {extract / 1e6:9.1f} M   ({extract / parse:.2f}x parse)")


if __name__ == "__main__":
    main()
