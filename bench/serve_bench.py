"""Server load benchmark: ``headwater serve`` on loopback under N concurrent readers (and writers).

Builds (or reuses) a store of ``--events`` events shaped like the Doris guide's example
(``bench/store_bench.py``'s ``guide_event``: 45 column edges each) — a SQLite file, or with
``--backend postgresql`` the schema ``hw_serve_bench`` of the PostgreSQL at ``$HEADWATER_BENCH_PG``
(kept for the next run; ``--drop`` drops it at the end) — starts ``headwater serve`` (``--workers``
processes) on 127.0.0.1 in a child process, and for each count of ``--clients`` (``1,5,20``: one run
each, the server started afresh) runs that many reader threads for ``--seconds`` against the read
endpoints (field origin, field impact, upstream at depth 3, node resolve, summary), plus ``--writers``
threads posting new events. Prints p50/p99 per endpoint and overall, the CPU time per request of the
server's processes, of the load client itself and (PostgreSQL) of the backends of its connections, and
the server's RSS (all its
processes) every ``--every`` seconds (the first sample after warm-up is the baseline; the last line
says how much it grew). The 1-client run is the baseline of the others: each prints its p50 and p99
as a multiple of the 1-client p50, measured in the same run. Loopback only; every run is bounded by
``--seconds``.

The readers are, by default (``--client loop``), one thread driving every client's keep-alive
connection through a selector, each client a closed loop (its next request sent when its answer is
read whole); ``--client httpx`` is the former load, one ``httpx.Client`` thread per client, which on
a 2-core machine takes several times the CPU per request and so competes with the server it measures.

    .venv/bin/python bench/serve_bench.py                          # 10,000 events, 20 readers, 60 s
    .venv/bin/python bench/serve_bench.py --clients 1,5,20 --seconds 30
    .venv/bin/python bench/serve_bench.py --backend postgresql --workers 2 --clients 1,5,20
    .venv/bin/python bench/serve_bench.py --writers 10 --clients 10
    .venv/bin/python bench/serve_bench.py --store /tmp/serve-bench.db --seconds 300
    .venv/bin/python bench/serve_bench.py --store /tmp/serve-bench.db --cpu 200   # CPU per request
    .venv/bin/python bench/serve_bench.py --cpu 100 --before /tmp/before --rounds 5   # and another checkout's

With ``--cpu N --before DIR`` each of ``--rounds`` rounds measures this checkout and the one at ``DIR``
(its ``src/``) in a child process each, alternating, on the same store: the figure is each version's
median over the rounds, and their ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import selectors
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlencode

import httpx
from sqlalchemy import create_engine, text

sys.path.insert(0, str(Path(__file__).parent))
from headwater.model import event_to_dict
from headwater.store import open_store
from store_bench import PG, guide_event

POOL = 200  # source table pairs: each orders_i feeds events/POOL summaries
PG_SCHEMA = "hw_serve_bench"


def build(url: str, events: int) -> None:
    store = open_store(url)
    have = store.get_lineage_stats().events_recorded
    batch = [guide_event(k, POOL) for k in range(have, events)]
    for i in range(0, len(batch), 500):
        store.record_batch(batch[i : i + 500])
    store.engine.dispose()


def pg_schema(drop: bool = False) -> str:
    """The URL of the benchmark's PostgreSQL schema (created if missing, or dropped)."""
    admin = create_engine(PG, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(
            text(
                f'DROP SCHEMA IF EXISTS "{PG_SCHEMA}" CASCADE' if drop else f'CREATE SCHEMA IF NOT EXISTS "{PG_SCHEMA}"'
            )
        )
    admin.dispose()
    return f"{PG}?options=-csearch_path%3D{PG_SCHEMA}&application_name={PG_SCHEMA}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rss_mb(pid: int) -> float:
    """Resident memory of ``pid`` and its children (the worker processes), MB."""
    total = 0.0
    for p in [pid, *children(pid)]:
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) / 1024
        except OSError:
            continue
    return total


