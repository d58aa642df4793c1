"""One script's extraction by several source trees (builds), in alternating child processes.

    python bench/extract_builds.py main=/work/main/src branch=src compiled=/tmp/built/src [--copies 5] [--rounds 3]

Each round runs one child per tree (``PYTHONPATH`` set to it, so a tree holding mypyc-compiled
modules runs them), in turn; each child freezes its import heap, times bare ``sqlglot.parse_one`` of
``--copies`` copies of the TPC-DS corpus and one ``Extractor.run`` of them as one script (CPU time),
and the driver prints each tree's median rate and ratio to its own parse. Alternating children see
the machine's load alike, which timings of one tree after another do not.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from extract_bench import DEFAULT_CORPUS

CHILD = r"""
import gc, json, sys, time
sys.path.insert(0, {bench!r})
from pathlib import Path
import sqlglot
from extract_bench import load_catalog, load_statements
from headwater.extract import ExtractOptions, Extractor
gc.freeze()
corpus = Path({corpus!r})
sqls = [s for _, s in load_statements(corpus / "insert_tpcds.sql")] * {copies}
catalog, options = load_catalog(corpus / "tpcds_schema.json"), ExtractOptions(dialect="generic")
Extractor(catalog, options).run(";\n".join(sqls[:20]))
[sqlglot.parse_one(s) for s in sqls[:20]]
t = time.process_time(); [sqlglot.parse_one(s) for s in sqls]; parse = time.process_time() - t
t = time.process_time(); result = Extractor(catalog, options).run(";\n".join(sqls)); run = time.process_time() - t
assert len(result.statements) == len(sqls)
print(json.dumps({{"parse": parse, "run": run, "n": len(sqls)}}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trees", nargs="+", help="label=path of a source tree (the directory holding headwater/)")
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--copies", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    trees = dict(t.split("=", 1) for t in args.trees)
    code = CHILD.format(bench=str(Path(__file__).resolve().parent), corpus=str(args.corpus), copies=args.copies)
    samples: dict[str, list[dict[str, float]]] = {label: [] for label in trees}
    for _ in range(args.rounds):
        for label, path in trees.items():
            env = {**os.environ, "PYTHONPATH": str(Path(path).resolve())}
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
            samples[label].append(json.loads(out.stdout))
    print(f"TPC-DS x {args.copies} as one script, CPU time, {args.rounds} alternating rounds")
    for label, runs in samples.items():
        rate = statistics.median(r["n"] / r["run"] for r in runs)
        ratio = statistics.median(r["run"] / r["parse"] for r in runs)
        each = ", ".join(f"{r['run'] / r['parse']:.2f}" for r in runs)
        print(f"  {label:<10} Extractor.run(script) {rate:7.1f} statements/s  {ratio:.2f}x parse  (rounds: {each})")


if __name__ == "__main__":
    main()
