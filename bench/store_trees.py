"""Store ingest of two or more versions of the code, in alternating child processes: issue 14's
item 4 as a multiple of the code it was filed against.

    git archive ff30947 src | tar -x -C /tmp/ff
    PYTHONPATH=src:bench .venv/bin/python bench/store_trees.py ff30947=/tmp/ff/src head=src [--rounds 3]

Each round runs every tree once, in a child process with ``PYTHONPATH`` at that tree's ``src`` (and
this ``bench``): ``store_write_floor.record`` records the warehouse of 8,000 events of 135 column
edges with ``record_batch`` in batches of 500, then ``--single`` new events with ``record()``, into a
fresh SQLite file, with the process's heap frozen before each timed part (``_quiet_heap``). The
medians of CPU events/s are printed, each as a multiple of the first tree's. With ``--postgresql``,
each child also records the same into a fresh PostgreSQL schema (``store_write_floor.postgresql``:
wall-clock events/s, the server being another process).

The issue's targets as multiples of the code at ff30947 (its figures when filed: 774, 351 and 433
events/s): ``record_batch`` 1,800 / 774 = 2.33x, ``record()`` 1,000 / 351 = 2.85x, PostgreSQL
``record_batch`` 1,200 / 433 = 2.77x.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent
FIGURES = ("SQLite record_batch", "SQLite record()", "PostgreSQL record_batch (wall)", "PostgreSQL record() (wall)")


def child(scale: float, single: int, postgresql: bool) -> None:
    """Record the warehouse with the ``headwater`` on ``sys.path`` and print its rates as JSON."""
    from headwater.model import TableRef
    from store_bench import LAYERS, make_event, warehouse
    from store_write_floor import postgresql as into_postgresql
    from store_write_floor import record

    rng = random.Random(7)
    events, layers = warehouse(max(LAYERS * 4, int(10_000 * scale)), rng)
    singles = [
        make_event(TableRef("internal", "extra", f"x{k}"), rng.choice(layers[-1]), rng.choice(layers[-2]), 10**7 + k)
        for k in range(single)
    ]
    with tempfile.TemporaryDirectory() as tmp:
        batch, _, one, _ = record(Path(tmp) / "store.db", events, singles)
    rates = [batch[1], one[1]]
    if postgresql:
        pg_batch, pg_one = into_postgresql(events, singles)
        rates += [pg_batch[0], pg_one[0]]
    print(json.dumps(rates))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trees", nargs="*", help="NAME=SRC: a tree's src directory; the first is the baseline")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--scale", type=float, default=1.0, help="1.0 = 10,000 tables, 8,000 events")
    ap.add_argument("--single", type=int, default=300, help="events recorded one per transaction")
    ap.add_argument("--postgresql", action="store_true", help="also into PostgreSQL (HEADWATER_BENCH_PG)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.scale, args.single, args.postgresql)
        return
    if not args.trees or any("=" not in t for t in args.trees):
        ap.error("give the trees as NAME=SRC (the first is the baseline), e.g. ff30947=/tmp/ff/src head=src")
    trees = [tuple(t.split("=", 1)) for t in args.trees]
    runs: dict[str, list[list[float]]] = {name: [] for name, _ in trees}
    flags = ["--scale", str(args.scale), "--single", str(args.single)] + (["--postgresql"] if args.postgresql else [])
    for _ in range(args.rounds):
        for name, src in trees:
            env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(src).resolve()), str(BENCH)])}
            cmd = [sys.executable, str(BENCH / "store_trees.py"), "--child", *flags]
            out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
            runs[name].append(json.loads(out.strip().splitlines()[-1]))
    figures = FIGURES[: 4 if args.postgresql else 2]
    base = trees[0][0]
    medians = {
        name: [statistics.median(column) for column in zip(*rounds, strict=True)] for name, rounds in runs.items()
    }
    print(f"medians of {args.rounds} alternating rounds, events/s (CPU time, PostgreSQL wall-clock); x {base}:")
    for k, figure in enumerate(figures):
        cells = "  ".join(
            f"{name} {m[k]:7,.0f}" + ("" if name == base else f" ({m[k] / medians[base][k]:.2f}x)")
            for name, m in medians.items()
        )
        print(f"  {figure:32} {cells}")


if __name__ == "__main__":
    main()