def cpu_s(pid: int) -> float:
    """User and system CPU seconds of ``pid`` so far (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class BackendCpu:
    """The CPU the PostgreSQL backends of the server's connections (``application_name``) use:
    sampled every 0.2 s by a thread (a connection closed between samples loses its last 0.2 s)."""

    def __init__(self, url: str | None) -> None:
        self.seen: dict[int, float] = {}
        self.start: dict[int, float] = {}
        self.running = url is not None
        self.engine = create_engine(PG) if url else None
        self.thread = threading.Thread(target=self.sample_loop, daemon=True)

    def pids(self) -> list[int]:
        assert self.engine is not None
        with self.engine.connect() as c:
            q = text("SELECT pid FROM pg_stat_activity WHERE application_name = :a")
            return list(c.execute(q, {"a": PG_SCHEMA}).scalars())

    def sample(self) -> None:
        for p in self.pids():
            self.seen[p] = max(self.seen.get(p, 0.0), cpu_s(p))

    def sample_loop(self) -> None:
        while self.running:
            self.sample()
            time.sleep(0.2)

    def begin(self) -> None:
        if self.engine is not None:
            self.sample()
            self.start = dict(self.seen)
            self.thread.start()

    def end(self) -> float:
        """CPU seconds since ``begin``."""
        if self.engine is None:
            return 0.0
        self.sample()
        self.running = False
        self.thread.join()
        self.engine.dispose()
        return sum(v - self.start.get(p, 0.0) for p, v in self.seen.items())


def children(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(stat.parent.name))
        except (OSError, ValueError, IndexError):
            continue
    return found


def pct(samples: list[float], q: float) -> float:
    s = sorted(samples)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--events", type=int, default=10_000)
    ap.add_argument("--clients", default="20", help="reader threads; a comma list runs each in turn (1,5,20)")
    ap.add_argument("--writers", type=int, default=0, help="writer threads posting new events")
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--warmup", type=float, default=10.0, help="seconds before the RSS baseline")
    ap.add_argument("--every", type=float, default=5.0, help="RSS sample interval")
    ap.add_argument("--backend", choices=["sqlite", "postgresql"], default="sqlite")
    ap.add_argument("--workers", type=int, default=1, help="headwater serve --workers")
    ap.add_argument(
        "--client",
        choices=["loop", "httpx"],
        default="loop",
        help="the readers: one selector thread for all (default), or one httpx.Client thread each (the former)",
    )
    ap.add_argument("--store", type=Path, default=None, help="SQLite file to build or reuse")
    ap.add_argument("--drop", action="store_true", help="drop the PostgreSQL schema at the end")
    ap.add_argument("--cpu", type=int, default=0, help="instead of the load: CPU per request, N of each, in process")
    ap.add_argument("--before", type=Path, help="with --cpu: also a checkout to compare with (its src/), alternating")
    ap.add_argument("--rounds", type=int, default=5, help="with --before: rounds of each version")
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # a round's child: print JSON
    args = ap.parse_args()

    tmp = tempfile.TemporaryDirectory()
    if args.backend == "postgresql":
        url, where = pg_schema(), f"PostgreSQL schema {PG_SCHEMA}"
    else:
        path = args.store or Path(tmp.name) / "serve-bench.db"
        url, where = f"sqlite:///{path}", str(path)
    if args.json:
        return print(json.dumps(cpu_per_request(url, args.events, args.cpu, quiet=True)))
    t0 = time.perf_counter()
    build(url, args.events)
    print(f"store: {where} ({args.events} events) in {time.perf_counter() - t0:.0f} s; {args.workers} worker(s)")
    baseline = None
    try:
        if args.cpu and args.before:
            return cpu_against(args, url)
        if args.cpu:
            cpu_per_request(url, args.events, args.cpu)
            return None
        for clients in [int(c) for c in args.clients.split(",")]:
            p50, p99 = serve_and_load(args, url, clients)
            if baseline is None:
                baseline = p50
            elif baseline:
                print(
                    f"  vs the 1st run's p50 ({baseline * 1000:.1f} ms):"
                    f" p50 x{p50 / baseline:.1f}, p99 x{p99 / baseline:.1f}"
                )
    finally:
        tmp.cleanup()
        if args.backend == "postgresql" and args.drop:
            pg_schema(drop=True)


def serve_and_load(args: argparse.Namespace, url: str, clients: int) -> tuple[float, float]:
    """Start the server, run the load, stop it; the p50 and p99 of all reads."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    cmd = [sys.executable, "-c", "from headwater.cli.main import app; app()", "serve", "--store", url]
    server = subprocess.Popen(
        [*cmd, "--port", str(port), *(["--workers", str(args.workers)] if args.workers > 1 else [])],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "HEADWATER_TOKENS": ""},
    )
    try:
        for _ in range(1200):
            try:
                if httpx.get(f"{base}/api/v1/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        else:
            raise SystemExit("server did not start: " + (server.stderr.read().decode() if server.stderr else ""))
        return run_load(args, base, server.pid, clients)
    finally:
        server.terminate()
        server.wait(60)


Request = tuple[str, dict[str, object]]


def read_endpoints(n: int) -> dict[str, Callable[[random.Random], Request]]:
    """The read requests of the load, by endpoint: each draws its node from ``random.Random``."""
    return {
        "field-origin": lambda r: ("/api/v1/field-origin", {"field": f"g.summary_{r.randrange(n)}.total_amount"}),
        "field-impact": lambda r: ("/api/v1/field-impact", {"field": f"g.orders_{r.randrange(POOL)}.amount"}),
        "upstream": lambda r: ("/api/v1/upstream", {"node": f"g.summary_{r.randrange(n)}", "max_depth": 3}),
        "resolve": lambda r: ("/api/v1/nodes/resolve", {"node": f"g.summary_{r.randrange(n)}"}),
        "summary": lambda r: ("/api/v1/summary", {"node": f"g.orders_{r.randrange(POOL)}"}),
    }


def cpu_against(args: argparse.Namespace, url: str) -> None:
    """CPU per request of this checkout and of ``--before``, in alternating child processes."""
    here = Path(__file__).resolve().parents[1]
    got: dict[str, dict[str, list[float]]] = {"after": defaultdict(list), "before": defaultdict(list)}
    for _ in range(args.rounds):
        for name, checkout in (("before", args.before), ("after", here)):
            env = {**os.environ, "PYTHONPATH": f"{checkout / 'src'}{os.pathsep}{here / 'bench'}"}
            cmd = [sys.executable, __file__, "--json", "--cpu", str(args.cpu), "--events", str(args.events)]
            cmd += ["--backend", args.backend, *(["--store", str(args.store)] if args.store else [])]
            if args.backend == "sqlite" and not args.store:
                raise SystemExit("--before on SQLite needs --store (the store both versions read)")
            out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
            for label, ms in json.loads(out).items():
                got[name][label].append(ms)
    print(f"CPU per request, in process ({args.cpu} of each, after 20), median of {args.rounds} rounds:")
    print(f"  {'':14s} {'before':>9s} {'after':>9s} {'after/before':>13s}")
    for label in got["after"]:
        a, b = statistics.median(got["after"][label]), statistics.median(got["before"][label])
        print(f"  {label:14s} {b:6.2f} ms {a:6.2f} ms {a / b:12.2f}x")


def cpu_per_request(url: str, events: int, rounds: int, quiet: bool = False) -> dict[str, float]:
    """The server's CPU time per request, in this process and one thread: the app called through ASGI
    with every sync step run inline (no thread pool), ``rounds`` requests of each endpoint after a
    warm-up. CPU time, not wall time: what a request costs, whatever else the machine runs. The app
    is called directly (a scope, ``receive`` and ``send``): no HTTP client's CPU is counted."""
    import asyncio

    import fastapi.dependencies.utils
    import fastapi.routing

    from headwater.service import create_app

    async def inline(func: Callable[..., object], *a: object, **k: object) -> object:
        return func(*a, **k)

    fastapi.routing.run_in_threadpool = inline  # type: ignore[assignment]
    fastapi.dependencies.utils.run_in_threadpool = inline  # type: ignore[assignment]
    endpoints = read_endpoints(events)
    cost: dict[str, float] = defaultdict(float)
    app = create_app(open_store(url))

    async def get(path: str, params: dict[str, object]) -> tuple[int, bytes]:
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": urlencode(params).encode(),
            "root_path": "",
            "headers": [(b"host", b"127.0.0.1"), (b"accept", b"*/*")],
            "client": ("127.0.0.1", 50000),
            "server": ("127.0.0.1", 80),
        }
        sent: list[dict[str, object]] = []

        async def receive() -> dict[str, object]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict[str, object]) -> None:
            sent.append(message)

        await app(scope, receive, send)
        status = next(int(m["status"]) for m in sent if m["type"] == "http.response.start")  # type: ignore[call-overload]
        return status, b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")  # type: ignore[misc]

    async def run() -> None:
        rng = random.Random(1)
        for k in range(rounds + 20):
            for name, request in endpoints.items():
                path, params = request(rng)
                t = time.process_time()
                status, body = await get(path, params)
                if k >= 20:
                    cost[name] += time.process_time() - t
                assert status == 200, body

    asyncio.run(run())
    ms = {name: total / rounds * 1000 for name, total in sorted(cost.items())}
    ms["mean"] = sum(ms.values()) / len(ms)
    if not quiet:
        print(f"CPU per request, in process ({rounds} of each, after 20):")
        for name, v in ms.items():
            print(f"  {name:14s} {v:6.2f} ms")
    return ms


