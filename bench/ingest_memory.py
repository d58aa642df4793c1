"""Where ``headwater ingest``'s memory goes: the command run in this process, sampled as it runs.

    PYTHONPATH=src python bench/ingest_memory.py --statements 30000 [--every 5] [--cache-kib 2048]

Every ``--every`` seconds: the resident set (``VmRSS``), SQLite's own allocation
(``sqlite3_memory_used``, the page caches and the rest) and Python's allocated blocks; at the end the
peak (``VmHWM``) and the store connections the run checked out. The input is ``ingest_bench.py``'s
generated file of INSERTs.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import ctypes
import ctypes.util
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ingest_bench import _generated


def _status(field: str) -> int:
    """A ``/proc/self/status`` field in MB."""
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) // 1024 for line in f if line.startswith(field))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--statements", type=int, default=30_000)
    ap.add_argument("--every", type=float, default=5.0, help="seconds between samples")
    ap.add_argument("--cache-kib", type=int, default=None, help="each SQLite connection's page cache (KiB)")
    args = ap.parse_args()

    import sqlalchemy.pool
    from sqlalchemy import event

    import headwater.store.engine as engine
    from headwater.cli.main import app

    if args.cache_kib is not None:
        engine.SQLITE_CACHE_KIB = args.cache_kib
    lib = ctypes.CDLL(ctypes.util.find_library("sqlite3") or "libsqlite3.so.0")
    lib.sqlite3_memory_used.restype = ctypes.c_int64
    checkouts: collections.Counter[int] = collections.Counter()

    @event.listens_for(sqlalchemy.pool.Pool, "checkout")
    def _checkout(dbapi_conn: object, _record: object, _proxy: object) -> None:
        checkouts[id(dbapi_conn)] += 1

    stop = threading.Event()
    started = time.perf_counter()

    def sample() -> None:
        while not stop.wait(args.every):
            print(
                f"{time.perf_counter() - started:5.0f} s: rss {_status('VmRSS')} MB, "
                f"SQLite {lib.sqlite3_memory_used() / 1e6:.1f} MB, Python blocks {sys.getallocatedblocks():,}",
                file=sys.stderr,
                flush=True,
            )

    with tempfile.TemporaryDirectory(prefix="hw-ingest-memory-") as d:
        script = _generated(args.statements, Path(d) / "gen.sql")
        threading.Thread(target=sample, daemon=True).start()
        with contextlib.suppress(SystemExit):
            app(["ingest", str(script), "--store", f"sqlite:///{Path(d) / 'm.db'}"], standalone_mode=False)
        stop.set()
    print(
        f"{args.statements:,} statements: peak {_status('VmHWM')} MB; {len(checkouts)} store connection(s), "
        f"{sum(checkouts.values())} checkouts",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
