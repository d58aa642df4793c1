"""The largest read answers, in process: the time of a request and the size of its JSON.

    python bench/answer_bench.py [--rounds 5]
    python bench/answer_bench.py --before /tmp/before   # also another checkout (its src/), alternating

The store (``tests/explorer/synthetic.wide_events``, SQLite): a binary tree of 2,047 tables of 25
columns, 1,023 jobs, 89,001 column edges upstream of its root ``w10_0000``. The requests are the
explorer's (``static/js/api.js``) at their largest: the root's upstream graph at full depth (the
page's ``depth=all``), a root column's origin (the API's default page of 500) and paths, a leaf
column's impact, at level ``all``. Each goes through the whole app (FastAPI's ``TestClient``, one
thread) in a fresh child process, three times after a warm-up request; the figure is the best
wall time over ``--rounds`` such processes. With ``--before`` another checkout answers the same
requests on the same store, in its own child processes, the rounds of the two versions alternating.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.explorer.synthetic import wide_events  # noqa: E402

ROOT_FIELD, LEAF_FIELD = "w10_0000.c01", "w00_0000.c01"


def requests(root: int) -> dict[str, tuple[str, dict[str, object]]]:
    return {
        "lineage (upstream, full depth)": (
            "lineage",
            {"node": f"#{root}", "direction": "UPSTREAM", "max_depth": 100, "limit": 10_000},
        ),
        "field-origin (root column)": ("field-origin", {"field": ROOT_FIELD, "level": "all"}),
        "field-impact (leaf column)": ("field-impact", {"field": LEAF_FIELD, "level": "all"}),
        "explorer/field-paths (root column)": ("explorer/field-paths", {"field": ROOT_FIELD, "level": "all"}),
    }


def measure(db: Path, rounds: int) -> dict[str, list[float]]:
    """Best wall time (ms) and answer size (KB) of each request, with the headwater on sys.path."""
    from fastapi.testclient import TestClient

    from headwater.service import create_app
    from headwater.store import open_store

    store = open_store(f"sqlite:///{db}")
    out: dict[str, list[float]] = {}
    with TestClient(create_app(store)) as client:
        for label, (path, params) in requests(store.resolve("w10_0000").id).items():
            r = client.get(f"/api/v1/{path}", params=params)  # warm-up
            assert r.status_code == 200, r.text
            best = float("inf")
            for _ in range(rounds):
                t0 = time.perf_counter()
                client.get(f"/api/v1/{path}", params=params)
                best = min(best, time.perf_counter() - t0)
            out[label] = [best * 1000, len(r.content) / 1000]
    store.close()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--before", type=Path, help="a checkout of the version to compare with (its src/)")
    ap.add_argument("--store", type=Path, help="measure this store file here and print JSON (used by the rounds)")
    args = ap.parse_args()
    if args.store:
        print(json.dumps(measure(args.store, args.rounds)))
        return 0
    with tempfile.TemporaryDirectory(prefix="hw-answer-bench-") as tmp:
        db = Path(tmp) / "wide.db"
        from headwater.store import open_store

        store = open_store(f"sqlite:///{db}")
        store.record_batch(wide_events())
        store.close()
        results: dict[str, dict[str, list[float]]] = {"after": {}, "before": {}}
        checkouts = {"after": ROOT, "before": args.before} if args.before else {"after": ROOT}
        for _ in range(args.rounds):
            for name, checkout in checkouts.items():
                env = {**os.environ, "PYTHONPATH": str(checkout / "src")}
                cmd = [sys.executable, __file__, "--store", str(db), "--rounds", "3"]
                got = json.loads(subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout)
                for label, v in got.items():
                    best = results[name].setdefault(label, v)
                    best[0] = min(best[0], v[0])
    after, before = results["after"], results["before"]
    print(f"{'':36}{'KB':>8}{'ms':>9}" + (f"{'before ms':>11}{'after/before':>14}" if before else ""))
    for label, (ms, kb) in after.items():
        line = f"{label:36}{kb:>8,.0f}{ms:>9,.1f}"
        if before:
            line += f"{before[label][0]:>11,.1f}{ms / before[label][0]:>13.2f}x"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