def run_load(args: argparse.Namespace, base: str, pid: int, clients: int) -> tuple[float, float]:
    n = args.events
    endpoints = read_endpoints(n)
    latencies: dict[str, list[float]] = defaultdict(list)
    errors: dict[str, int] = defaultdict(int)
    stop = time.monotonic() + args.seconds
    lock = threading.Lock()
    run_key = random.randrange(1, 1000) * 100_000_000

    client_cpu = [0.0]

    def record(name: str, status: int, dt: float) -> None:
        with lock:
            if status == 200:
                latencies[name].append(dt)
            else:
                errors[name] += 1

    def reader(seed: int) -> None:
        t0 = time.thread_time()
        rng = random.Random(seed)
        with httpx.Client(base_url=base, timeout=60) as client:
            while time.monotonic() < stop:
                name = rng.choice(list(endpoints))
                url, params = endpoints[name](rng)
                t = time.perf_counter()
                r = client.get(url, params=params)
                record(name, r.status_code, time.perf_counter() - t)
        with lock:
            client_cpu[0] += time.thread_time() - t0

    def loop_readers() -> None:
        t0 = time.thread_time()
        loop_load(base, endpoints, clients, stop, record)
        client_cpu[0] += time.thread_time() - t0

    def writer(seed: int) -> None:
        k = n + run_key + 1_000_000 * (seed + 1)  # new events in every run (a repeat is a cheap duplicate)
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

    backends = BackendCpu(PG if args.backend == "postgresql" else None)
    backends.begin()
    server_cpu = sum(cpu_s(p) for p in [pid, *children(pid)])
    if args.client == "httpx":
        threads = [threading.Thread(target=reader, args=(s,)) for s in range(clients)]
    else:
        threads = [threading.Thread(target=loop_readers)]
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
    server_cpu = sum(cpu_s(p) for p in [pid, *children(pid)]) - server_cpu
    pg_cpu = backends.end()

    print(f"\n{clients} readers ({args.client}), {args.writers} writers, {args.seconds:.0f} s:")
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
    done = sum(len(v) for v in latencies.values())
    if done:
        print(
            f"  CPU per request: server {server_cpu / done * 1000:.2f} ms"
            + (f", PostgreSQL backends {pg_cpu / done * 1000:.2f} ms" if args.backend == "postgresql" else "")
            + f", load client {client_cpu[0] / max(1, len(reads)) * 1000:.2f} ms"
            + f"  (load average {os.getloadavg()[0]:.2f})"
        )
    after = [rss for t, rss in samples if t >= args.warmup]
    if after:
        print(
            f"  RSS after {args.warmup:.0f} s warm-up: {after[0]:.1f} MB → {after[-1]:.1f} MB "
            f"(max {max(after):.1f}, median {statistics.median(after):.1f})"
        )
    return pct(reads, 0.5), pct(reads, 0.99)


