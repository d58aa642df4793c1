"""Server load benchmark: ``headwater serve`` on loopback under N concurrent readers (and writers).

Builds (or reuses) a SQLite store of ``--events`` events shaped like the Doris guide's example
(``bench/store_bench.py``'s ``guide_event``: 45 column edges each), starts ``headwater serve`` on
127.0.0.1 in a child process, and runs ``--clients`` reader threads for ``--seconds`` against the read
endpoints (field origin, field impact, upstream at depth 3, node resolve, summary), plus ``--writers``
threads posting new events. Prints p50/p99 per endpoint and overall, and the server's RSS every
``--every`` seconds (the first sample after warm-up is the baseline; the last line says how much it
grew). Loopback only; every run is bounded by ``--seconds``.

    .venv/bin/python bench/serve_bench.py                          # 10,000 events, 20 readers, 60 s
    .venv/bin/python bench/serve_bench.py --writers 10 --clients 10
    .venv/bin/python bench/serve_bench.py --store /tmp/serve-bench.db --seconds 300
"""

from __future__ import annotations

import argparse
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).parent))
from headwater.model import event_to_dict
from headwater.store import open_store
from store_bench import guide_event

POOL = 200  # source table pairs: each orders_i feeds events/POOL summaries


def build(path: Path, events: int) -> None:
    store = open_store(f"sqlite:///{path}")
    have = store.get_lineage_stats().events_recorded
    batch = [guide_event(k, POOL) for k in range(have, events)]
    for i in range(0, len(batch), 500):
        store.record_batch(batch[i : i + 500])
    store.engine.dispose()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def pct(samples: list[float], q: float) -> float:
    s = sorted(samples)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--events", type=int, default=10_000)
    ap.add_argument("--clients", type=int, default=20, help="reader threads")
    ap.add_argument("--writers", type=int, default=0, help="writer threads posting new events")
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--warmup", type=float, default=10.0, help="seconds before the RSS baseline")
    ap.add_argument("--every", type=float, default=5.0, help="RSS sample interval")
    ap.add_argument("--store", type=Path, default=None, help="SQLite file to build or reuse")
    args = ap.parse_args()

    tmp = tempfile.TemporaryDirectory()
    path = args.store or Path(tmp.name) / "serve-bench.db"
    t0 = time.perf_counter()
    build(path, args.events)
    print(
        f"store: {path} ({args.events} events, {path.stat().st_size / 2**20:.0f} MB)"
        f" in {time.perf_counter() - t0:.0f} s"
    )

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from headwater.cli.main import app; app()",
            "serve",
            "--store",
            str(path),
            "--port",
            str(port),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "HEADWATER_TOKENS": ""},
    )
    try:
        for _ in range(600):
            try:
                if httpx.get(f"{base}/api/v1/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        else:
            raise SystemExit("server did not start: " + (server.stderr.read().decode() if server.stderr else ""))
        run_load(args, base, server.pid)
    finally:
        server.terminate()
        server.wait(20)
        tmp.cleanup()


def run_load(args: argparse.Namespace, base: str, pid: int) -> None:
    n = args.events
    endpoints = {
        "field-origin": lambda r: ("/api/v1/field-origin", {"field": f"g.summary_{r.randrange(n)}.total_amount"}),
        "field-impact": lambda r: ("/api/v1/field-impact", {"field": f"g.orders_{r.randrange(POOL)}.amount"}),
        "upstream": lambda r: ("/api/v1/upstream", {"node": f"g.summary_{r.randrange(n)}", "depth": 3}),
        "resolve": lambda r: ("/api/v1/nodes/resolve", {"node": f"g.summary_{r.randrange(n)}"}),
        "summary": lambda r: ("/api/v1/summary", {"node": f"g.orders_{r.randrange(POOL)}"}),
    }
    latencies: dict[str, list[float]] = defaultdict(list)
    errors: dict[str, int] = defaultdict(int)
    stop = time.monotonic() + args.seconds
    lock = threading.Lock()

    def reader(seed: int) -> None:
        rng = random.Random(seed)
        with httpx.Client(base_url=base, timeout=60) as client:
            while time.monotonic() < stop:
                name = rng.choice(list(endpoints))
                url, params = endpoints[name](rng)
                t = time.perf_counter()
                r = client.get(url, params=params)
                dt = time.perf_counter() - t
                with lock:
                    if r.status_code == 200:
                        latencies[name].append(dt)
                    else:
                        errors[name] += 1

    def writer(seed: int) -> None:
        k = n + 1_000_000 * (seed + 1)
        with httpx.Client(base_url=base, timeout=60) as client:
            while time.monotonic() < stop:
                t = time.perf_counter()
                r = client.post("/api/v1/events", json=event_to_dict(guide_event(k, POOL)))
                k += 1
                with lock:
                    if r.status_code == 201:
                        latencies["POST events"].append(time.perf_counter() - t)
                    else:
                        errors["POST events"] += 1

    threads = [threading.Thread(target=reader, args=(s,)) for s in range(args.clients)]
    threads += [threading.Thread(target=writer, args=(s,)) for s in range(args.writers)]
    for th in threads:
        th.start()
    start = time.monotonic()
    samples: list[tuple[float, float]] = []
    while time.monotonic() < stop:
        time.sleep(min(args.every, max(0.0, stop - time.monotonic())))
        samples.append((time.monotonic() - start, rss_mb(pid)))
        print(f"  t={samples[-1][0]:5.0f} s  server RSS {samples[-1][1]:7.1f} MB", flush=True)
    for th in threads:
        th.join()

    print(f"\n{args.clients} readers, {args.writers} writers, {args.seconds:.0f} s:")
    reads: list[float] = []
    for name, lat in sorted(latencies.items()):
        if name != "POST events":
            reads += lat
        print(
            f"  {name:14s} n={len(lat):6d}  p50 {pct(lat, 0.5) * 1000:7.1f} ms  p99 {pct(lat, 0.99) * 1000:7.1f} ms"
            f"  errors {errors.get(name, 0)}"
        )
    print(
        f"  {'all reads':14s} n={len(reads):6d}  p50 {pct(reads, 0.5) * 1000:7.1f} ms"
        f"  p99 {pct(reads, 0.99) * 1000:7.1f} ms"
        f"  ({len(reads) / args.seconds:.0f} requests/s)"
    )
    after = [rss for t, rss in samples if t >= args.warmup]
    if after:
        print(
            f"  RSS after {args.warmup:.0f} s warm-up: {after[0]:.1f} MB → {after[-1]:.1f} MB "
            f"(max {max(after):.1f}, median {statistics.median(after):.1f})"
        )


if __name__ == "__main__":
    main()
