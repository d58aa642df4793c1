"""The store's cost of history ingestion's re-run batches in executed instructions (callgrind).

    PYTHONPATH=src:bench .venv/bin/python bench/store_rerun_instructions.py [--pickle FILE] [--split]
    PYTHONPATH=src:bench .venv/bin/python bench/store_rerun_instructions.py --rows 60000 --distinct 400 --timed

The batches ``ingest_history`` hands to ``record_batch`` in a reuse-on run of ``reuse_bench``'s log
(10,000 rows, 1,000 distinct statements: 8,001 events in 17 batches; ``--rows``/``--distinct`` for
another log, e.g. more runs of each job) are collected once (in this
process, no valgrind) and pickled in one piece, so that a re-run shares the objects of its first
sight as it did; the events extraction marked as redacted are marked again after loading
(``secrets._REDACTED``), so the store takes the same path as in the run. Then two processes run
under ``valgrind --tool=callgrind`` with ``PYTHONHASHSEED=0``: both load the batches and open a fresh
SQLite store, the second also records the first ``--batches`` of them (default: all); the difference
is printed per event, with the first batch (first sights mostly) apart when ``--split``.

``--timed``: no valgrind, the CPU time of the replay per event instead, the first and the last
quarter of the batches apart (a re-run whose cost grows with its job's history shows there).

Run it with ``PYTHONPATH`` at another tree's ``src`` (and this ``bench``) to compare two versions;
``--pickle FILE`` reuses the batches made by an earlier run (made by either tree: the pickled
events are model objects, which both trees share).
"""

from __future__ import annotations

import argparse
import copyreg
import logging
import os
import pickle
import sys
import tempfile
import types
from pathlib import Path
from typing import Any

from callgrind import count_instructions


def _unproxy(d: dict[Any, Any]) -> types.MappingProxyType[Any, Any]:
    return types.MappingProxyType(d)


def _proxy(m: types.MappingProxyType[Any, Any]) -> tuple[Any, ...]:
    return _unproxy, (dict(m),)


copyreg.pickle(types.MappingProxyType, _proxy)  # an event's properties (each object once: shared stays shared)


def make(path: Path, rows: int = 10_000, distinct: int = 1000) -> None:
    """Collect the reuse-on run's ``record_batch`` calls and pickle them with their redaction marks."""
    from headwater.model.secrets import is_redacted
    from store_rerun_ab import batches

    logging.getLogger("sqlglot").setLevel(logging.ERROR)
    with tempfile.TemporaryDirectory(prefix="hw-rerun-cg-") as d:
        kept = batches(Path(d), rows, distinct)
    marks = [[is_redacted(e) for e in b] for b in kept]
    path.write_bytes(pickle.dumps((kept, marks), protocol=pickle.HIGHEST_PROTOCOL))
    print(f"{sum(map(len, kept)):,} events in {len(kept)} batches, {sum(map(sum, marks)):,} marked -> {path}")


def _load(path: Path) -> list[list[Any]]:
    """The pickled batches, the events extraction redacted marked again (``secrets._REDACTED``)."""
    from headwater.model import secrets

    kept, marks = pickle.loads(path.read_bytes())
    for b, m in zip(kept, marks, strict=True):
        for e, marked in zip(b, m, strict=True):
            if marked:
                secrets._REDACTED[id(e)] = e
    return kept


def workload(path: Path, batches: int) -> None:
    from headwater.store import open_store

    kept = _load(path)
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(f"sqlite:///{Path(tmp) / 'store.db'}")
        for batch in kept[:batches]:
            store.record_batch(batch)
        store.close()
    sys.stdout.flush()
    os._exit(0)  # no interpreter finalisation (its collections walk the caches)


def timed(path: Path) -> None:
    """CPU time of the replay per event, in batches of the log's order (first and last quarters apart)."""
    import time

    from headwater.store import open_store

    kept = _load(path)
    spent: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(f"sqlite:///{Path(tmp) / 'store.db'}")
        for batch in kept:
            start = time.process_time()
            store.record_batch(batch)
            spent.append(time.process_time() - start)
        store.close()
    q = max(1, len(kept) // 4)
    for name, part in (("first quarter", slice(0, q)), ("last quarter", slice(len(kept) - q, None))):
        n = sum(len(b) for b in kept[part])
        print(f"  {name}: {sum(spent[part]) / n * 1e6:.1f} us CPU per event ({n:,} events)")
    print(f"  all: {sum(spent) / sum(map(len, kept)) * 1e6:.1f} us CPU per event")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batches", type=int, default=1000, help="record the first N batches")
    ap.add_argument("--pickle", type=Path, help="the batches (made here if the file does not exist)")
    ap.add_argument("--split", action="store_true", help="also the first batch alone")
    ap.add_argument("--keep", type=Path, help="keep the profile of the full replay here")
    ap.add_argument("--rows", type=int, default=10_000, help="rows of the generated log (when made here)")
    ap.add_argument("--distinct", type=int, default=1000, help="its distinct statements")
    ap.add_argument("--timed", action="store_true", help="CPU time of the replay in this process instead")
    ap.add_argument("--run", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="hw-rerun-cg-") as d:
        path = args.pickle or Path(d) / "batches.pickle"
        if args.run is not None:
            workload(path, args.run)
            return
        if not path.exists():
            make(path, args.rows, args.distinct)
        if args.timed:
            timed(path)
            return
        kept, _ = pickle.loads(path.read_bytes())
        n = min(args.batches, len(kept))
        events = sum(len(b) for b in kept[:n])

        def count(k: int, out: Path | None = None) -> int:
            cmd = [sys.executable, __file__, "--pickle", str(path), "--run", str(k)]
            return count_instructions(cmd, out_file=out, env={"PYTHONHASHSEED": "0"})

        base = count(0)
        full = count(n, args.keep) - base
        print(f"SQLite, {events:,} events in {n} record_batch calls: {full / 1e6:,.1f} M instructions")
        print(f"  per event {full / events / 1e6:.4f} M")
        if args.split:
            first = count(1) - base
            rest = events - len(kept[0])
            print(f"  first batch ({len(kept[0])} events) {first / len(kept[0]) / 1e6:.4f} M per event")
            print(f"  the other {rest:,} events {(full - first) / rest / 1e6:.4f} M per event")


if __name__ == "__main__":
    main()