class LoopClient:
    """One closed-loop client of ``loop_load``: a keep-alive connection and the request it waits for."""

    def __init__(self, address: tuple[str, int], host: str, seed: int) -> None:
        self.address, self.host = address, host
        self.rng = random.Random(seed)
        self.sock = self.connect()
        self.buf = bytearray()
        self.name = ""
        self.sent = 0.0

    def connect(self) -> socket.socket:
        sock = socket.create_connection(self.address)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock

    def send(self, endpoints: dict[str, Callable[[random.Random], Request]]) -> None:
        self.name = self.rng.choice(list(endpoints))
        path, params = endpoints[self.name](self.rng)
        line = f"GET {path}?{urlencode(params)} HTTP/1.1\r\nHost: {self.host}\r\nAccept: */*\r\n\r\n"
        self.buf.clear()
        self.sent = time.perf_counter()
        self.sock.sendall(line.encode())

    def answer(self) -> int | None:
        """The status once the whole answer has been read (``Content-Length``), else None; -1 when
        the server closed the connection first."""
        chunk = self.sock.recv(1 << 16)
        if not chunk:
            return -1
        self.buf += chunk
        end = self.buf.find(b"\r\n\r\n")
        if end < 0:
            return None
        head = bytes(self.buf[:end]).decode("latin-1").split("\r\n")
        length = next((int(h.split(":", 1)[1]) for h in head[1:] if h.lower().startswith("content-length:")), None)
        if length is None:
            raise RuntimeError(f"an answer without Content-Length: {head}")
        if len(self.buf) < end + 4 + length:
            return None
        return int(head[0].split()[1])


