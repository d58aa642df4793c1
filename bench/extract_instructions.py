"""Extraction cost against bare parsing in executed instructions (valgrind's callgrind).

    python bench/extract_instructions.py [--corpus DIR]

CPU time on a shared machine moves with its load; instruction counts do not. This runs three
processes under ``valgrind --tool=callgrind`` — imports and warm-up only, then the same plus bare
``sqlglot.parse_one`` of every TPC-DS INSERT, then the same plus full extraction — and prints the
instructions each workload adds and their ratio. About a minute per process.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from extract_bench import DEFAULT_CORPUS, load_catalog, load_statements


def workload(mode: str, corpus: Path) -> None:
    import sqlglot

    from headwater.extract import ExtractOptions, Extractor

    sqls = [sql for _, sql in load_statements(corpus / "insert_tpcds.sql")]
    extractor = Extractor(load_catalog(corpus / "tpcds_schema.json"), ExtractOptions(dialect="generic"))
    for sql in sqls[:5]:  # warm-up: lazy imports, caches
        sqlglot.parse_one(sql)
        extractor.run(sql)
    if mode == "parse":
        for sql in sqls:
            sqlglot.parse_one(sql)
    elif mode == "extract":
        for sql in sqls:
            extractor.run(sql)


def instructions(mode: str, corpus: Path) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={tmp}/cg.out",
                sys.executable,
                __file__,
                "--run",
                mode,
                "--corpus",
                str(corpus),
            ],
            capture_output=True,
            text=True,
            check=True,
        )
    found = re.search(r"Collected : (\d+)", out.stderr)
    if found is None:
        raise SystemExit(f"no instruction count from valgrind:\n{out.stderr[-2000:]}")
    return int(found.group(1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--run", choices=["none", "parse", "extract"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.run:
        workload(args.run, args.corpus)
        return
    base = instructions("none", args.corpus)
    parse = instructions("parse", args.corpus) - base
    extract = instructions("extract", args.corpus) - base
    print("TPC-DS, 99 INSERTs, instructions added to imports and warm-up (callgrind)")
    print(f"  bare sqlglot.parse_one   {parse / 1e6:9.1f} M")
    print(f"  full extraction          {extract / 1e6:9.1f} M   ({extract / parse:.2f}x parse)")


if __name__ == "__main__":
    main()
