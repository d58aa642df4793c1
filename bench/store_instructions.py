"""The store's write cost per event in executed instructions (valgrind's callgrind), SQLite.

    PYTHONPATH=src:bench .venv/bin/python bench/store_instructions.py [--single 50] [--batch 200]

CPU time on a shared machine moves with its load; instruction counts do not. Three processes run
under ``valgrind --tool=callgrind``, each building the same events and a SQLite store holding a
warehouse of ``store_bench`` (recorded with ``record_batch``) and a few ``record()`` calls of
warm-up; then the first stops, the second records ``--single`` new 135-edge events with ``record()``
(one per transaction) and the third records ``2 x --batch`` such events with two ``record_batch``
calls. The instructions each adds to the first, per event, are printed. A few minutes in all. Run
it with ``PYTHONPATH`` at another tree's ``src`` (and this ``bench``) to compare two versions.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
from pathlib import Path

from callgrind import count_instructions
from headwater.model import TableRef
from store_bench import make_event, warehouse

WAREHOUSE = 250
"""Tables of the warehouse the store holds before the measured part (200 events of 135 edges)."""


def workload(mode: str, single: int, batch: int) -> None:
    from headwater.store import open_store

    rng = random.Random(7)
    events, layers = warehouse(WAREHOUSE, rng)

    def new(prefix: str, n: int) -> list:
        return [
            make_event(
                TableRef("internal", "extra", f"{prefix}{k}"), rng.choice(layers[-1]), rng.choice(layers[-2]), 10**7 + k
            )
            for k in range(n)
        ]

    warm, one, many = new("w", 5), new("x", single), new("y", 2 * batch)
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(f"sqlite:///{Path(tmp) / 'store.db'}")
        store.record_batch(events)
        for e in warm:
            store.record(e)
        if mode == "record":
            for e in one:
                store.record(e)
        elif mode == "batch":
            store.record_batch(many[:batch])
            store.record_batch(many[batch:])
        store.close()
    # no interpreter finalisation: its collections walk what the store's caches hold, more after the
    # measured part than without it (some 200,000 instructions a record(), none of them a write's)
    sys.stdout.flush()
    os._exit(0)


def instructions(mode: str, single: int, batch: int) -> int:
    cmd = [sys.executable, __file__, "--run", mode, "--single", str(single), "--batch", str(batch)]
    return count_instructions(cmd, env={"PYTHONHASHSEED": "0"})  # the same set and dict orders in every run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--single", type=int, default=50, help="events recorded with record(), one per transaction")
    ap.add_argument("--batch", type=int, default=200, help="events per record_batch (two of them)")
    ap.add_argument("--run", choices=["none", "record", "batch"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.run:
        workload(args.run, args.single, args.batch)
        return
    base = instructions("none", args.single, args.batch)
    one = instructions("record", args.single, args.batch) - base
    many = instructions("batch", args.single, args.batch) - base
    print("SQLite, new 135-edge events, instructions per event added to the set-up (callgrind)")
    print(f"  record() x {args.single:<5} one transaction each   {one / args.single / 1e6:7.3f} M")
    print(f"  record_batch 2 x {args.batch:<5}                  {many / (2 * args.batch) / 1e6:7.3f} M")


if __name__ == "__main__":
    main()