def loop_load(
    base: str,
    endpoints: dict[str, Callable[[random.Random], Request]],
    clients: int,
    stop: float,
    record: Callable[[str, int, float], None],
) -> None:
    """``clients`` closed-loop readers over keep-alive connections, driven by one selector in this
    thread: a client sends its next request as soon as it has read its answer whole, as a thread
    per client does, for a fraction of the CPU (the latency it measures is from the request's send
    to its answer's last byte)."""
    hostport = base.split("://", 1)[1]
    host, port = hostport.rsplit(":", 1)
    sel = selectors.DefaultSelector()
    conns = [LoopClient((host, int(port)), hostport, seed) for seed in range(clients)]
    for c in conns:
        sel.register(c.sock, selectors.EVENT_READ, c)
        c.send(endpoints)
    open_ = len(conns)
    while open_:
        for key, _ in sel.select(timeout=1.0):
            c = key.data
            status = c.answer()
            if status is None:
                continue
            record(c.name, status, time.perf_counter() - c.sent)
            if status == -1:  # closed by the server: a new connection
                sel.unregister(c.sock)
                c.sock.close()
                c.sock = c.connect()
                sel.register(c.sock, selectors.EVENT_READ, c)
            if time.monotonic() < stop:
                c.send(endpoints)
            else:
                sel.unregister(c.sock)
                c.sock.close()
                open_ -= 1
    sel.close()


if __name__ == "__main__":
    main()
