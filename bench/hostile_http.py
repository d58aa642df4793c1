"""Hostile clients against ``headwater serve`` on loopback: a huge body, and slowloris.

    python bench/hostile_http.py body [--mb 100] [--path /api/v1/events] [--tokens]
    python bench/hostile_http.py slowloris [--sockets 100] [--seconds 20] [--mode headers|body]

Each run starts ``headwater serve`` (this checkout's ``src``, or ``--src DIR``'s) on 127.0.0.1 over a fresh SQLite store
in a child process, and stops it at the end.

- ``body`` posts ``--mb`` MB of JSON (an array of small objects) to ``--path`` and prints the status,
  the seconds until the answer, and the server's resident memory before and at its peak (``VmHWM``).
  ``--tokens`` serves with a write token and sends none (the request is not allowed).
- ``slowloris`` opens ``--sockets`` connections that trickle their request (a header line every
  second, ``--mode headers``; or complete headers and a body byte a second, ``--mode body``) and
  reconnect as soon as the server closes them, for ``--seconds``; meanwhile one client asks
  ``GET /api/v1/health`` every half second with a 2 s timeout. It prints the health checks answered
  out of those asked, and the attackers' connections made.

Loopback only; every loop is bounded by ``--seconds``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import selectors
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(store: str, port: int, tokens: str | None, extra: list[str], src: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": src}
    if tokens:
        env["HEADWATER_TOKENS"] = tokens
    else:
        env.pop("HEADWATER_TOKENS", None)
    cli = [sys.executable, "-m", "headwater.cli.main"]
    subprocess.run([*cli, "db", "upgrade", "--store", store], env=env, check=True, stdout=subprocess.DEVNULL)
    cmd = [*cli, "serve", "--store", store, "--port", str(port), *extra]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if b" 200 " in request(port, b"GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 2.0)[:20]:
                return proc
        except OSError:
            pass
        time.sleep(0.2)
    proc.kill()
    raise SystemExit("the server did not start")


def request(port: int, raw: bytes, timeout: float) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(raw)
        return s.recv(65536)


def memory_kb(pid: int) -> dict[str, int]:
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0])
    return out


def body(args: argparse.Namespace, port: int, proc: subprocess.Popen[bytes]) -> None:
    item = b'{"k": [1, 2, 3], "v": "' + b"x" * 60 + b'"}'
    count = args.mb * 1_000_000 // (len(item) + 1)
    payload = b"[" + b",".join([item] * count) + b"]"
    before = memory_kb(proc.pid)
    head = (
        f"POST {args.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n"
    ).encode()
    t0 = time.monotonic()
    answer = b""
    with socket.create_connection(("127.0.0.1", port), timeout=600) as s:
        s.sendall(head)
        try:
            view = memoryview(payload)
            for at in range(0, len(payload), 1 << 20):
                s.sendall(view[at : at + (1 << 20)])
        except OSError as exc:  # the server answered and closed before the whole body was sent
            print(f"sending stopped after {at / 1e6:.0f} MB: {exc.__class__.__name__}")
        try:
            while chunk := s.recv(65536):
                answer += chunk
        except OSError:
            pass
    seconds = time.monotonic() - t0
    after = memory_kb(proc.pid)
    status = answer.split(b"\r\n", 1)[0].decode(errors="replace")
    print(f"body {len(payload) / 1e6:.0f} MB to {args.path}{' (no token)' if args.tokens else ''}: {status!r}")
    print(f"answered in {seconds:.2f} s; server RSS {before['VmRSS'] / 1024:.0f} MB before, ", end="")
    print(f"peak {after['VmHWM'] / 1024:.0f} MB, now {after['VmRSS'] / 1024:.0f} MB")
    print("answer:", answer.split(b"\r\n\r\n", 1)[-1][:200].decode(errors="replace"))


def slowloris(args: argparse.Namespace, port: int) -> None:
    sel = selectors.DefaultSelector()
    conns: dict[socket.socket, float] = {}  # socket -> next time to send a byte
    made = 0
    end = time.monotonic() + args.seconds
    post = b"POST /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"

    def connect() -> None:
        nonlocal made
        s = socket.socket()
        s.setblocking(False)
        s.connect_ex(("127.0.0.1", port))
        made += 1
        conns[s] = time.monotonic()
        sel.register(s, selectors.EVENT_READ)
        first = b"GET /api/v1/stats HTTP/1.1\r\nHost: 127.0.0.1\r\n" if args.mode == "headers" else None
        if args.mode == "body":
            first = post + b"Content-Length: 1000000\r\n\r\n{"
        with contextlib.suppress(OSError):
            s.send(first or b"")

    def drop(s: socket.socket) -> None:
        sel.unregister(s)
        conns.pop(s, None)
        s.close()

    for _ in range(args.sockets):
        connect()
    asked = answered = 0
    next_health = time.monotonic()
    while time.monotonic() < end:
        now = time.monotonic()
        if now >= next_health:
            next_health = now + 0.5
            asked += 1
            try:
                got = request(port, b"GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", 2)
                answered += b" 200 " in got[:20]
            except OSError:
                pass
        for key, _ in sel.select(timeout=0.05):
            s = key.fileobj
            try:
                data = s.recv(4096)  # type: ignore[union-attr]
            except OSError:
                data = b""
            if not data:  # closed by the server: reconnect at once
                drop(s)  # type: ignore[arg-type]
                connect()
        for s, due in list(conns.items()):
            if due <= now:
                conns[s] = now + 1.0
                try:
                    s.send(b"X-a: b\r\n" if args.mode == "headers" else b" ")
                except OSError:
                    drop(s)
                    connect()
    for s in list(conns):
        drop(s)
    print(f"slowloris ({args.mode}): {args.sockets} trickling connections for {args.seconds} s, {made} made")
    print(f"health checks answered: {answered} of {asked}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    b = sub.add_parser("body")
    b.add_argument("--mb", type=int, default=100)
    b.add_argument("--path", default="/api/v1/events")
    b.add_argument("--tokens", action="store_true")
    s = sub.add_parser("slowloris")
    s.add_argument("--sockets", type=int, default=100)
    s.add_argument("--seconds", type=float, default=20)
    s.add_argument("--mode", choices=["headers", "body"], default="headers")
    for p in (b, s):
        p.add_argument("--serve-arg", action="append", default=[], help="one more argument for headwater serve")
        p.add_argument("--src", default=str(ROOT / "src"), help="the src directory of the headwater to serve")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        tokens = "w0:write" if getattr(args, "tokens", False) else None
        proc = start_server(f"sqlite:///{tmp}/lineage.db", port, tokens, args.serve_arg, args.src)
        try:
            body(args, port, proc) if args.what == "body" else slowloris(args, port)
        finally:
            proc.terminate()
            proc.wait(30)


if __name__ == "__main__":
    main()
